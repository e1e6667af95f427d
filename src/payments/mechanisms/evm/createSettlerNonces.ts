// The in-process facilitator's EVM nonces: one counter per (settler, chain), the nonce of each
// settlement handed out just before it is signed and taken back when its sending fails.
//
// viem's shared nonce manager, used before, forgot everything when one send failed and read the
// node's pending count again: under concurrent settlements that count does not yet hold the nonces
// handed out and still on their way, so the next settlements were given those again ("nonce too
// low", "replacement transaction underpriced"), failed, and reset it once more. Here a failed
// send's nonce alone is taken back, and handed to the next settlement unless the node holds it: a
// send can fail after the node took the transaction (its answer lost), and then the nonce is used.
// The node holds it when it is below its pending count, or when its pool has it (queued behind an
// earlier gap: txpool_contentFrom; a node without the txpool namespace is judged by the count
// alone). Each failed nonce is judged by reads made after its failure, and no send is given it
// before: a read that reached the node before the failed transaction did would call it free.
// Otherwise the next nonce never handed out. The counter never goes below what it handed out, so
// a node that answers the pending count late (another endpoint of the pool) does not make it hand
// one out twice; it goes up when the node counts more (the key used elsewhere). `forget`
// (after a reorg took a settlement's nonce back) reads it from the node again. On its first read
// the counter also asks the pool: a settlement an earlier process left queued there behind a gap
// keeps its nonce, and the counter hands out the ones around it.
//
// A nonce taken back that no settlement takes within `fillAfterMs` (the failure known after every
// nonce above it was handed out, and none asked since) would hold the settlements above it queued
// in the node: it is filled with a transaction of no effect (the node's `fillGap`), or, when it is
// the highest handed out, the counter goes back to it.
import { AsyncResource } from 'node:async_hooks'

export type SettlerKey = { address: string; chainId: number }

/** What the counter reads of the node, for one settler. */
export type SettlerNode = {
  /** The settler's pending transaction count. */
  pendingCount(): Promise<number>
  /** The settler's nonces in the node's pool (pending or queued); undefined when it cannot say. */
  poolNonces(): Promise<Set<number> | undefined>
  /** Sends a transaction of no effect with this nonce (a gap no settlement took). */
  fillGap(nonce: number): Promise<unknown>
}

export type SettlerNonces = {
  /**
   * Sends one transaction with the settler's next nonce: `send` signs and sends with the nonce
   * given; one that throws gives it back. One read of the pending count serves the sends asked
   * while it is under way.
   */
  send<T>(key: SettlerKey, node: SettlerNode, send: (nonce: number) => Promise<T>): Promise<T>
  /** Forgets what was counted for the settler on this chain: the next send reads it from the node. */
  forget(key: SettlerKey): void
}

type Counter = {
  /** The next nonce never handed out; undefined until the node was read. */
  next: number | undefined
  /** Nonces handed out whose sending failed, judged free since (the node holds none of them), lowest first. */
  takenBack: number[]
  /**
   * Nonces handed out whose sending failed, not judged yet: each is judged by reads of the node made
   * after its failure, and handed out by no send meanwhile (the node may have taken it).
   */
  unjudged: number[]
  /** The node's pending count being read for the sends asked meanwhile. */
  reading: Promise<number> | undefined
  /**
   * Nonces above the pending count the node's pool held queued when the counter was first read (a
   * settlement an earlier process sent behind a gap): not handed out, so none collides with them.
   */
  occupied: Set<number>
  /** Counts the forgets: a read or a failure from before the last one counts for nothing. */
  epoch: number
  /** The gaps' fill, when one is due. */
  fill: ReturnType<typeof setTimeout> | undefined
}

