// The latest block's hash, from a read sent after the caller arrived. One read at a time: it
// answers everyone who arrived before it was sent, and whoever arrives while it is at the node
// waits for the next one, sent as soon as it returns. Under load a read serves many requests.
import type { Hex } from 'viem'
import type { AnswerCacheContext } from './answerCacheContext.ts'

export function latestBlockHash(ctx: AnswerCacheContext): Promise<Hex> {
  if (!ctx.waiting) {
    let resolve!: (hash: Hex) => void
    let reject!: (err: unknown) => void
    const promise = new Promise<Hex>((res, rej) => ((resolve = res), (reject = rej)))
    ctx.waiting = { promise, resolve, reject }
    // From idle, at the end of the turn: the turn's other requests go with it.
    if (!ctx.reading) setImmediate(readHead, ctx)
  }
  return ctx.waiting.promise
}

function readHead(ctx: AnswerCacheContext) {
  const batch = ctx.waiting
  if (ctx.reading || !batch) return
  ctx.waiting = undefined
  ctx.reading = true
  ctx
    .request({ method: 'eth_getBlockByNumber', params: ['latest', false] })
    .then((header) => {
      const hash = (header as { hash?: unknown } | null)?.hash
      if (typeof hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(hash)) batch.resolve(hash.toLowerCase() as Hex)
      else batch.reject(new Error('the node answered eth_getBlockByNumber("latest") without a block hash'))
    }, batch.reject)
    .finally(() => {
      ctx.reading = false
      readHead(ctx)
    })
}
