// Resolves reservations that no request of this process holds (a crash left them, a settlement's
// answer was lost, or its confirmation did not come in time: `settlement_pending`). EVM: the
// token itself says what became of the authorization. Used by a transfer to the payee → settled (a
// credit for its intent); cancelled by its payer → released; unused → released only once nobody
// can settle it any more (the chain is past its validBefore), or, at start-up, when the in-process
// facilitator has nothing unmined that could still use it. Solana: the settlement's transaction id
// (kept from the reservation on) says it: confirmed → settled; failed → released; never seen →
// released once its blockhash can no longer land: expired by the node's finalized bank (the
// blockhash is kept with the reservation), or at the latest past its validBefore.
import type { Logger } from 'pino'
import { type Address, type Block, type PublicClient, parseAbi } from 'viem'
import type { PaymentLedger, PaymentRecord } from '../ports/paymentLedger.ts'
import { isSettlementPending } from './settlementPending.ts'

const eip3009Abi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
])

export type ResolvedPayment = { payment: PaymentRecord; outcome: 'settled' | 'released'; transaction: string | undefined; reason: 'used' | 'cancelled' | 'unused' | 'expired' | 'failed' }

/** What became of a Solana transaction: confirmed, failed on-chain, or not seen (yet). */
export type SolanaSettlementStatus = { state: 'confirmed' } | { state: 'failed'; error: string } | { state: 'unknown'; seen?: boolean }

export type ResolveUnresolvedPaymentsParameters = {
  ledger: PaymentLedger
  /** A public client for a payment's CAIP-2 network; undefined when the network is not reachable from here. */
  clientFor(network: string): PublicClient | undefined
  logger: Logger
  /** How far back to look for the event that used an authorization. */
  lookbackBlocks?: bigint
  /**
   * Start-up only, in-process facilitator only: whether a settlement sent before the crash may
   * still be waiting in the node (the facilitator's account has unmined transactions). When it
   * answers false, an unused authorization is released at once: nothing else could settle it.
   * Without it, an unused authorization stays reserved until the chain passes its validBefore.
   */
  settlementMayBePending?: ((network: string) => Promise<boolean>) | undefined
  /** Reservations a request of this process holds right now: left alone. */
  isInFlight?: ((paymentId: number) => boolean) | undefined
  /** Says when it runs: 'start-up' or 'periodic' (for the records' reasons). */
  when?: 'start-up' | 'periodic'
  /** A Solana network's answer on a transaction id; undefined when the network is not reachable from here. */
  solanaStatusOf?: ((network: string, signature: string) => Promise<SolanaSettlementStatus>) | undefined
  /** A Solana network's time, unix seconds (past a reservation's validBefore, its settlement can no longer land). */
  solanaNowOf?: ((network: string) => Promise<bigint>) | undefined
  /** Whether a blockhash has expired on a Solana network by its finalized bank: no transaction with it can land from then on. */
  solanaBlockhashExpiredOf?: ((network: string, blockhash: string) => Promise<boolean>) | undefined
}

