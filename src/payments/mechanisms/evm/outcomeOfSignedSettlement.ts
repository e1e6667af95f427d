// What became of an EVM settlement that x402 answered as failed after the facilitator had signed
// its transaction. A connection reset after the node took the broadcast (or the receipt read) makes
// viem throw, and x402 then answers `invalid_exact_evm_transaction_failed` with no transaction:
// taken at its word, the reservation is released, the client pays again with a fresh authorization,
// and the first one, mined all the same, has moved the payer's money for nothing (issue 43: 11
// payments for 10 intents). So the chain is asked first. A signed transaction mined and successful
// with the authorization used (its nonce's `authorizationState`): the payment landed, it is this
// request's settlement (the receipts are read before the authorization's state, so that one mined
// in between is seen used). Mined and successful but its authorization not seen used (a lagging
// endpoint): `settlement_pending`. Mined and reverted: the failure stands, naming it. Used by a
// transaction not found: `settlement_pending` (the resolver tells a transfer from a cancel). Unused
// while one of the signed transactions is still in the node: `settlement_pending` (the resolver
// finishes it). Unused and unknown to the node: the failure stands (nothing was taken). The chain
// cannot be read: `settlement_pending` too, never "nothing sent" (the resolver reads the
// authorization later).
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { Logger } from 'pino'
import { type Address, type Hex, parseAbi } from 'viem'
import { settlementPendingReason } from '../../settlementPending.ts'

const eip3009Abi = parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)'])

/** The reads it needs from the network's client (viem's public actions). */
export type EvmSettlementReader = {
  getTransactionReceipt(args: {
    hash: Hex
  }): Promise<{ gasUsed: bigint; effectiveGasPrice: bigint; status: string; transactionHash: Hex }>
  getTransaction(args: { hash: Hex }): Promise<{ blockNumber: bigint | null }>
  readContract(args: {
    address: Address
    abi: typeof eip3009Abi
    functionName: 'authorizationState'
    args: readonly [Address, Hex]
  }): Promise<boolean>
}

export type OutcomeOfSignedSettlementParameters = {
  client: EvmSettlementReader
  payload: PaymentPayload
  requirements: PaymentRequirements
  /** The hashes of the transactions the facilitator signed for this settlement, in order. */
  signed: readonly Hex[]
  /** x402's answer: a failure. */
  answer: SettleResponse
  logger: Logger
}

export async function outcomeOfSignedSettlement({
  client,
  payload,
  requirements,
  signed,
  answer,
  logger,
}: OutcomeOfSignedSettlementParameters): Promise<SettleResponse> {
  const authorization = (payload.payload as { authorization?: { from?: unknown; nonce?: unknown } } | undefined)
    ?.authorization
  if (typeof authorization?.from !== 'string' || typeof authorization.nonce !== 'string') return answer
  const payer = authorization.from as Address
  const last = signed[signed.length - 1]!
  const pending = (transaction: Hex, why: string): SettleResponse => {
    logger.warn(
      { transaction, payer, failure: answer.errorReason },
      `x402 settlement answered as failed, ${why}: settlement_pending, not released`,
    )
    return {
      success: false,
      errorReason: settlementPendingReason,
      errorMessage: `the settlement ${transaction} was signed and ${why}; the payment waits for the chain`,
      transaction,
      network: requirements.network,
      payer,
    }
  }
  try {
    // The receipts first, then the authorization's state: a transaction mined between the two reads
    // is then seen used (read the other way round, it was found mined and successful with its
    // authorization unused, and taken for a revert: CI run 47, the payer charged twice).
    const receipts = await Promise.all(signed.map((hash) => client.getTransactionReceipt({ hash }).catch(notFound)))
    const used = (await client.readContract({
      address: requirements.asset as Address,
      abi: eip3009Abi,
      functionName: 'authorizationState',
      args: [payer as Address, authorization.nonce as Hex],
    })) as boolean
    const landed = receipts.find((r) => r?.status === 'success')
    // The money moved by this settlement: this request's payment.
    if (used && landed) {
      logger.warn(
        { transaction: landed.transactionHash, payer, failure: answer.errorReason },
        'x402 settlement answered as failed, yet it is mined and its authorization used: settled (its answer was lost)',
      )
      return {
        success: true,
        transaction: landed.transactionHash,
        network: requirements.network,
        payer,
        amount: requirements.amount,
      }
    }
    // Mined and successful, its authorization not seen used (an endpoint behind the one that answered
    // the receipt): never a failure; the resolver reads it again.
    if (landed) return pending(landed.transactionHash, 'is mined, its authorization not yet seen used')
    // Mined and reverted (the payer used or cancelled its authorization first, its balance went): a failure, with its transaction.
    const reverted = receipts.find((r) => r !== undefined)
    if (reverted) return { ...answer, transaction: answer.transaction || reverted.transactionHash }
    // Used by a transaction not found here: the resolver tells a transfer from a cancel by the token's events.
    if (used) return pending(last, 'its authorization is used on chain by a transaction not found yet')
    for (const hash of signed) {
      const known = await client.getTransaction({ hash }).catch(notFound)
      if (known) return pending(hash, 'is in the node, not mined yet')
    }
    return answer
  } catch (err) {
    logger.warn({ err }, "x402 settlement's outcome could not be read from the chain")
    return pending(last, 'its outcome could not be read')
  }
}

/** viem's "not found" errors read as undefined; anything else is a failure to read. */
function notFound(err: unknown): undefined {
  const name = (err as Error).name
  if (name === 'TransactionReceiptNotFoundError' || name === 'TransactionNotFoundError') return undefined
  throw err
}
