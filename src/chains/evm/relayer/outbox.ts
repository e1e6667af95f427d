// Signed transactions in nonce order (a slot is taken under the lock), each broadcast once its
// journal write is durable and every one before it was sent: nothing goes out above a
// transaction that might never be sent. What became ready while one group was at the node goes
// as the next group, in one request.
//
// Every transaction given a slot stays in `unmined` (its signed bytes, by nonce) until a receipt
// at its nonce or above says it was mined, or it is known never to reach the node (refused, its
// journal write failed, fenced off); what is sent later at the same nonce (a filler, a re-priced
// replacement) takes its place. The simulation replays them before the intents (simulationBatcher.ts).
import { type Address, type Hex, numberToHex, parseTransaction } from 'viem'
import { isTransportError } from './isTransportError.ts'
import { isAlreadyKnown } from './nodeRefusals.ts'
import type { RelayerContext, Slot, UnminedCall } from './relayerContext.ts'

/** The most broadcasts in one request. */
const maxGroup = 50
/** The most nonces `sent` remembers (the oldest are forgotten first). */
const sentKept = 1024
/** The most unmined transactions kept per key; past it the key's pool is no longer known (the simulation falls back to the node's pending block). */
const unminedKept = 1024

/**
 * What a slot is answered instead of a broadcast when the key's lease is no longer held under the
 * epoch it was signed under: nothing reached the node; the transaction's record, if journaled, is
 * the key's holder's to reconcile.
 */
export const fencedOff: unique symbol = Symbol(
  'the relayer key is no longer leased to this instance under the epoch the transaction was signed under',
)

/**
 * `hash`: the transaction's, remembered once broadcast (a gap check asks the node for it); `call`:
 * what a simulation replays of it, when the signer has it (else read from the bytes when needed).
 * `epoch`: the lease epoch it was signed under (read now when not given). Called under the lock.
 */
export function reserveSlot(
  ctx: RelayerContext,
  rawTransaction: Hex,
  nonce: number,
  hash?: Hex,
  call?: UnminedCall,
  epoch: number | undefined = ctx.leaseEpoch?.(),
): Slot {
  const { outbox } = ctx
  let settle!: Slot['settle']
  const answer = new Promise<PromiseSettledResult<unknown>>((resolve) => (settle = resolve))
  const slot = { rawTransaction, nonce, hash, ready: false, epoch, settle, answer }
  outbox.push(slot)
  noteUnmined(ctx, nonce, rawTransaction, hash, call)
  return slot
}

/** `send`: the slot's transaction may go once those before it went; else it leaves the outbox. */
export function releaseSlot(ctx: RelayerContext, slot: Slot, send: boolean): void {
  const at = ctx.outbox.indexOf(slot)
  if (send) slot.ready = true
  // Not there once answered fencedOff with the rest of the outbox.
  else if (at >= 0) {
    ctx.outbox.splice(at, 1)
    forgetUnsent(ctx, slot)
  }
  if (!ctx.draining) void drain(ctx)
}

/** A transaction broadcast as soon as those before it went; its answer. */
export function post(
  ctx: RelayerContext,
  rawTransaction: Hex,
  nonce: number,
  hash?: Hex,
): Promise<PromiseSettledResult<unknown>> {
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
      for (const g of outbox.splice(0, outbox.length)) {
        forgetUnsent(ctx, g)
        g.settle({ status: 'rejected', reason: fencedOff })
      }
      ctx.logger.warn(
        { relayer: ctx.address, epoch },
        'relayer key no longer leased to this instance under the epoch its transactions were signed under: not broadcast',
      )
      break
    }
    const group = outbox.splice(0, n)
    const answers = await ctx
      .broadcastMany(group.map((g) => g.rawTransaction))
      .catch((reason: unknown) => group.map((): PromiseSettledResult<unknown> => ({ status: 'rejected', reason })))
    group.forEach((g, i) => {
      const answer = answers[i] ?? { status: 'rejected', reason: new Error('no answer to this broadcast') }
      remember(ctx, g, answer)
      g.settle(answer)
    })
  }
  ctx.draining = false
}

