// The payer a PAYMENT-SIGNATURE header names, before the facilitator verified it, as its family's
// mechanism reads it (mechanisms/<family>: the EIP-3009 `from`, or on Solana the SPL transfer's
// authority). Used only to refuse: naming a throttled payer only refuses oneself; naming another,
// the payment then fails to verify.
import { paymentMechanisms } from './mechanisms/mechanisms.ts'

export function claimedPayer(header: string): string | undefined {
  if (header.length > 16_384) return undefined
  let inner: unknown
  try {
    inner = (JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { payload?: unknown }).payload
  } catch {
    return undefined
  }
  for (const mechanism of paymentMechanisms) {
    const payer = mechanism.claimedPayer(inner)
    if (payer !== undefined) return payer
  }
  return undefined
}
