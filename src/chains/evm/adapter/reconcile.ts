// What became of a journaled transaction (or one it replaced at the same relayer nonce): mined,
// pending, lost by the node (broadcast again), refused as it is, or dropped (its nonce taken, or
// above a gap nothing fills).
import { type Address, BaseError, type Hex, parseTransaction, TransactionNotFoundError } from 'viem'
import { intentExecutorArtifact } from '../../../contracts/intentExecutorArtifact.ts'
import type { ReconcileRequest, Reconciliation } from '../../../ports/chainAdapter.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { evmSignedExecution } from '../evmSignedExecution.ts'
import { broadcastRaw, isTransportError } from '../relayer/createRelayer.ts'
import { bundleCallsOf, bundledReceipt } from './bundledReceipt.ts'
import { assertAvailable, type EvmContext } from './evmContext.ts'
import { receiptOf, toExecutionReceipt } from './executionReceipt.ts'

export async function reconcile(ctx: EvmContext, tx: ReconcileRequest): Promise<Reconciliation> {
  assertAvailable(ctx)
  const { chain, client, log, relayers, unmineable } = ctx
  const rawTransaction = evmSignedExecution.rawTransaction(tx)
  const txNonce = evmSignedExecution.txNonce(tx)
  const transactionHash = tx.id as Hex
  // The journaled transaction and those it replaced (same relayer nonce): whichever was mined.
  const candidates = [
    { id: transactionHash, raw: rawTransaction, bundle: tx.bundle },
    ...(tx.replaced ?? []).map((t) => ({
      id: t.id as Hex,
      raw: evmSignedExecution.rawTransaction(t),
      bundle: t.bundle,
    })),
  ]
  const minedOne = async () => {
    for (const c of candidates) {
      const r = await receiptOf(ctx, c.id)
      if (!r) continue
      const { to, data = '0x' } = parseTransaction(c.raw)
      // A call of a bundle: its own call's outcome, read with the calls the bundle's bytes hold.
      const receipt = c.bundle
        ? bundledReceipt(r, { bundler: to ?? '', calls: bundleCallsOf(data), index: c.bundle.index })
        : await toExecutionReceipt(ctx, data, r)
      return { kind: 'settled' as const, receipt }
    }
    return undefined
  }
  const cannotMine = (detail: string): Reconciliation => {
    unmineable.add(tx.id)
    relayers?.resync()
    return { kind: 'dropped', executed: false, detail }
  }
  try {
    const mined = await minedOne()
    if (mined) return mined
    if (tx.otherInstance) {
      return cannotMine(
        `transaction ${transactionHash} was signed for another instance of chain ${chain.chainId} (the chain was reset) and is not on this one: it was not executed here and is not sent again; the intent may be sent again`,
      )
    }
    const confirmedNonce = await client.getTransactionCount({ address: tx.relayer as Address, blockTag: 'latest' })
    if (confirmedNonce > txNonce) {
      // The nonce is taken; ours may have been mined between the two reads, so look once more.
      const late = await minedOne()
      if (late) return late
      const executed = await client.readContract({
        address: chain.executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'nonceUsed',
        args: [tx.intent.sender as Address, tx.intent.nonce],
      })
      return {
        kind: 'dropped',
        executed,
        detail: executed
          ? `transaction ${transactionHash} was replaced at relayer nonce ${txNonce}; the intent was executed by another transaction`
          : `transaction ${transactionHash} was replaced at relayer nonce ${txNonce} and never mined; the intent was not executed and may be sent again`,
      }
    }
    // The reconciler goes in signing order, so every journaled transaction below this nonce was
    // delivered already: a node whose next nonce is still below ours has a gap under it.
    const nextNonce = await client.getTransactionCount({ address: tx.relayer as Address, blockTag: 'pending' })
    if (nextNonce < txNonce)
      return await aboveGap(
        ctx,
        { transactionHash, rawTransaction, txNonce, relayer: tx.relayer, nextNonce },
        cannotMine,
      )
    if (await nodeHolds(ctx, transactionHash)) return { kind: 'pending' }
    try {
      await broadcastRaw(client, rawTransaction)
    } catch (err) {
      if (isTransportError(err)) throw err
      // The node answered no: underpriced now, most often (a node drops what the base fee priced out).
      const detail = `the node refuses transaction ${transactionHash} at relayer nonce ${txNonce} as it is: ${err instanceof BaseError ? err.details || err.shortMessage : String(err)}`
      log.warn(
        { transactionHash, txNonce, detail },
        'the node lost a journaled transaction and refuses it again as it is',
      )
      return { kind: 'refused', detail }
    }
    log.warn({ transactionHash, txNonce }, 'the node had lost a journaled transaction; broadcast it again')
    return { kind: 'rebroadcast' }
  } catch (err) {
    throw classifyRpcError(err, chain.chainId, 'reconciliation of a journaled transaction')
  }
}

