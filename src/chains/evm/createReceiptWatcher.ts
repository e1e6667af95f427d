// One watch over the chain's blocks for every execution waiting for its receipt: one block
// number read per interval however many transactions are in flight, and each new block's
// receipts read once (eth_getBlockReceipts), answering every transaction mined in it at the same
// moment. Per-transaction polling made every execution wait up to a whole poll interval after its
// block and loaded the node with one call per transaction per interval.
import type { Hex } from 'viem'

export type ReceiptWatcher<R> = {
  /** The transaction's receipt once it is mined; rejects when the limit passes or the watcher closes. */
  wait(hash: Hex): Promise<R>
  /** Rejects every wait (the gateway is closing: the reconciler of the next start takes over). */
  close(): void
}

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
  /** Every this many intervals each waiting transaction is also asked for alone (a reorg, a missed block). */
  recheckEvery?: number
  /** Most blocks read one by one after a gap; beyond it, each waiting transaction is asked for alone. */
  maxBlocksPerTick?: number
  /** How many of the last blocks read keep their transactions' receipts, for waits that begin after their block was read. */
  recentBlocks?: number
  onError?(err: unknown): void
}

type Waiter<R> = { resolve(r: R): void; reject(e: unknown): void; deadline: number }

export function createReceiptWatcher<R>({ blockNumber, blockReceipts, receipt, hashOf, intervalMs, limitMs, recheckEvery = 25, maxBlocksPerTick = 16, recentBlocks = 4, onError }: CreateReceiptWatcherParameters<R>): ReceiptWatcher<R> {
  const waiting = new Map<string, Waiter<R>[]>()
  let lastBlock: bigint | undefined
  let timer: NodeJS.Timeout | undefined
  let ticking = false
  let ticks = 0
  let byBlock = true
  let closed = false
  // The receipts of the last blocks read, by transaction hash: a wait that begins after its
  // transaction's block was read (an automining node mines on broadcast) is answered from here.
  const recent: Array<Map<string, R>> = []

  const key = (hash: string) => hash.toLowerCase()
  function settle(hash: string, r: R) {
    const waiters = waiting.get(key(hash))
    if (!waiters) return
    waiting.delete(key(hash))
    for (const w of waiters) w.resolve(r)
  }

  async function askAlone(hashes: string[]) {
    await Promise.all(
      hashes.map(async (hash) => {
        const r = await receipt(hash as Hex).catch((err: unknown) => void onError?.(err))
        if (r) settle(hash, r)
      }),
    )
  }

  async function tick() {
    if (ticking) return
    ticking = true
    try {
      ticks++
      const now = Date.now()
      for (const [hash, waiters] of waiting) {
        const live = waiters.filter((w) => w.deadline > now)
        for (const w of waiters) if (w.deadline <= now) w.reject(new Error(`no receipt for ${hash} within ${limitMs / 60_000} minutes; reconciliation settles it`))
        if (live.length === 0) waiting.delete(hash)
        else waiting.set(hash, live)
      }
      if (waiting.size === 0) {
        lastBlock = undefined
        recent.length = 0
        return
      }
      const head = await blockNumber()
      const from = lastBlock === undefined ? head : lastBlock + 1n
      lastBlock = head
      if (head >= from) {
        if (!byBlock || head - from >= BigInt(maxBlocksPerTick)) await askAlone([...waiting.keys()])
        else {
          for (let b = from; b <= head; b++) {
            const receipts = await blockReceipts(b)
            if (!receipts) {
              byBlock = false
              await askAlone([...waiting.keys()])
              break
            }
            const byHash = new Map<string, R>()
            for (const r of receipts) {
              byHash.set(key(hashOf(r)), r)
              settle(hashOf(r), r)
            }
            recent.push(byHash)
            if (recent.length > recentBlocks) recent.shift()
          }
        }
      }
      if (ticks % recheckEvery === 0 && waiting.size > 0) await askAlone([...waiting.keys()])
      if (waiting.size === 0) {
        lastBlock = undefined
        recent.length = 0
      }
    } catch (err) {
      // The next tick tries again; a transaction mined meanwhile is found by the recheck.
      lastBlock = undefined
      recent.length = 0
      onError?.(err)
    } finally {
      ticking = false
      schedule()
    }
  }

  function schedule(delayMs = intervalMs) {
    if (closed || waiting.size === 0 || timer) return
    timer = setTimeout(() => {
      timer = undefined
      void tick()
    }, delayMs)
  }

  return {
    wait(hash) {
      if (closed) return Promise.reject(new Error(`the gateway closed while watching ${hash}; reconciliation settles it`))
      // A watch starting from nothing reads the head now, so that it starts from this moment's block.
      const fresh = waiting.size === 0 && !ticking
      for (const block of recent) {
        const r = block.get(key(hash))
        if (r) return Promise.resolve(r)
      }
      const promise = new Promise<R>((resolve, reject) => {
        const waiters = waiting.get(key(hash)) ?? []
        waiters.push({ resolve, reject, deadline: Date.now() + limitMs })
        waiting.set(key(hash), waiters)
      })
      // A transaction mined before a running watch's last block read is in its recent blocks
      // (above) or older; one mined before a watch began is in no block the watch will read.
      // Either way it is asked for alone once, at once, after registering.
      if (fresh || recent.length === 0 || lastBlock === undefined) void askAlone([hash])
      if (fresh && timer) {
        clearTimeout(timer)
        timer = undefined
      }
      schedule(fresh ? 0 : intervalMs)
      return promise
    },
    close() {
      closed = true
      if (timer) clearTimeout(timer)
      timer = undefined
      for (const [hash, waiters] of waiting) for (const w of waiters) w.reject(new Error(`the gateway closed while watching ${hash}; reconciliation settles it`))
      waiting.clear()
    },
  }
}
