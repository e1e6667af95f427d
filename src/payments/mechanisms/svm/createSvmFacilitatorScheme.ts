// The exact SVM scheme of the in-process facilitator: co-signing the payer's SPL transfer as its
// fee payer, within the fee ceilings, each settlement sent through the spend watch.
import { ExactSvmScheme } from '@x402/svm/exact/facilitator'
import { svmFeeOf, svmFeeProblem } from '../../svmFeeLimits.ts'
import type { FacilitatorScheme, FacilitatorSchemeParameters } from '../paymentMechanism.ts'
import { createSolanaFacilitatorSigner } from './createSolanaFacilitatorSigner.ts'

export function createSvmFacilitatorScheme({
  facilitator,
  endpoints,
  keys,
  watch,
  watchEd25519,
  log,
  rpcTimeoutMs,
  settlementTimeoutMs,
  svmFeeLimits,
}: FacilitatorSchemeParameters): FacilitatorScheme {
  // The fee ceilings checked before x402's scheme is asked at all: whatever path it takes (a
  // smart wallet's, a later version's), a payment asking more is refused unsigned.
  const feeProblemOf: FacilitatorScheme['feeProblemOf'] = (payload) => {
    const transaction = (payload.payload as { transaction?: unknown } | undefined)?.transaction
    return typeof transaction === 'string' ? svmFeeProblem(transaction, svmFeeLimits) : undefined
  }
  if (!keys.solana || endpoints.length === 0) return { spendOf: async () => undefined, feeProblemOf }
  const solana = createSolanaFacilitatorSigner({
    key: watchEd25519(keys.solana),
    endpoints: Object.fromEntries(endpoints),
    confirmTimeoutMs: settlementTimeoutMs,
    feeLimits: svmFeeLimits,
    logger: log,
    rpcTimeoutMs,
  })
  // The scheme registered by hand, not with registerExactSvmScheme: that one sets no unit or
  // signature ceiling (the payer's compute budget is the facilitator's fee) and also registers
  // x402 v1's scheme, which has none at all; the gateway takes v2 payments only.
  const signer = {
    ...solana.signer,
    sendTransaction: (transaction: string, network: string) =>
      watch.sent(() => solana.signer.sendTransaction(transaction, network), {
        id: svmFeeOf(transaction)?.signature,
        wire: transaction,
      }),
  }
  facilitator.register(
    endpoints.map(([network]) => network),
    new ExactSvmScheme(signer, undefined, svmFeeLimits),
  )
  return {
    async spendOf(network, sent) {
      if (!sent.wire) return undefined
      return solana.spendOf({
        signature: sent.transaction,
        transaction: sent.wire,
        network,
        sendFailed: sent.error !== undefined,
      })
    },
    feeProblemOf,
    settlementIdOf: solana.settlementIdOf,
  }
}
