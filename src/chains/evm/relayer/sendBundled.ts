// Executions of one relayer key sent as one transaction: IntentBundler's `run`
// (contracts/IntentBundler.sol), one call for each, each call within its own gas limit. One nonce,
// one signature, one journal row of bytes and one broadcast for the bundle, where the chain has a
// bundler (BUNDLER_ADDRESSES; docs/performance.md, "forty-second session").
//
// Which executions go together is the caller's (`chunk`): the calls its simulation ran as one
// bundle, in the order they claim (a call claims only once the calls simulated before it did:
// executionOrder.ts). A bundle holds a prefix of one chunk, never two chunks: calls of one
// transaction share what separate transactions do not (transient storage), so a bundle runs only
// calls that were simulated together. A member that comes after its chunk's bundle closed, or that
// the size cap leaves out, is refused (NotClaimedError: simulated again), as is a member that
// cannot claim.
//
// A bundle is signed once every member claimed; each member is journaled as its call of the bundle
// (SignedExecution.bundle: the journal keeps the bytes once), the writes started under the lock and
// waited for outside it; then it is broadcast in nonce order, as one transaction's is (outbox.ts).
// If any member's write fails (a claim withdrawn meanwhile), the bundle is not broadcast and its
// nonce is closed: no member runs. That member is answered its error; the others are simulated
// again and sent in a later bundle, their records signed again.
import { type Address, encodeFunctionData, type Hex } from 'viem'
import { intentBundlerArtifact } from '../../../contracts/intentBundlerArtifact.ts'
import { RelayerLeaseMovedError } from '../../../errors/relayerLeaseMovedError.ts'
import type { SignedExecution } from '../../../ports/chainAdapter.ts'
import type { BundledCall, BundleMembership } from '../bundleOutcomes.ts'
import { broadcastAnswer } from './broadcastAnswer.ts'
import { gaveUp } from './closeNonce.ts'
import { releaseSlot, reserveSlot } from './outbox.ts'
import type { Fees, RelayedTransaction, SendResult } from './relayedTransaction.ts'
import type { RelayerContext } from './relayerContext.ts'
import { NotClaimedError, type SendClaim } from './sendRelayed.ts'
import { readNonce, signRelayed } from './signRelayed.ts'

/** IntentBundler's CALL_RESERVE: what it keeps back beyond a call's limit for its own work and its log. */
export const callReserve = 20_000n
/**
 * The most calldata a bundle carries (~24 executions of the demo's size). Its hex strings (the
 * calldata, the signed transaction, the broadcast's body, a simulation's replay) then stay well under
 * V8's 128 KB regular objects, which die young, where larger ones go to the large-object space that
 * only a full collection frees: bundles of ~135 KB kept the gateway ~15 MB higher, and of 48 KB
 * ~4 MB higher than 32 KB (docs/performance.md, forty-second session); 16 KB peaked ~5 MB under
 * 32 KB with the node's share unchanged (forty-fourth session). Far under geth's 128 KB limit.
 */
export const bundleBytesAtMost = 16 * 1024
/** The bundler's own work beyond its calls' reserves: its loop and the ABI decoding of its calldata. */
const bundleOverhead = 10_000n

/**
 * The calls simulated together as one bundle (simulatedBundles.ts), `size` of them: the members its
 * bundle waits for. Its identity is what ties them; a chunk never takes a member after its bundle closed.
 */
export type BundleChunk = { readonly size: number }

/** How long a bundle waits for its chunk's members after the last one came, while some have not: an execution given up before its send never comes. */
const memberWaitMs = 5

/** An execution to send within a bundle: its call (`to`, `data`, `gas`: the call's own limit) and fees, its chunk, its claim and its journal write. */
export type BundleMember = {
  tx: Pick<RelayedTransaction, 'to' | 'data' | 'gas' | 'fees'>
  /** The calls simulated together: members of one chunk may share a bundle, in the order they claim. */
  chunk: BundleChunk
  claim?: SendClaim | undefined
  onSigned?: ((tx: SignedExecution) => void | Promise<void>) | undefined
}

/** A bundle's member sent: the bundle's hash and nonce, and its place in it (to read its receipt with). */
export type BundledSendResult = SendResult & { membership: BundleMembership }

type Waiting = BundleMember & { resolve(result: BundledSendResult): void; reject(err: unknown): void }
type Queue = { waiting: Waiting[]; running: boolean; closed: WeakSet<BundleChunk> }

const queues = new WeakMap<RelayerContext, Queue>()