/** A transaction the node may hold now (taken, known, or its answer lost): remembered by nonce. */
function remember(ctx: RelayerContext, slot: Slot, answer: PromiseSettledResult<unknown>) {
  const { sent } = ctx
  if (answer.status === 'rejected' && !isAlreadyKnown(answer.reason) && !isTransportError(answer.reason)) {
    // Refused: the node does not hold it.
    forgetUnsent(ctx, slot)
    return
  }
  if (!slot.hash) return
  sent.set(slot.nonce, { hash: slot.hash, raw: slot.rawTransaction })
  if (sent.size > sentKept) sent.delete(sent.keys().next().value!) // the oldest broadcast: nonces go out in order
}

/** A signed transaction of this key the node may mine: kept (by nonce, in place of what was there) until a receipt says its nonce was used. */
export function noteUnmined(
  ctx: RelayerContext,
  nonce: number,
  raw: Hex,
  hash: Hex | undefined,
  call?: UnminedCall,
): void {
  const { unmined } = ctx
  unmined.set(nonce, call ? { hash, raw, call } : { hash, raw })
  if (unmined.size > unminedKept) {
    unmined.delete(Math.min(...unmined.keys()))
    ctx.unminedKnown = false
  }
}

/** A slot's transaction never reached the node: it is not replayed (unless something else took its place at that nonce). */
function forgetUnsent({ unmined }: RelayerContext, slot: Slot): void {
  if (unmined.get(slot.nonce)?.raw === slot.rawTransaction) unmined.delete(slot.nonce)
}

/** A receipt of this key's transaction at `nonce`: it and every one below it were mined (a key's nonces are used in order). */
export function forgetMined({ unmined }: RelayerContext, nonce: number): void {
  for (const n of unmined.keys()) if (n <= nonce) unmined.delete(n)
}

/** The node's count of this key's mined transactions: those below it are forgotten (mined, or their nonce used by another transaction). */
export function forgetMinedBelow({ unmined }: RelayerContext, count: number): void {
  for (const n of unmined.keys()) if (n < count) unmined.delete(n)
}

/** The receipt of one of this key's transactions, by hash: what it mined is forgotten; false when the hash is none of those kept. */
export function forgetMinedHash(ctx: RelayerContext, hash: Hex): boolean {
  const wanted = hash.toLowerCase()
  for (const [nonce, t] of ctx.unmined) {
    if (t.hash?.toLowerCase() !== wanted) continue
    forgetMined(ctx, nonce)
    return true
  }
  return false
}

/**
 * With the node's counts (`latest`: its mined nonces; `upTo`: one past the highest nonce of the key
 * it or this instance holds), whether every transaction of the key the node may still mine is one
 * kept here: then `unmined` is known again. Those mined are forgotten, and those above `upTo` (left
 * from before a resync) too.
 */
export function anchorUnmined(ctx: RelayerContext, latest: number, upTo: number): boolean {
  const { unmined } = ctx
  for (const n of unmined.keys()) if (n < latest || n >= upTo) unmined.delete(n)
  for (let n = latest; n < upTo; n++) if (!unmined.has(n)) return (ctx.unminedKnown = false)
  return (ctx.unminedKnown = true)
}

/** This key's unmined transactions as eth_simulateV1 calls, in nonce order; undefined while some of them may be unknown. */
export function unminedCalls(ctx: RelayerContext): UnminedCall[] | undefined {
  if (!ctx.unminedKnown) return undefined
  const nonces = [...ctx.unmined.keys()].sort((a, b) => a - b)
  return nonces.map((n) => {
    const t = ctx.unmined.get(n)!
    t.call ??= toUnminedCall(ctx.address, t.raw)
    return t.call
  })
}

/** A signed transaction read back from its bytes as what a simulation replays of it. */
export function toUnminedCall(from: Address, raw: Hex): UnminedCall {
  const tx = parseTransaction(raw)
  const hex = (v: bigint | number | undefined) => numberToHex(v ?? 0)
  return {
    from,
    to: tx.to!,
    data: tx.data ?? '0x',
    value: hex(tx.value),
    gas: hex(tx.gas),
    nonce: hex(tx.nonce),
    maxFeePerGas: hex(tx.maxFeePerGas ?? tx.gasPrice),
    maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas ?? tx.gasPrice),
    ...(tx.type === 'eip7702' && tx.authorizationList
      ? {
          authorizationList: tx.authorizationList.map((a) => ({
            chainId: hex(a.chainId),
            address: ((a as { address?: Address }).address ?? (a as { contractAddress?: Address }).contractAddress)!,
            nonce: hex(a.nonce),
            yParity: hex(a.yParity ?? 0),
            r: a.r,
            s: a.s,
          })),
        }
      : {}),
  }
}
