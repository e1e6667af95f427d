// What identifies one x402 payment on its network, so that the ledger lets it pay for one request
// only: the payment family's own rule (mechanisms/<family>), found by the network's namespace.
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { mechanismOf } from './mechanisms/mechanisms.ts'
import type { PaymentKey } from './mechanisms/paymentMechanism.ts'

export type { PaymentKey }

export function paymentKeyOf(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  now = () => BigInt(Math.floor(Date.now() / 1000)),
): PaymentKey {
  const mechanism = mechanismOf(requirements.network)
  if (!mechanism)
    return { ok: false, reason: `invalid_payment_payload: no payment scheme is taken on ${requirements.network}` }
  return mechanism.keyOf(payload, requirements, now)
}
