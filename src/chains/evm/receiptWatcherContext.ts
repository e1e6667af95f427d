// What the receipt watcher (createReceiptWatcher.ts) works with: how it reads the chain, the
// transactions waited for, and where its watch over the blocks stands.
import type { Hex } from 'viem'
import { type BlockPace, createBlockPace } from './blockPace.ts'

export type CreateReceiptWatcherParameters<R> = {
  blockNumber(): Promise<bigint>
  /** Every receipt of the block, or undefined when the node has no eth_getBlockReceipts. */
  blockReceipts(blockNumber: bigint): Promise<readonly R[] | undefined>
  /** One transaction's receipt, undefined while it is not mined. */
  receipt(hash: Hex): Promise<R | undefined>
  hashOf(receipt: R): Hex
  intervalMs: number
  /** How long one wait lasts. */
  limitMs: number
  /** Every this many intervals (of time) each transaction waited for that long is also asked for alone (a reorg, a missed block). */
  recheckEvery?: number
  /** Most blocks read one by one after a gap; beyond it, each waiting transaction is asked for alone. */
  maxBlocksPerTick?: number
  /** How many of the last blocks read keep their transactions' receipts, for waits that begin after their block was read. */
  recentBlocks?: number
  onError?(err: unknown): void
  /**
   * Told when a new block's receipts were read (the node's pool just lost what it mined), with the
   * chain's spacing between blocks as seen and in how long the next is due (ms; undefined until known).
   */
  onBlock?(spacingMs: number | undefined, dueInMs?: number): void
}

export type Waiter<R> = { resolve(r: R): void; reject(e: unknown): void; deadline: number }

export type ReceiptWatcherContext<R> = Required<Omit<CreateReceiptWatcherParameters<R>, 'onError' | 'onBlock'>> & {
  onError: ((err: unknown) => void) | undefined
  onBlock: ((spacingMs: number | undefined, dueInMs?: number) => void) | undefined
  /** The waits, by lower-case transaction hash. */
  waiting: Map<string, Waiter<R>[]>
  /** The last block read whole (every block after it is still to read); undefined before the first step and after a long lull. */
  lastBlock: bigint | undefined
  /** When a step last read the head (Date.now()). */
  lastStepAt: number
  /** Told when the watch has a place again (a head read answered) or its step failed: see `whenPlaced`. */
  placing: Array<() => void>
  timer: NodeJS.Timeout | undefined
  ticking: boolean
  /** When the last recheck was (Date.now()): the next is a recheck period after it. */
  recheckedAt: number
  /** When the chain's blocks were seen: the head is read more often around the next one's due time (blockPace.ts). */
  pace: BlockPace
  /** False once the node turned out to have no eth_getBlockReceipts: each transaction is asked for alone. */
  byBlock: boolean
  closed: boolean
  /**
   * The receipts of the last blocks read, by transaction hash: a wait that begins after its
   * transaction's block was read (an automining node mines on broadcast) is answered from here.
   */
  recent: Array<Map<string, R>>
}

export function createReceiptWatcherContext<R>({
  recheckEvery = 25,
  maxBlocksPerTick = 16,
  recentBlocks = 4,
  onError,
  onBlock,
  ...reads
}: CreateReceiptWatcherParameters<R>): ReceiptWatcherContext<R> {
  return {
    ...reads,
    recheckEvery,
    maxBlocksPerTick,
    recentBlocks,
    onError,
    onBlock,
    waiting: new Map(),
    lastBlock: undefined,
    lastStepAt: 0,
    placing: [],
    timer: undefined,
    ticking: false,
    recheckedAt: Date.now(),
    pace: createBlockPace(),
    byBlock: true,
    closed: false,
    recent: [],
  }
}

export const receiptKey = (hash: string) => hash.toLowerCase()
