// Signed transactions in nonce order (a slot is taken under the lock), each broadcast once its
// journal write is durable and every one before it was sent: nothing goes out above a
// transaction that might never be sent. What became ready while one group was at the node goes
// as the next group, in one request.
import type { Hex } from 'viem'
import { isTransportError } from './isTransportError.ts'
import { isAlreadyKnown } from './nodeRefusals.ts'
import type { RelayerContext, Slot } from './relayerContext.ts'

/** The most broadcasts in one request. */
const maxGroup = 50
/** The most nonces `sent` remembers (the oldest are forgotten first). */
const sentKept = 1024

/** `hash`: the transaction's, remembered once broadcast (a gap check asks the node for it). */
export function reserveSlot({ outbox }: RelayerContext, rawTransaction: Hex, nonce: number, hash?: Hex): Slot {
  let settle!: Slot['settle']
  const answer = new Promise<PromiseSettledResult<unknown>>((resolve) => (settle = resolve))
  const slot = { rawTransaction, nonce, hash, ready: false, settle, answer }
  outbox.push(slot)
  return slot
}

/** `send`: the slot's transaction may go once those before it went; else it leaves the outbox. */
export function releaseSlot(ctx: RelayerContext, slot: Slot, send: boolean): void {
  if (send) slot.ready = true
  else ctx.outbox.splice(ctx.outbox.indexOf(slot), 1)
  if (!ctx.draining) void drain(ctx)
}

/** A transaction broadcast as soon as those before it went; its answer. */
export function post(ctx: RelayerContext, rawTransaction: Hex, nonce: number, hash?: Hex): Promise<PromiseSettledResult<unknown>> {
  const slot = reserveSlot(ctx, rawTransaction, nonce, hash)
  releaseSlot(ctx, slot, true)
  return slot.answer
}

async function drain(ctx: RelayerContext) {
  const { outbox } = ctx
  ctx.draining = true
  for (;;) {
    let n = 0
    while (n < outbox.length && n < maxGroup && outbox[n]!.ready) n++
    if (n === 0) break
    const group = outbox.splice(0, n)
    const answers = await ctx.broadcastMany(group.map((g) => g.rawTransaction)).catch((reason: unknown) => group.map((): PromiseSettledResult<unknown> => ({ status: 'rejected', reason })))
    group.forEach((g, i) => {
      const answer = answers[i] ?? { status: 'rejected', reason: new Error('no answer to this broadcast') }
      remember(ctx, g, answer)
      g.settle(answer)
    })
  }
  ctx.draining = false
}

/** A transaction the node may hold now (taken, known, or its answer lost): remembered by nonce. */
function remember({ sent }: RelayerContext, slot: Slot, answer: PromiseSettledResult<unknown>) {
  if (!slot.hash) return
  if (answer.status === 'rejected' && !isAlreadyKnown(answer.reason) && !isTransportError(answer.reason)) return
  sent.set(slot.nonce, { hash: slot.hash, raw: slot.rawTransaction })
  if (sent.size > sentKept) sent.delete(sent.keys().next().value!) // the oldest broadcast: nonces go out in order
}