const nodeHolds = ({ client }: EvmContext, hash: Hex) =>
  client.getTransaction({ hash }).then(
    () => true,
    (err: unknown) => {
      if (err instanceof TransactionNotFoundError) return false
      throw err
    },
  )

/**
 * A journaled transaction above a nonce the node has nothing at (a reorg emptied it, or what was
 * there was lost for good): handed to the node again if it lost it, and the gap under it filled by
 * the relayer (once seen on two passes) so that it mines. Settled as dropped only when nothing can
 * fill the gap (no relayer key here, the node refuses to queue it, or the filler refused).
 */
async function aboveGap(
  ctx: EvmContext,
  {
    transactionHash,
    rawTransaction,
    txNonce,
    relayer,
    nextNonce,
  }: { transactionHash: Hex; rawTransaction: Hex; txNonce: number; relayer: string; nextNonce: number },
  cannotMine: (detail: string) => Reconciliation,
): Promise<Reconciliation> {
  const { client, log, relayers } = ctx
  const dropped = () => {
    log.warn(
      { transactionHash, txNonce, nodeNextNonce: nextNonce },
      'a journaled transaction sits above a nonce gap that nothing fills; settling it as dropped and reading the relayer nonce again',
    )
    return cannotMine(
      `transaction ${transactionHash} holds relayer nonce ${txNonce} but the chain's next nonce is ${nextNonce} and nothing fills the gap: it can never mine; the intent was not executed and may be sent again`,
    )
  }
  if (!relayers) return dropped()
  // A key whose lease renewal is late here: its holder (this instance again, most often) fills the gap at a later pass.
  if (!relayers.holds(relayer)) return { kind: 'pending' }
  let rebroadcast = false
  if (!(await nodeHolds(ctx, transactionHash))) {
    try {
      await broadcastRaw(client, rawTransaction)
      rebroadcast = true
    } catch (err) {
      if (isTransportError(err)) throw err
      return dropped() // the node will not queue it: nothing would wait behind the gap
    }
  }
  const check = await relayers.fillGap(relayer, {
    queued: { nonce: txNonce, hash: transactionHash, raw: rawTransaction },
  })
  if (check?.kind === 'failed') return dropped()
  log.warn(
    { transactionHash, txNonce, nodeNextNonce: nextNonce, gap: check?.kind ?? 'key not usable now', rebroadcast },
    'a journaled transaction waits above an empty relayer nonce; the relayer fills the gap',
  )
  return rebroadcast ? { kind: 'rebroadcast' } : { kind: 'pending' }
}

/** Each relayer key held here: its transactions queued behind an empty nonce are let through (the relayer's fillGap). */
export async function fillNonceGaps({ relayers }: EvmContext): Promise<number> {
  if (!relayers) return 0
  const checks = await relayers.fillGaps()
  return checks.filter((c) => c.check.kind === 'filled').length
}
