// The exact scheme on EVM networks (eip155): an EIP-3009 authorization, identified by (token,
// payer, nonce); its validBefore bounds when anyone can settle it.
import { registerExactEvmScheme } from '@x402/evm/exact/server'
import type { PaymentMechanism } from '../paymentMechanism.ts'
import { createEvmChainReads, type EvmChainReads } from './createEvmChainReads.ts'
import { createEvmFacilitatorScheme } from './createEvmFacilitatorScheme.ts'
import { createEvmSettlementRecheck } from './createEvmSettlementRecheck.ts'
import { evmNamespace } from './evmNamespace.ts'
import { evmPaymentKeyOf } from './evmPaymentKeyOf.ts'
import { resolveEvmPayment } from './resolveEvmPayment.ts'
import { settlementCallOf } from './settlementCallOf.ts'

export const exactEvm: PaymentMechanism<EvmChainReads> = {
  namespace: evmNamespace,
  keyOf: evmPaymentKeyOf,
  claimedPayer(inner) {
    const from = (inner as { authorization?: { from?: unknown } } | undefined)?.authorization?.from
    return typeof from === 'string' && /^0x[0-9a-fA-F]{40}$/.test(from) ? from : undefined
  },
  // The token itself says what became of an authorization (used, cancelled, or unused until its validBefore).
  mayStillLand: () => true,
  registerServerScheme: (server, networks) => void registerExactEvmScheme(server, { networks }),
  settlementCallOf,
  // Estimated before it is sent: a settlement whose balance or authorization is gone is not sent, and costs nothing.
  capsSettlementsInFlight: false,
  resolve: resolveEvmPayment,
  createFacilitatorScheme: createEvmFacilitatorScheme,
  createChainReads: createEvmChainReads,
  createSettlementRecheck: createEvmSettlementRecheck,
}
