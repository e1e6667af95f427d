// What the call batcher (createCallBatcher.ts) works with: where calls go, how it folds them, the
// turn's waiting reads, and whether the chain has Multicall3.
import type { Logger } from 'pino'
import type { Address, Hex } from 'viem'

export type CreateCallBatcherParameters = {
  request(args: { method: string; params?: unknown; alone?: boolean }): Promise<unknown>
  logger: Logger
  /** False: never fold (each call alone). */
  enabled?: boolean
  /** The most calls one aggregate3 carries (the node caps an eth_call's gas). */
  maxCalls?: number
  /**
   * Into how many aggregates (at most) one turn's calls are split: the node runs one call's inner
   * calls one after another, and would leave its other cores idle while requests wait.
   */
  spread?: number
  /**
   * This many reads waiting are folded and sent at once, without waiting for the end of the turn:
   * the node works on them while the gateway still reads the turn's other requests.
   */
  foldAt?: number
}

/** A read waiting for its answer. */
export type Pending = { to: Address; data: Hex; at: Hex | undefined; resolve(v: Hex): void; reject(e: unknown): void }

export type CallBatcherContext = Required<
  Pick<CreateCallBatcherParameters, 'request' | 'logger' | 'enabled' | 'maxCalls' | 'spread' | 'foldAt'>
> & {
  /** Whether the chain has Multicall3 (undefined: not known yet). */
  present: boolean | undefined
  checkedAt: number
  /** The look for Multicall3 under way. */
  checking: Promise<void> | undefined
  /** The turn's reads, folded at its end (or as soon as `foldAt` wait). */
  queue: Pending[]
  scheduled: boolean
}

export function createCallBatcherContext({
  request,
  logger,
  enabled = true,
  maxCalls = 64,
  spread = 4,
  foldAt = 8,
}: CreateCallBatcherParameters): CallBatcherContext {
  return {
    request,
    logger,
    enabled,
    maxCalls,
    spread,
    foldAt,
    present: enabled ? undefined : false,
    checkedAt: 0,
    checking: undefined,
    queue: [],
    scheduled: false,
  }
}

/** The block a call reads: the latest, or the one whose hash is `at` (EIP-1898). */
export const blockParameter = (at: Hex | undefined) => (at === undefined ? 'latest' : { blockHash: at })
