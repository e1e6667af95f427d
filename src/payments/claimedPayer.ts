// A PAYMENT-SIGNATURE header, read once for the request (x402's base64 JSON PaymentPayload), and
// the payer it names before the facilitator verified it, as its family's mechanism reads it
// (mechanisms/<family>: the EIP-3009 `from`, or on Solana the SPL transfer's authority). The payer
// is used only to refuse: naming a throttled payer only refuses oneself; naming another, the
// payment then fails to verify.

import { decodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import { paymentMechanisms } from './mechanisms/mechanisms.ts'

/** The header as sent, and what it decodes to (undefined: it is not base64 JSON). */
export type PaymentHeader = { raw: string; payload: PaymentPayload | undefined }

export function readPaymentHeader(raw: string): PaymentHeader {
  try {
    return { raw, payload: decodePaymentSignatureHeader(raw) }
  } catch {
    return { raw, payload: undefined }
  }
}

export function claimedPayer(header: PaymentHeader): string | undefined {
  if (header.raw.length > 16_384) return undefined
  const inner = (header.payload as { payload?: unknown } | null | undefined)?.payload
  if (inner === undefined) return undefined
  for (const mechanism of paymentMechanisms) {
    const payer = mechanism.claimedPayer(inner)
    if (payer !== undefined) return payer
  }
  return undefined
}