export function createSettlerNonces({ fillAfterMs = 1_000 }: { fillAfterMs?: number } = {}): SettlerNonces {
  // A fill runs in the context the counter was made in, not in the failed settlement's (a timer
  // inherits its creator's AsyncLocalStorage): what it signs is never taken for that settlement's.
  const outside = new AsyncResource('SettlerNoncesFill')
  const counters = new Map<string, Counter>()
  const counterOf = ({ address, chainId }: SettlerKey) => {
    const id = `${address.toLowerCase()}.${chainId}`
    let counter = counters.get(id)
    if (!counter)
      counters.set(
        id,
        (counter = {
          next: undefined,
          takenBack: [],
          unjudged: [],
          reading: undefined,
          occupied: new Set(),
          epoch: 0,
          fill: undefined,
        }),
      )
    return counter
  }

  /**
   * Reads the node; leaves in `takenBack` only the nonces it does not hold, and moves there those
   * failed since the last judgement that it does not hold either. False after a forget.
   */
  async function judge(counter: Counter, node: SettlerNode): Promise<boolean> {
    const { epoch } = counter
    const reading = (counter.reading ??= read(counter, node).finally(() => {
      if (counter.reading === reading) counter.reading = undefined
    }))
    const pending = await reading
    if (counter.epoch !== epoch) return false
    if (counter.next === undefined || pending > counter.next) counter.next = pending
    counter.takenBack = counter.takenBack.filter((nonce) => nonce >= pending)
    if (counter.unjudged.length === 0) return true
    // The shared read may have reached the node before a failed send's transaction did, and a
    // nonce given back while these reads are on their way is judged by the next ones: these judge
    // only the nonces failed before they start, and no send is handed one of those meanwhile. The
    // pool first, then the count: a transaction mined between the two is in one of them.
    const judging = counter.unjudged.splice(0)
    let held: Set<number> | undefined
    let now: number
    try {
      held = await node.poolNonces().catch(() => undefined)
      now = await node.pendingCount()
    } catch (err) {
      if (counter.epoch === epoch) counter.unjudged.push(...judging)
      throw err
    }
    if (counter.epoch !== epoch) return false
    if (now > (counter.next as number)) counter.next = now
    for (const nonce of judging) if (nonce >= now && !held?.has(nonce)) free(counter, nonce)
    counter.takenBack = counter.takenBack.filter((nonce) => nonce >= now)
    if (counter.takenBack.length > 0) fillLater(counter, node)
    return true
  }

  /** The pending count; on the counter's first read, also what the pool holds queued above it. */
  async function read(counter: Counter, node: SettlerNode): Promise<number> {
    const { epoch } = counter
    const first = counter.next === undefined
    const pending = await node.pendingCount()
    if (first) {
      const held = await node.poolNonces().catch(() => undefined)
      if (counter.epoch === epoch) counter.occupied = new Set([...(held ?? [])].filter((nonce) => nonce >= pending))
    }
    return pending
  }

  async function take(counter: Counter, node: SettlerNode): Promise<number> {
    if (!(await judge(counter, node))) return take(counter, node)
    const back = counter.takenBack.shift()
    if (back !== undefined) return back
    let next = counter.next as number
    while (counter.occupied.delete(next)) next++
    counter.next = next + 1
    return next
  }

  /** Fills the gaps no settlement took; a failed fill is tried again later. */
  function fillLater(counter: Counter, node: SettlerNode) {
    if (counter.fill) return
    counter.fill = outside.runInAsyncScope(() => setTimeout(fill, fillAfterMs, counter, node))
    counter.fill.unref?.()
  }

  async function fill(counter: Counter, node: SettlerNode) {
    counter.fill = undefined
    const due = () => counter.takenBack.length > 0 || counter.unjudged.length > 0
    if (!due() || !(await judge(counter, node).catch(() => false))) {
      if (due()) fillLater(counter, node)
      return
    }
    // The highest handed out, nothing above it: the counter goes back instead.
    while (counter.next !== undefined && counter.takenBack.at(-1) === counter.next - 1) {
      counter.takenBack.pop()
      counter.next--
    }
    const gaps = counter.takenBack.splice(0)
    const { epoch } = counter
    await Promise.all(
      gaps.map((nonce) =>
        node.fillGap(nonce).catch(() => {
          if (counter.epoch !== epoch) return
          giveBack(counter, nonce)
          fillLater(counter, node)
        }),
      ),
    )
  }

  /** A failed send's nonce: judged before any send is given it. */
  function giveBack(counter: Counter, nonce: number) {
    if (counter.takenBack.includes(nonce) || counter.unjudged.includes(nonce)) return
    counter.unjudged.push(nonce)
  }

  /** A nonce judged free: the next send takes it. */
  function free(counter: Counter, nonce: number) {
    if (counter.takenBack.includes(nonce)) return
    counter.takenBack.push(nonce)
    counter.takenBack.sort((a, b) => a - b)
  }

  return {
    async send(key, node, send) {
      const counter = counterOf(key)
      const nonce = await take(counter, node)
      const { epoch } = counter
      try {
        return await send(nonce)
      } catch (err) {
        // Not after a forget: what was counted then is read from the node again.
        if (counter.epoch === epoch) {
          giveBack(counter, nonce)
          fillLater(counter, node)
        }
        throw err
      }
    },
    forget(key) {
      const counter = counterOf(key)
      counter.epoch++
      clearTimeout(counter.fill)
      counter.fill = undefined
      counter.next = undefined
      counter.takenBack = []
      counter.unjudged = []
      counter.occupied = new Set()
      counter.reading = undefined
    },
  }
}
