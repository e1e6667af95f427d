// Answers to validator reads, kept for the block they were read on (VALIDATE_CACHE, off by
// default). A read's answer is a function of the call and the block's state alone (block number and
// time included), so the same call on the same block can be answered without asking the node again.
//
// Exact, not merely fresh: a request first learns which block is the latest from a header read sent
// after it arrived (one read at a time serves every request that came before it), then reads
// pinned to that block's hash (EIP-1898), and an answer is reused only while that same hash is the
// latest. A new block, a reorg at the same height, a failover to a node on another head: each
// changes the hash, and every answer of the old one is dropped. Nothing outlives its block, and no
// answer is older than a plain eth_call at 'latest' made when the request arrived. The price: a
// read not seen in this block waits for two round trips instead of one, which is why it is off by
// default and pays only where agents ask about the same intents again and again (polling a
// TOO_EARLY intent, validate before execute).
import type { Address, Hex } from 'viem'
import { isTransportError } from './relayer/isTransportError.ts'
import type { CallBatcher } from './createCallBatcher.ts'

export type AnswerCache = Pick<CallBatcher, 'call'>

export function createAnswerCache({
  reads,
  request,
  maxEntries = 10_000,
}: {
  /** Where reads go; `at` pins one to a block hash. */
  reads: Pick<CallBatcher, 'call'>
  request(args: { method: string; params?: unknown }): Promise<unknown>
  /** The most answers kept for one block (a chain may go minutes without one); the least recently used go first. */
  maxEntries?: number
}): AnswerCache {
  // The answers of one block, by call; a promise each, so that the same read made by concurrent
  // requests goes to the node once.
  let block: { hash: Hex; answers: Map<string, Promise<Hex>> } | undefined
  // Requests waiting for the next head read, and whether one is at the node now.
  let waiting: { promise: Promise<Hex>; resolve(hash: Hex): void; reject(err: unknown): void } | undefined
  let reading = false

  /**
   * The latest block's hash, from a read sent after the caller arrived. One read at a time: it
   * answers everyone who arrived before it was sent, and whoever arrives while it is at the node
   * waits for the next one, sent as soon as it returns. Under load a read serves many requests.
   */
  function latestHash(): Promise<Hex> {
    if (!waiting) {
      let resolve!: (hash: Hex) => void
      let reject!: (err: unknown) => void
      const promise = new Promise<Hex>((res, rej) => ((resolve = res), (reject = rej)))
      waiting = { promise, resolve, reject }
      // From idle, at the end of the turn: the turn's other requests go with it.
      if (!reading) setImmediate(readHead)
    }
    return waiting.promise
  }

  function readHead() {
    const batch = waiting
    if (reading || !batch) return
    waiting = undefined
    reading = true
    request({ method: 'eth_getBlockByNumber', params: ['latest', false] })
      .then((header) => {
        const hash = (header as { hash?: unknown } | null)?.hash
        if (typeof hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(hash)) batch.resolve(hash.toLowerCase() as Hex)
        else batch.reject(new Error('the node answered eth_getBlockByNumber("latest") without a block hash'))
      }, batch.reject)
      .finally(() => {
        reading = false
        readHead()
      })
  }

  return {
    async call({ to, data }: { to: Address; data: Hex }): Promise<Hex> {
      let hash: Hex
      try {
        hash = await latestHash()
      } catch (err) {
        // An unreachable node: the read would fail the same way, after a second wait.
        if (isTransportError(err)) throw err
        return reads.call({ to, data })
      }
      if (block?.hash !== hash) block = { hash, answers: new Map() } // a new head: the old answers are gone
      const key = `${to.toLowerCase()}${data.toLowerCase()}`
      const { answers } = block
      const known = answers.get(key)
      if (known) {
        // Least recently used goes first: to the back of the Map's order.
        answers.delete(key)
        answers.set(key, known)
        return known
      }
      const answer = reads.call({ to, data, at: hash })
      if (answers.size >= maxEntries) answers.delete(answers.keys().next().value!)
      answers.set(key, answer)
      // A failed read (a revert, a timeout) is not an answer to keep: the next request asks again.
      answer.catch(() => {
        if (answers.get(key) === answer) answers.delete(key)
      })
      return answer
    },
  }
}
