// The exact scheme on EVM networks (eip155): an EIP-3009 authorization, identified by (token,
// payer, nonce); its validBefore bounds when anyone can settle it.
import { registerExactEvmScheme } from '@x402/evm/exact/server'
import type { Hex } from 'viem'
import type { PaymentMechanism } from '../paymentMechanism.ts'
import { createEvmChainReads } from './createEvmChainReads.ts'
import { createEvmFacilitatorScheme } from './createEvmFacilitatorScheme.ts'
import { resolveEvmPayment } from './resolveEvmPayment.ts'
import { settlementCallOf } from './settlementCallOf.ts'

export const exactEvm: PaymentMechanism = {
  namespace: 'eip155',
  keyOf(payload, requirements) {
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
  },
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
  keepsSettlementBlocks: true,
  resolve: resolveEvmPayment,
  createFacilitatorScheme: createEvmFacilitatorScheme,
  createChainReads: createEvmChainReads,
}