/** The gas a bundle needs: each call's limit with what IntentBundler keeps back for it (EIP-150's 1/63 and its reserve), its calldata and base cost. */
export function bundleGas(calls: readonly { gasLimit: bigint }[], data: Hex): bigint {
  const calldata = 16n * BigInt((data.length - 2) / 2)
  return calls.reduce(
    (sum, c) => sum + c.gasLimit + c.gasLimit / 63n + callReserve,
    21_000n + calldata + bundleOverhead,
  )
}

export function sendBundled(ctx: RelayerContext, bundler: Address, member: BundleMember): Promise<BundledSendResult> {
  if (!member.tx.fees)
    return Promise.reject(new Error('a bundled execution is sent with the fees it was simulated with'))
  let queue = queues.get(ctx)
  if (!queue) queues.set(ctx, (queue = { waiting: [], running: false, closed: new WeakSet() }))
  const q = queue
  return new Promise<BundledSendResult>((resolve, reject) => {
    // A chunk whose bundle closed takes no more members: it would run apart from the calls simulated before it.
    if (q.closed.has(member.chunk)) return reject(new NotClaimedError())
    q.waiting.push({ ...member, resolve, reject })
    if (!q.running) {
      q.running = true
      void drain(ctx, bundler, q)
    }
  })
}

