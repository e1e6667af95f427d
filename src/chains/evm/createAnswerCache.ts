// Answers to validator reads, kept for the block they were read on (VALIDATE_CACHE, off by
// default). A read's answer is a function of the call and the block's state alone (block number and
// time included), so the same call on the same block can be answered without asking the node again.
//
// Exact, not merely fresh: every event-loop turn's requests first ask the node which block is the
// latest now (one header read, sent after they arrived), then read pinned to that block's hash
// (EIP-1898), and an answer is reused only while that same hash is the latest. A new block, a reorg
// at the same height, a failover to a node on another head: each changes the hash, and every answer
// of the old one is dropped. Nothing outlives its block, and no answer is older than a plain
// eth_call at 'latest' made when the request arrived. The price: a read not seen in this block waits
// for two round trips instead of one, which is why it is off by default and pays only where agents
// ask about the same intents again and again (polling a TOO_EARLY intent, validate before execute).
import type { Address, Hex } from 'viem'
import { isTransportError } from '../../relayer/createRelayer.ts'
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
  /** The most answers kept for one block; past it, reads still go to the node, uncached. */
  maxEntries?: number
}): AnswerCache {
  // The answers of one block, by call; a promise each, so that the same read made by concurrent
  // requests goes to the node once.
  let block: { hash: Hex; answers: Map<string, Promise<Hex>> } | undefined
  let nextHead: { promise: Promise<Hex>; resolve(hash: Hex): void; reject(err: unknown): void } | undefined

  /** The latest block's hash, read after every request of this turn arrived: once per turn. */
  function latestHash(): Promise<Hex> {
    if (!nextHead) {
      let resolve!: (hash: Hex) => void
      let reject!: (err: unknown) => void
      const promise = new Promise<Hex>((res, rej) => ((resolve = res), (reject = rej)))
      nextHead = { promise, resolve, reject }
      setImmediate(() => {
        const head = nextHead!
        nextHead = undefined
        request({ method: 'eth_getBlockByNumber', params: ['latest', false] }).then((header) => {
          const hash = (header as { hash?: unknown } | null)?.hash
          if (typeof hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(hash)) head.resolve(hash.toLowerCase() as Hex)
          else head.reject(new Error('the node answered eth_getBlockByNumber("latest") without a block hash'))
        }, head.reject)
      })
    }
    return nextHead.promise
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
      const known = block.answers.get(key)
      if (known) return known
      const answer = reads.call({ to, data, at: hash })
      if (block.answers.size < maxEntries) {
        const { answers } = block
        answers.set(key, answer)
        // A failed read (a revert, a timeout) is not an answer to keep: the next request asks again.
        answer.catch(() => answers.delete(key))
      }
      return answer
    },
  }
}
