// Start-up recovery of payments a crash left reserved: the token itself says whether the
// authorization was used. Used by a transfer to the payee → settled (a credit for its intent);
// unused → released (nothing was charged); cancelled by its payer → released.
import type { Logger } from 'pino'
import { type Address, type Hex, type PublicClient, parseAbi } from 'viem'
import type { PaymentLedger, PaymentRecord } from './paymentLedger.ts'

const eip3009Abi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
])

export type ResolvedPayment = { payment: PaymentRecord; outcome: 'settled' | 'released'; transaction: Hex | undefined; reason: string }

export async function resolveUnresolvedPayments({
  ledger,
  clientFor,
  logger,
  lookbackBlocks = 100_000n,
  settlementMayBePending,
}: {
  ledger: PaymentLedger
  /** A public client for a payment's CAIP-2 network; undefined when the network is not reachable from here. */
  clientFor(network: string): PublicClient | undefined
  logger: Logger
  /** How far back to look for the event that used an authorization. */
  lookbackBlocks?: bigint
  /**
   * Whether a settlement sent before the crash may still be waiting in the node (the in-process
   * facilitator's account has unmined transactions). An unused authorization is then left
   * reserved, not released: that settlement may still mine, and its payment must stay a credit.
   */
  settlementMayBePending?: ((network: string) => Promise<boolean>) | undefined
}): Promise<ResolvedPayment[]> {
  const log = logger.child({ module: 'payments-recovery' })
  const resolved: ResolvedPayment[] = []
  for (const payment of await ledger.unresolved()) {
    const client = clientFor(payment.network)
    if (!client) {
      log.warn({ paymentId: payment.id, network: payment.network }, 'reserved payment left unresolved: no client for its network')
      continue
    }
    const used = await client.readContract({ address: payment.asset, abi: eip3009Abi, functionName: 'authorizationState', args: [payment.payer, payment.nonce] })
    if (!used && (await settlementMayBePending?.(payment.network))) {
      log.warn({ paymentId: payment.id, network: payment.network }, 'reserved payment left reserved: a settlement may still be pending in the node; resolved at a later start')
      continue
    }
    if (!used) {
      await ledger.markReleased(payment.id, 'recovered at start-up: the authorization was never used, nothing was charged')
      resolved.push({ payment, outcome: 'released', transaction: undefined, reason: 'unused' })
      continue
    }
    const latest = await client.getBlockNumber()
    const fromBlock = latest > lookbackBlocks ? latest - lookbackBlocks : 0n
    const args = { authorizer: payment.payer as Address, nonce: payment.nonce }
    const [usedLogs, cancelledLogs] = await Promise.all([
      client.getLogs({ address: payment.asset, event: eip3009Abi[1], args, fromBlock, toBlock: latest }),
      client.getLogs({ address: payment.asset, event: eip3009Abi[2], args, fromBlock, toBlock: latest }),
    ])
    if (cancelledLogs.length > 0 && usedLogs.length === 0) {
      await ledger.markReleased(payment.id, 'recovered at start-up: the payer cancelled the authorization, nothing was charged')
      resolved.push({ payment, outcome: 'released', transaction: undefined, reason: 'cancelled' })
      continue
    }
    // Used: the funds moved. Without its event in range, still settled: charging nobody twice matters more.
    const transaction = usedLogs[0]?.transactionHash ?? undefined
    await ledger.markSettled(payment.id, transaction, transaction ? 'recovered at start-up: settled before the crash' : 'recovered at start-up: used on-chain, settlement transaction not found')
    resolved.push({ payment, outcome: 'settled', transaction, reason: 'used' })
  }
  if (resolved.length > 0) log.info({ settled: resolved.filter((r) => r.outcome === 'settled').length, released: resolved.filter((r) => r.outcome === 'released').length }, 'reserved payments resolved at start-up')
  return resolved
}
