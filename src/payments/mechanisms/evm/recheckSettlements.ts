// Re-checks EVM settlements until they are final (CONFIRMATIONS blocks deep, the rule GET /chains
// publishes as each chain's `finality`). A settlement counts as settled at its first receipt, and
// the intent it paid for is sent then; if that block is orphaned and the settlement does not come
// back, the intent ran and the payer paid nothing. Each pass, per settlement: its block still on
// the chain → final once deep enough (and the authorization used); orphaned → the same transaction
// mined again elsewhere, or the authorization used by another one (recorded: the payer paid once);
// the authorization unused and still valid, the payer's balance enough → the same signed
// authorization sent again (EIP-3009's nonce makes a second use impossible: nobody pays twice);
// expired, cancelled by its payer, or the balance gone → `reorged`, with its reason. The intent is
// never run again for it, and the payer is never asked for anything.

import type { Logger } from 'pino'
import { type Address, type Block, type Hex, type PublicClient, parseAbi } from 'viem'
import type { PaymentLedger, PaymentRecord, SettlementBlock } from '../../../ports/paymentLedger.ts'
import type { SettlementRecheckOutcome } from '../paymentMechanism.ts'
import { evmNamespace } from './evmNamespace.ts'
import type { KeptSettlement } from './keepEvmSettlements.ts'

const tokenAbi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
])

/** What sending a kept settlement again did: sent (mined when `block` is given), or not sent now (tried again next pass). */
export type ResendOutcome =
  | { kind: 'sent'; transaction: Hex; block: SettlementBlock | undefined }
  | { kind: 'not-sent'; reason: string }

export type { SettlementRecheckOutcome }

export type RecheckSettlementsParameters = {
  ledger: PaymentLedger
  clientFor(network: string): PublicClient | undefined
  /** How many blocks deep a settlement is final (CONFIRMATIONS: 1 is final once mined and still on the chain at the next pass). */
  confirmations: number
  /** Sends a kept settlement again (the in-process facilitator's account, or the facilitator itself). */
  resend(payment: PaymentRecord, kept: KeptSettlement): Promise<ResendOutcome>
  logger: Logger
  /** Settlements a request of this process holds right now: left alone. */
  isInFlight?: ((paymentId: number) => boolean) | undefined
  /** Told of every settlement re-included, sent again, reorged or made final (a metric). */
  onOutcome?: ((payment: PaymentRecord, outcome: SettlementRecheckOutcome) => void) | undefined
  /** How far back to look for the event that used or cancelled an authorization. */
  lookbackBlocks?: bigint
  /** Told when a settlement's block is found orphaned, before anything is done about it (the facilitator's account nonce went back with it). */
  onOrphaned?: ((payment: PaymentRecord) => void) | undefined
}