export async function resolveUnresolvedPayments({
  ledger,
  clientFor,
  logger,
  lookbackBlocks = 100_000n,
  settlementMayBePending,
  isInFlight,
  when = 'start-up',
  solanaStatusOf,
  solanaNowOf = async () => BigInt(Math.floor(Date.now() / 1000)),
  solanaBlockhashExpiredOf,
}: ResolveUnresolvedPaymentsParameters): Promise<ResolvedPayment[]> {
  const log = logger.child({ module: 'payments-recovery' })
  const resolved: ResolvedPayment[] = []
  // One block per network: the authorization's state and the chain's time are read at the same block.
  const heads = new Map<string, Promise<Block<bigint, false, 'latest'>>>()
  for (const payment of await ledger.unresolved()) {
    if (isInFlight?.(payment.id)) continue
    if (payment.network.startsWith('solana:')) {
      const outcome = await resolveSolana(payment)
      if (outcome) resolved.push(outcome)
      continue
    }
    const client = clientFor(payment.network)
    if (!client) {
      log.warn({ paymentId: payment.id, network: payment.network }, 'reserved payment left unresolved: no client for its network')
      continue
    }
    let head = heads.get(payment.network)
    if (!head) heads.set(payment.network, (head = client.getBlock({ blockTag: 'latest' })))
    const block = await head
    const used = await client.readContract({
      address: payment.asset as Address,
      abi: eip3009Abi,
      functionName: 'authorizationState',
      args: [payment.payer as Address, payment.nonce],
      blockNumber: block.number,
    })
    if (!used) {
      // transferWithAuthorization needs block.timestamp < validBefore: from this block on, nobody can settle it.
      if (payment.validBefore !== undefined && block.timestamp >= payment.validBefore) {
        await ledger.markReleased(payment.id, `resolved (${when}): the authorization expired unused, nothing was charged`)
        resolved.push({ payment, outcome: 'released', transaction: undefined, reason: 'expired' })
      } else if (settlementMayBePending && !(await settlementMayBePending(payment.network))) {
        await ledger.markReleased(payment.id, `resolved (${when}): the authorization was never used and no settlement is pending, nothing was charged`)
        resolved.push({ payment, outcome: 'released', transaction: undefined, reason: 'unused' })
      } else {
        log.info(
          { paymentId: payment.id, network: payment.network, validBefore: payment.validBefore?.toString() },
          'reserved payment left reserved: its authorization could still be settled; resolved once used or expired',
        )
      }
      continue
    }
    const fromBlock = block.number > lookbackBlocks ? block.number - lookbackBlocks : 0n
    const args = { authorizer: payment.payer as Address, nonce: payment.nonce }
    const [usedLogs, cancelledLogs] = await Promise.all([
      client.getLogs({ address: payment.asset as Address, event: eip3009Abi[1], args, fromBlock, toBlock: block.number }),
      client.getLogs({ address: payment.asset as Address, event: eip3009Abi[2], args, fromBlock, toBlock: block.number }),
    ])
    if (cancelledLogs.length > 0 && usedLogs.length === 0) {
      await ledger.markReleased(payment.id, `resolved (${when}): the payer cancelled the authorization, nothing was charged`)
      resolved.push({ payment, outcome: 'released', transaction: undefined, reason: 'cancelled' })
      continue
    }
    // Used: the funds moved. Without its event in range, still settled: charging nobody twice matters more.
    const transaction = usedLogs[0]?.transactionHash ?? undefined
    await ledger.markSettled(
      payment.id,
      transaction,
      transaction ? `resolved (${when}): settled, its answer never reached the request` : `resolved (${when}): used on-chain, settlement transaction not found`,
    )
    resolved.push({ payment, outcome: 'settled', transaction, reason: 'used' })
  }
  /** Whether the blockhash kept with a Solana reservation has expired (false when none was kept or the node cannot say). */
  async function blockhashExpired(payment: PaymentRecord): Promise<boolean> {
    if (!solanaBlockhashExpiredOf) return false
    const kept = await ledger.settlementPayloadOf(payment.id)
    let blockhash: unknown
    try {
      blockhash = kept ? (JSON.parse(kept) as { solanaBlockhash?: unknown }).solanaBlockhash : undefined
    } catch {
      return false
    }
    if (typeof blockhash !== 'string') return false
    return solanaBlockhashExpiredOf(payment.network, blockhash).catch((err: unknown) => {
      log.warn({ err, paymentId: payment.id, network: payment.network }, "a Solana reservation's blockhash could not be checked: it is released at its bound")
      return false
    })
  }
  // A Solana payment: its settlement's transaction id, known from the reservation on with the in-process facilitator.
  async function resolveSolana(payment: PaymentRecord): Promise<ResolvedPayment | undefined> {
    const pending = isSettlementPending(payment) ? 'its settlement was pending; ' : ''
    if (!payment.transaction) {
      // A remote facilitator's settlement has no id known here: nothing on the chain tells this reservation's fate.
      log.warn({ paymentId: payment.id, network: payment.network }, 'Solana reservation left reserved: its settlement transaction is not known (remote facilitator); it pays for nothing else')
      return undefined
    }
    if (!solanaStatusOf) {
      log.warn({ paymentId: payment.id, network: payment.network }, 'reserved payment left unresolved: no client for its network')
      return undefined
    }
    const status = await solanaStatusOf(payment.network, payment.transaction)
    if (status.state === 'confirmed') {
      await ledger.markSettled(payment.id, payment.transaction, `resolved (${when}): ${pending}the settlement transaction is confirmed`)
      return { payment, outcome: 'settled', transaction: payment.transaction, reason: 'used' }
    }
    if (status.state === 'failed') {
      await ledger.markReleased(payment.id, `resolved (${when}): ${pending}the settlement transaction failed on-chain (${status.error.slice(0, 200)}), nothing was charged`)
      return { payment, outcome: 'released', transaction: undefined, reason: 'failed' }
    }
    // Not seen at all, and its blockhash expired by the finalized bank: no block can take it any more.
    // The status is read again after the expiry, so a settlement that landed before it is found.
    if (!status.seen && (await blockhashExpired(payment))) {
      const last = await solanaStatusOf(payment.network, payment.transaction)
      if (last.state === 'unknown' && !last.seen) {
        await ledger.markReleased(payment.id, `resolved (${when}): ${pending}the settlement never landed and can no longer (its blockhash expired), nothing was charged`)
        return { payment, outcome: 'released', transaction: undefined, reason: 'expired' }
      }
      return undefined // seen meanwhile: the next pass decides
    }
    // Unseen: its blockhash may still let it land until validBefore (set past any blockhash's life).
    if (payment.validBefore !== undefined && (await solanaNowOf(payment.network)) >= payment.validBefore) {
      await ledger.markReleased(payment.id, `resolved (${when}): ${pending}the settlement never landed and can no longer (its blockhash expired), nothing was charged`)
      return { payment, outcome: 'released', transaction: undefined, reason: 'expired' }
    }
    log.info(
      { paymentId: payment.id, network: payment.network, validBefore: payment.validBefore?.toString() },
      'Solana reservation left reserved: its settlement could still land; resolved once confirmed or expired',
    )
    return undefined
  }

  if (resolved.length > 0)
    log.info({ when, settled: resolved.filter((r) => r.outcome === 'settled').length, released: resolved.filter((r) => r.outcome === 'released').length }, 'reserved payments resolved')
  return resolved
}
