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
// Each operation is a function of the cache's context (answerCacheContext.ts).
import { type CreateAnswerCacheParameters, createAnswerCacheContext } from './answerCacheContext.ts'
import { cachedCall } from './cachedCall.ts'
import type { CallBatcher } from './createCallBatcher.ts'

export type { CreateAnswerCacheParameters } from './answerCacheContext.ts'

export type AnswerCache = Pick<CallBatcher, 'call'>

export function createAnswerCache(parameters: CreateAnswerCacheParameters): AnswerCache {
  const ctx = createAnswerCacheContext(parameters)
  return { call: (call) => cachedCall(ctx, call) }
}
