// What identifies one x402 payment on its network, so that the ledger lets it pay for one request
// only: an EIP-3009 authorization by (token, payer, nonce); a Solana exact payment by (mint, the
// transfer's authority, keccak256 of the transaction message). The Solana message holds the
// blockhash and the client's random memo, so a payer's every payment has its own key, and the same
// transaction sent twice (to this instance or another of the fleet) finds its key taken.
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { getCompiledTransactionMessageDecoder } from '@solana/kit'
import { decodeTransactionFromPayload, getTokenPayerFromTransaction } from '@x402/svm'
import { type Hex, keccak256 } from 'viem'
import type { AuthorizationKey } from '../ports/paymentLedger.ts'

export type PaymentKey =
  | {
      ok: true
      key: AuthorizationKey
      /** Who pays (the EIP-3009 `from`, or the SPL transfer's authority). */
      payer: string
      /**
       * Until when (unix seconds) the payment could still be settled by whoever holds it: the
       * authorization's validBefore; on Solana, solanaLandingBoundSeconds from now: the transaction's blockhash (valid at
       * verification) expires sooner, whatever the offer's maxTimeoutSeconds (up to a day) says.
       */
      validBefore: bigint
      /** The refusal reason x402 gives a payment already used. */
      alreadyUsed: string
      /** Solana: the payer's partially signed transaction (base64). */
      transaction?: string | undefined
      /** Solana: the blockhash the transaction lives by (once no longer valid, it can never land). */
      blockhash?: string | undefined
    }
  | { ok: false; reason: string }

/** At least this long (seconds) a Solana payment transaction is taken to be able to land (a blockhash's life, with margin). */
export const solanaLandingBoundSeconds = 180

export function paymentKeyOf(payload: PaymentPayload, requirements: PaymentRequirements, now = () => BigInt(Math.floor(Date.now() / 1000))): PaymentKey {
  if (requirements.network.startsWith('solana:')) {
    const transaction = (payload.payload as { transaction?: unknown }).transaction
    if (typeof transaction !== 'string' || transaction.length > 4096) return { ok: false, reason: 'invalid_exact_svm_payload_transaction: not a base64 Solana transaction' }
    try {
      const decoded = decodeTransactionFromPayload({ transaction })
      const payer = getTokenPayerFromTransaction(decoded)
      if (!payer) return { ok: false, reason: 'invalid_exact_svm_payload_no_transfer_instruction' }
      const nonce = keccak256(Uint8Array.from(decoded.messageBytes as unknown as Uint8Array)) as Hex
      const { lifetimeToken } = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes)
      return {
        ok: true,
        key: { network: requirements.network, asset: requirements.asset, payer, nonce },
        payer,
        // A blockhash lives 150 slots (about a minute on the clusters): past this, the transaction cannot
        // land. A reservation whose settlement was never seen is released then, not after the offer's
        // timeout: meanwhile its intent answers 202 and its payer cannot pay for it again.
        validBefore: now() + BigInt(solanaLandingBoundSeconds),
        alreadyUsed: 'duplicate_settlement',
        transaction,
        blockhash: lifetimeToken,
      }
    } catch {
      return { ok: false, reason: 'invalid_exact_svm_payload_transaction_could_not_be_decoded' }
    }
  }
  const a = (payload.payload as { authorization?: Record<string, unknown> }).authorization
  if (!a || typeof a.from !== 'string' || typeof a.nonce !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(a.nonce) || typeof a.validBefore !== 'string' || !/^[0-9]{1,20}$/.test(a.validBefore)) {
    return { ok: false, reason: 'invalid_payment_payload: only EIP-3009 authorizations are accepted' }
  }
  return {
    ok: true,
    key: { network: requirements.network, asset: requirements.asset, payer: a.from, nonce: a.nonce as Hex },
    payer: a.from,
    validBefore: BigInt(a.validBefore),
    alreadyUsed: 'invalid_exact_evm_nonce_already_used',
  }
}
