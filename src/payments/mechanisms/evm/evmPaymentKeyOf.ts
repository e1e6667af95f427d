// What identifies one EVM payment: its EIP-3009 authorization, by (token, payer, nonce); its
// validBefore bounds when anyone can settle it.
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import type { Hex } from 'viem'
import type { PaymentKey } from '../paymentMechanism.ts'

export function evmPaymentKeyOf(payload: PaymentPayload, requirements: PaymentRequirements): PaymentKey {
  const a = (payload.payload as { authorization?: Record<string, unknown> }).authorization
  if (
    !a ||
    typeof a.from !== 'string' ||
    typeof a.nonce !== 'string' ||
    !/^0x[0-9a-fA-F]{64}$/.test(a.nonce) ||
    typeof a.validBefore !== 'string' ||
    !/^[0-9]{1,20}$/.test(a.validBefore)
  ) {
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
