// Recovery of a reserved EVM payment no request holds: the token itself says what became of the
// authorization. Used by a transfer to the payee → settled (a credit for its intent); cancelled by
// its payer → released; unused → released only once nobody can settle it any more (the chain is
// past its validBefore), or, at start-up, when the in-process facilitator has nothing unmined that
// could still use it.
import { type Address, parseAbi } from 'viem'
import type { PaymentRecord } from '../../../ports/paymentLedger.ts'
import type { RecoveryContext, ResolvedPayment } from '../paymentMechanism.ts'
import type { EvmChainReads } from './createEvmChainReads.ts'

/** How far back to look for the event that used an authorization. */
const lookbackBlocks = 100_000n

const eip3009Abi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
])

export async function resolveEvmPayment(
  payment: PaymentRecord,
  { ledger, when, reads, settler, once, leftReserved }: RecoveryContext<EvmChainReads>,
): Promise<ResolvedPayment | undefined> {
  const client = reads.clientFor(payment.network)
  if (!client) {
    leftReserved(
      'warn',
      { paymentId: payment.id, network: payment.network },
      'reserved payment left unresolved: no client for its network',
    )
    return undefined
  }
  // One block per network and pass: the authorization's state and the chain's time are read at the same block.
  const block = await once(`evm head ${payment.network}`, () => client.getBlock({ blockTag: 'latest' }))
  const usedAt = (blockNumber: bigint | undefined) =>
    client.readContract({
      address: payment.asset as Address,
      abi: eip3009Abi,
      functionName: 'authorizationState',
      args: [payment.payer as Address, payment.nonce],
      blockNumber,
    })
  const used = await usedAt(block.number)
  if (!used) {
    // transferWithAuthorization needs block.timestamp < validBefore: from this block on, nobody can settle it.
    if (payment.validBefore !== undefined && block.timestamp >= payment.validBefore) {
      await ledger.markReleased(payment.id, `resolved (${when}): the authorization expired unused, nothing was charged`)
      return { payment, outcome: 'released', transaction: undefined, reason: 'expired' }
    }
    // Start-up, in-process facilitator: unless a settlement it sent before the crash may still be in
    // the node, nothing else could settle it.
    // The authorization is read again after the pool: a settlement mined between this pass's block
    // and the pool's read is in neither, and would be released as never used.
    if (
      when === 'start-up' &&
      settler &&
      !(await reads.settlementMayBePending(payment.network, settler as Address)) &&
      !(await usedAt(undefined))
    ) {
      await ledger.markReleased(
        payment.id,
        `resolved (${when}): the authorization was never used and no settlement is pending, nothing was charged`,
      )
      return { payment, outcome: 'released', transaction: undefined, reason: 'unused' }
    }
    leftReserved(
      'info',
      { paymentId: payment.id, network: payment.network, validBefore: payment.validBefore?.toString() },
      'reserved payment left reserved: its authorization could still be settled; resolved once used or expired',
    )
    return undefined
  }
  const fromBlock = block.number > lookbackBlocks ? block.number - lookbackBlocks : 0n
  const args = { authorizer: payment.payer as Address, nonce: payment.nonce }
  const [usedLogs, cancelledLogs] = await Promise.all([
    client.getLogs({ address: payment.asset as Address, event: eip3009Abi[1], args, fromBlock, toBlock: block.number }),
    client.getLogs({ address: payment.asset as Address, event: eip3009Abi[2], args, fromBlock, toBlock: block.number }),
  ])
  if (cancelledLogs.length > 0 && usedLogs.length === 0) {
    await ledger.markReleased(
      payment.id,
      `resolved (${when}): the payer cancelled the authorization, nothing was charged`,
    )
    return { payment, outcome: 'released', transaction: undefined, reason: 'cancelled' }
  }
  // Used: the funds moved. Without its event in range, still settled: charging nobody twice matters more.
  const transaction = usedLogs[0]?.transactionHash ?? undefined
  await ledger.markSettled(
    payment.id,
    transaction,
    transaction
      ? `resolved (${when}): settled, its answer never reached the request`
      : `resolved (${when}): used on-chain, settlement transaction not found`,
  )
  return { payment, outcome: 'settled', transaction, reason: 'used' }
}