export async function recheckSettlements({
  ledger,
  clientFor,
  confirmations,
  resend,
  logger,
  isInFlight,
  onOutcome,
  lookbackBlocks = 10_000n,
  onOrphaned,
}: RecheckSettlementsParameters): Promise<void> {
  const log = logger.child({ module: 'x402-settlement-recheck' })
  const heads = new Map<string, Promise<Block<bigint, false, 'latest'>>>()
  for (const payment of await ledger.unfinalSettlements(evmNamespace)) {
    if (isInFlight?.(payment.id)) continue
    const client = clientFor(payment.network)
    if (!client) continue
    let head = heads.get(payment.network)
    if (!head) heads.set(payment.network, (head = client.getBlock({ blockTag: 'latest' })))
    // One settlement the node cannot answer on now is re-checked next pass; the others go on.
    await recheck(payment, client, await head).catch((err: unknown) =>
      log.warn({ err, paymentId: payment.id }, 'x402 settlement not re-checked in this pass; tried again in the next'),
    )
  }

  async function recheck(
    payment: PaymentRecord,
    client: PublicClient,
    head: Block<bigint, false, 'latest'>,
  ): Promise<void> {
    const at = { paymentId: payment.id, network: payment.network, transaction: payment.transaction }
    const authorization = { address: payment.asset as Address, abi: tokenAbi, blockNumber: head.number } as const
    const used = () =>
      client.readContract({
        ...authorization,
        functionName: 'authorizationState',
        args: [payment.payer as Address, payment.nonce],
      })
    let block = payment.settlementBlock
    if (!block && payment.transaction) {
      const receipt = await receiptOf(client, payment.transaction)
      if (receipt?.status === 'success') {
        block = { number: receipt.blockNumber, hash: receipt.blockHash }
        await ledger.recordSettlementBlock(payment.id, payment.transaction, block)
      }
    }
    if (block) {
      const onChain = await client.getBlock({ blockNumber: block.number }).catch((err: unknown) => {
        if ((err as Error).name === 'BlockNotFoundError') return undefined // the chain is shorter now
        throw err
      })
      if (onChain?.hash === block.hash) {
        if (head.number - block.number + 1n < BigInt(confirmations)) return
        if (await used()) {
          await ledger.markSettlementFinal(payment.id)
          onOutcome?.(payment, 'final')
          return
        }
        // The block stands and the authorization reads unused: a node that lags; asked again next pass.
        log.warn(
          { ...at, blockNumber: block.number.toString() },
          'settlement block on the chain but its authorization reads unused; checked again next pass',
        )
        return
      }
    }
    // Orphaned (or never seen mined). The node may have mined the same transaction again elsewhere.
    if (block) onOrphaned?.(payment)
    if (payment.transaction) {
      const receipt = await receiptOf(client, payment.transaction)
      if (receipt?.status === 'success') {
        await ledger.recordSettlementBlock(payment.id, payment.transaction, {
          number: receipt.blockNumber,
          hash: receipt.blockHash,
        })
        log.info(
          { ...at, blockNumber: receipt.blockNumber.toString() },
          'x402 settlement orphaned by a reorg and mined again in another block; re-checked until final',
        )
        onOutcome?.(payment, 'reincluded')
        return
      }
    }
    const fromBlock = head.number > lookbackBlocks ? head.number - lookbackBlocks : 0n
    if (await used()) {
      // Used or cancelled on the chain as it is: by whom the events say.
      const args = { authorizer: payment.payer as Address, nonce: payment.nonce }
      const [usedLogs, cancelledLogs] = await Promise.all([
        client.getLogs({
          address: payment.asset as Address,
          event: tokenAbi[2],
          args,
          fromBlock,
          toBlock: head.number,
        }),
        client.getLogs({
          address: payment.asset as Address,
          event: tokenAbi[3],
          args,
          fromBlock,
          toBlock: head.number,
        }),
      ])
      const use = usedLogs[0]
      if (use?.transactionHash && use.blockHash && use.blockNumber !== null) {
        await ledger.recordSettlementBlock(payment.id, use.transactionHash, {
          number: use.blockNumber,
          hash: use.blockHash,
        })
        log.info(
          { ...at, usedBy: use.transactionHash },
          'x402 settlement orphaned by a reorg; its authorization was used by another transaction (the payer paid once); re-checked until final',
        )
        onOutcome?.(payment, 'reincluded')
        return
      }
      if (cancelledLogs.length > 0)
        return reorged(payment, 'the payer cancelled the authorization on the chain that replaced it')
      log.warn(
        at,
        'settlement orphaned; its authorization reads used but no event was found in range; checked again next pass',
      )
      return
    }
    // Unused. A transaction still waiting in the node (mined soon) is left to it, unless it can no longer succeed.
    const expired = payment.validBefore !== undefined && head.timestamp >= payment.validBefore
    if (expired)
      return reorged(
        payment,
        `its authorization expired (validBefore ${payment.validBefore}) before it could be sent again`,
      )
    if (
      payment.transaction &&
      (await client.getTransaction({ hash: payment.transaction as Hex }).catch(() => undefined))?.blockNumber === null
    )
      return
    const balance = await client.readContract({
      ...authorization,
      functionName: 'balanceOf',
      args: [payment.payer as Address],
    })
    if (balance < BigInt(payment.amount))
      return reorged(payment, `the payer's balance (${balance}) no longer covers it (${payment.amount})`)
    const kept = await ledger.settlementPayloadOf(payment.id)
    if (!kept) return reorged(payment, 'the signed payment was not kept, so it cannot be sent again')
    const outcome = await resend(payment, JSON.parse(kept) as KeptSettlement)
    if (outcome.kind === 'not-sent') {
      log.warn(
        { ...at, reason: outcome.reason },
        'x402 settlement orphaned by a reorg could not be sent again now; tried again next pass (reorged once its authorization expires)',
      )
      return
    }
    await ledger.recordSettlementBlock(payment.id, outcome.transaction, outcome.block)
    log.warn(
      { ...at, resent: outcome.transaction },
      'x402 settlement orphaned by a reorg: the same signed authorization sent again (the payer pays once); re-checked until final',
    )
    onOutcome?.(payment, 'resent')
  }

  async function reorged(payment: PaymentRecord, why: string): Promise<void> {
    const reason = `reorged: the settlement ${payment.transaction ?? ''} was orphaned by a reorg and cannot be sent again: ${why}; the payer was not charged, and what it paid for is not run again`
    if (!(await ledger.markReorged(payment.id, reason))) return
    log.warn(
      { paymentId: payment.id, network: payment.network, transaction: payment.transaction, why },
      'x402 settlement reorged: orphaned and cannot be sent again; nothing charged',
    )
    onOutcome?.(payment, 'reorged')
  }
}

async function receiptOf(client: PublicClient, hash: string) {
  return client.getTransactionReceipt({ hash: hash as Hex }).catch((err: unknown) => {
    if ((err as Error).name === 'TransactionReceiptNotFoundError') return undefined
    throw err
  })
}
