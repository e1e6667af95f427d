// The exact scheme on Solana networks: the payer's partially signed SPL transfer, identified by
// (mint, the transfer's authority, keccak256 of the transaction message). The message holds the
// blockhash and the client's random memo, so a payer's every payment has its own key, and the
// same transaction sent twice (to this instance or another of the fleet) finds its key taken.
import { getCompiledTransactionMessageDecoder } from '@solana/kit'
import { decodeTransactionFromPayload, getTokenPayerFromTransaction } from '@x402/svm'
import { registerExactSvmScheme } from '@x402/svm/exact/server'
import { type Hex, keccak256 } from 'viem'
import type { PaymentMechanism } from '../paymentMechanism.ts'
import { createSvmChainReads, type SvmChainReads } from './createSvmChainReads.ts'
import { createSvmFacilitatorScheme } from './createSvmFacilitatorScheme.ts'
import { resolveSvmPayment } from './resolveSvmPayment.ts'

/** At least this long (seconds) a Solana payment transaction is taken to be able to land (a blockhash's life, with margin). */
export const solanaLandingBoundSeconds = 180

export const exactSvm: PaymentMechanism<SvmChainReads> = {
  namespace: 'solana',
  keyOf(payload, requirements, now) {
    const transaction = (payload.payload as { transaction?: unknown }).transaction
    if (typeof transaction !== 'string' || transaction.length > 4096)
      return { ok: false, reason: 'invalid_exact_svm_payload_transaction: not a base64 Solana transaction' }
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
        // land. A reservation whose settlement was never seen is released then at the latest, not after
        // the offer's timeout: meanwhile its intent answers 202 and its payer cannot pay for it again.
        validBefore: now() + BigInt(solanaLandingBoundSeconds),
        alreadyUsed: 'duplicate_settlement',
        transaction,
        settlementPayload: JSON.stringify({ solanaBlockhash: lifetimeToken }),
      }
    } catch {
      return { ok: false, reason: 'invalid_exact_svm_payload_transaction_could_not_be_decoded' }
    }
  },
  claimedPayer(inner) {
    const transaction = (inner as { transaction?: unknown } | undefined)?.transaction
    if (typeof transaction !== 'string' || transaction.length > 4096) return undefined
    try {
      return getTokenPayerFromTransaction(decodeTransactionFromPayload({ transaction })) || undefined
    } catch {
      return undefined
    }
  },
  // Decided by its settlement's transaction id when it is known (the in-process facilitator's); a
  // remote facilitator's is not, and nothing on the chain would ever tell.
  mayStillLand: (payment) => payment.transaction !== undefined,
  registerServerScheme: (server, networks) => void registerExactSvmScheme(server, { networks }),
  capsSettlementsInFlight: true,
  resolve: resolveSvmPayment,
  createFacilitatorScheme: createSvmFacilitatorScheme,
  createChainReads: createSvmChainReads,
}