async function drain(ctx: RelayerContext, bundler: Address, q: Queue) {
  try {
    while (q.waiting.length > 0) await oneBundle(ctx, bundler, q)
  } finally {
    q.running = false
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** How many of a chunk's members wait in the queue. */
const waitingOf = (q: Queue, chunk: BundleChunk) => q.waiting.reduce((n, m) => n + (m.chunk === chunk ? 1 : 0), 0)

/** No more members for `chunk`: those of it still waiting, taken out of the queue. */
function closeChunk(q: Queue, chunk: BundleChunk): Waiting[] {
  q.closed.add(chunk)
  const left: Waiting[] = []
  for (let i = q.waiting.length - 1; i >= 0; i--)
    if (q.waiting[i]!.chunk === chunk) left.unshift(...q.waiting.splice(i, 1))
  return left
}

/** One bundle: the first waiting member's chunk, as many of its members as claim and fit. */
async function oneBundle(ctx: RelayerContext, bundler: Address, q: Queue): Promise<void> {
  const chunk = q.waiting[0]!.chunk
  const members: Waiting[] = []
  let prepared: Awaited<ReturnType<typeof signBundle>> | undefined
  try {
    prepared = await ctx.lock.run(async () => {
      const epoch = ctx.leaseEpoch?.()
      if (ctx.leaseEpoch && epoch === undefined)
        throw new RelayerLeaseMovedError(`eip155:${ctx.chainId}`, ctx.address, undefined)
      ctx.nextNonce ??= await readNonce(ctx)
      let bytes = 0
      // Members claim in their simulation's order: each pass takes what can claim now. The bundle
      // closes once every member of its chunk is in, once the next does not fit, or once none came
      // for memberWaitMs (a member given up before its send never comes; one that cannot claim waits
      // for nothing). A turn of the loop first: members answered together arrive within it.
      let cameAt = performance.now()
      let full = false
      for (;;) {
        let progress = false
        for (let i = 0; i < q.waiting.length; ) {
          const m = q.waiting[i]!
          if (m.chunk !== chunk) {
            i++
            continue
          }
          const size = (m.tx.data.length - 2) / 2 + 128
          if (members.length > 0 && bytes + size > bundleBytesAtMost) {
            full = true
            break
          }
          if (m.claim && !m.claim.take()) {
            i++
            continue
          }
          q.waiting.splice(i, 1)
          members.push(m)
          bytes += size
          progress = true
        }
        if (progress) continue
        if (full || members.length >= chunk.size) break
        const before = waitingOf(q, chunk)
        await (performance.now() - cameAt < 1 ? nextTurn() : sleep(1))
        if (waitingOf(q, chunk) !== before) cameAt = performance.now()
        else if (performance.now() - cameAt >= memberWaitMs) break
      }
      // What is left of the chunk cannot join it: simulated again.
      for (const m of closeChunk(q, chunk)) m.reject(new NotClaimedError())
      if (members.length === 0) return undefined
      return signBundle(ctx, bundler, members, ctx.nextNonce, epoch)
    })
  } catch (err) {
    for (const m of members) m.claim?.failed()
    // The chunk fails whole (its key's lease moved, its nonce could not be read): its members still
    // waiting are answered too. Left in the queue, they would start the next bundle, fail the same
    // way at once and spin the loop for ever.
    for (const m of [...members, ...closeChunk(q, chunk)]) m.reject(err)
    return
  }
  if (!prepared) return
  // The next bundle is gathered and signed while this one is journaled and broadcast (the outbox keeps nonce order).
  void finish(ctx, bundler, members, prepared)
}

/** Under the lock: the bundle signed at `nonce`, each member's journal write started, its outbox slot taken. */
async function signBundle(
  ctx: RelayerContext,
  bundler: Address,
  members: Waiting[],
  nonce: number,
  epoch: number | undefined,
) {
  const calls: BundledCall[] = members.map((m) => ({ target: m.tx.to, gasLimit: m.tx.gas }))
  const data = encodeFunctionData({
    abi: intentBundlerArtifact.abi,
    functionName: 'run',
    args: [members.map((m) => ({ target: m.tx.to, gasLimit: m.tx.gas, data: m.tx.data }))],
  })
  const fees = highestFees(members.map((m) => m.tx.fees!))
  const { rawTransaction, call, ...signed } = await signRelayed(
    ctx,
    { to: bundler, data, gas: bundleGas(calls, data) },
    fees,
    nonce,
  )
  if (ctx.leaseEpoch) signed.transaction.leaseEpoch = epoch
  ctx.nextNonce = nonce + 1
  const journaled = members.map((m, index) => {
    try {
      // Each member the same bytes (one string): the journal writes them once.
      return Promise.resolve(m.onSigned?.({ ...signed.transaction, bundle: { index } }))
    } catch (err) {
      return Promise.reject(err)
    }
  })
  for (const j of journaled) j.catch(() => {}) // handled in finish, after the lock
  const slot = reserveSlot(ctx, rawTransaction, nonce, signed.transactionHash, call, epoch)
  return { signed, nonce, slot, journaled, calls }
}

async function finish(
  ctx: RelayerContext,
  bundler: Address,
  members: Waiting[],
  { signed, nonce, slot, journaled, calls }: Awaited<ReturnType<typeof signBundle>>,
) {
  const { logger } = ctx
  const fail = (err: unknown) => {
    for (const m of members) m.reject(err)
  }
  const written = await Promise.allSettled(journaled)
  const refused = written.find((w): w is PromiseRejectedResult => w.status === 'rejected')
  if (refused) {
    releaseSlot(ctx, slot, false)
    if (refused.reason instanceof RelayerLeaseMovedError) {
      ctx.nextNonce = undefined
      return fail(refused.reason)
    }
    // Not broadcast: a member may not run (its claim withdrawn), so none does; the nonce is closed.
    // Each member whose write failed is answered its error; the others are simulated again and go in
    // a later bundle (their records, pending on this one, are signed again).
    logger.warn(
      { nonce, transactionHash: signed.transactionHash, calls: members.length, err: refused.reason },
      'a bundle was not broadcast: one of its executions could not be journaled',
    )
    await gaveUp(ctx, signed.transactionHash, nonce, refused.reason)
    members.forEach((m, i) => {
      const w = written[i]!
      m.reject(w.status === 'rejected' ? w.reason : new NotClaimedError())
    })
    return
  }
  releaseSlot(ctx, slot, true)
  let answer: Awaited<ReturnType<typeof broadcastAnswer>>
  try {
    answer = await broadcastAnswer(ctx, await slot.answer, {
      nonce,
      transactionHash: signed.transactionHash,
      what: 'bundle',
    })
  } catch (err) {
    return fail(err)
  }
  // Refused as it is (a nonce found too low among them): each member is simulated again and joins a later bundle.
  if (!('accepted' in answer)) return fail(new NotClaimedError())
  const { accepted } = answer
  members.forEach((m, index) =>
    m.resolve({
      transaction: { ...signed.transaction, bundle: { index } },
      transactionHash: signed.transactionHash,
      txNonce: signed.txNonce,
      accepted,
      membership: { bundler, calls, index },
    }),
  )
}

/** A bundle pays what its most demanding member was simulated with. */
function highestFees(fees: readonly Fees[]): Fees {
  let maxFeePerGas = 0n
  let maxPriorityFeePerGas = 0n
  for (const f of fees) {
    if (f.maxFeePerGas > maxFeePerGas) maxFeePerGas = f.maxFeePerGas
    if (f.maxPriorityFeePerGas > maxPriorityFeePerGas) maxPriorityFeePerGas = f.maxPriorityFeePerGas
  }
  return { maxFeePerGas, maxPriorityFeePerGas }
}
