// What the answer cache (createAnswerCache.ts) works with: where reads go, the latest block's
// answers, and the head read that everyone waiting shares.
import type { Hex } from 'viem'
import type { CallBatcher } from './createCallBatcher.ts'

export type CreateAnswerCacheParameters = {
  /** Where reads go; `at` pins one to a block hash. */
  reads: Pick<CallBatcher, 'call'>
  request(args: { method: string; params?: unknown }): Promise<unknown>
  /** The most answers kept for one block (a chain may go minutes without one); the least recently used go first. */
  maxEntries?: number
}

export type AnswerCacheContext = Required<CreateAnswerCacheParameters> & {
  /** The answers of one block, by call; a promise each, so that the same read made by concurrent requests goes to the node once. */
  block: { hash: Hex; answers: Map<string, Promise<Hex>> } | undefined
  /** Requests waiting for the next head read. */
  waiting: { promise: Promise<Hex>; resolve(hash: Hex): void; reject(err: unknown): void } | undefined
  /** Whether a head read is at the node now. */
  reading: boolean
}

export function createAnswerCacheContext({
  reads,
  request,
  maxEntries = 10_000,
}: CreateAnswerCacheParameters): AnswerCacheContext {
  return { reads, request, maxEntries, block: undefined, waiting: undefined, reading: false }
}
