// One validator read: answered from the latest block's answers when the same call was read on
// that block, else read pinned to the block's hash and kept (a failure is not kept).
import type { Address, Hex } from 'viem'
import type { AnswerCacheContext } from './answerCacheContext.ts'
import { latestBlockHash } from './latestBlockHash.ts'
import { isTransportError } from './relayer/isTransportError.ts'

export async function cachedCall(ctx: AnswerCacheContext, { to, data }: { to: Address; data: Hex }): Promise<Hex> {
  let hash: Hex
  try {
    hash = await latestBlockHash(ctx)
  } catch (err) {
    // An unreachable node: the read would fail the same way, after a second wait.
    if (isTransportError(err)) throw err
    return ctx.reads.call({ to, data })
  }
  if (ctx.block?.hash !== hash) ctx.block = { hash, answers: new Map() } // a new head: the old answers are gone
  const key = `${to.toLowerCase()}${data.toLowerCase()}`
  const { answers } = ctx.block
  const known = answers.get(key)
  if (known) {
    // Least recently used goes first: to the back of the Map's order.
    answers.delete(key)
    answers.set(key, known)
    return known
  }
  const answer = ctx.reads.call({ to, data, at: hash })
  if (answers.size >= ctx.maxEntries) answers.delete(answers.keys().next().value!)
  answers.set(key, answer)
  // A failed read (a revert, a timeout) is not an answer to keep: the next request asks again.
  answer.catch(() => {
    if (answers.get(key) === answer) answers.delete(key)
  })
  return answer
}
