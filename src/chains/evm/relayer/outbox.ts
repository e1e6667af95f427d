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

/**
 * What a slot is answered instead of a broadcast when the key's lease is no longer held under the
 * epoch it was signed under: nothing reached the node; the transaction's record, if journaled, is
 * the key's holder's to reconcile.
 */
export const fencedOff: unique symbol = Symbol('the relayer key is no longer leased to this instance under the epoch the transaction was signed under')

/** `hash`: the transaction's, remembered once broadcast (a gap check asks the node for it). Called under the lock, where the epoch is read. */
export function reserveSlot({ outbox, leaseEpoch }: RelayerContext, rawTransaction: Hex, nonce: number, hash?: Hex): Slot {
  let settle!: Slot['settle']
  const answer = new Promise<PromiseSettledResult<unknown>>((resolve) => (settle = resolve))
  const slot = { rawTransaction, nonce, hash, ready: false, epoch: leaseEpoch?.(), settle, answer }
  outbox.push(slot)
  return slot
}

/** `send`: the slot's transaction may go once those before it went; else it leaves the outbox. */
export function releaseSlot(ctx: RelayerContext, slot: Slot, send: boolean): void {
  const at = ctx.outbox.indexOf(slot)
  if (send) slot.ready = true
  // Not there once answered fencedOff with the rest of the outbox.
  else if (at >= 0) ctx.outbox.splice(at, 1)
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
    // Fencing, the last moment before the node: a slot signed under another epoch (or none: the key
    // was not held) is answered fencedOff, as is every one after it (they would wait above its nonce).
    const epoch = ctx.leaseEpoch?.()
    if (ctx.leaseEpoch && outbox.slice(0, n).some((g) => epoch === undefined || g.epoch !== epoch)) {
      for (const g of outbox.splice(0, outbox.length)) g.settle({ status: 'rejected', reason: fencedOff })
      ctx.logger.warn({ relayer: ctx.address, epoch }, 'relayer key no longer leased to this instance under the epoch its transactions were signed under: not broadcast')
      break
    }
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
