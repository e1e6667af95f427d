// The payer a PAYMENT-SIGNATURE header names, before the facilitator verified it: the EIP-3009
// `from`, or on Solana the SPL transfer's authority, as the facilitator will verify it
// (paymentKeyOf.ts). Used only to refuse: naming a throttled payer only refuses oneself; naming
// another, the payment then fails to verify.
import { decodeTransactionFromPayload, getTokenPayerFromTransaction } from '@x402/svm'

export function claimedPayer(header: string): string | undefined {
  if (header.length > 16_384) return undefined
  try {
    const payload = (JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { payload?: { authorization?: { from?: unknown }; transaction?: unknown } }).payload
    const from = payload?.authorization?.from
    if (typeof from === 'string' && /^0x[0-9a-fA-F]{40}$/.test(from)) return from
    const transaction = payload?.transaction
    if (typeof transaction !== 'string' || transaction.length > 4096) return undefined
    return getTokenPayerFromTransaction(decodeTransactionFromPayload({ transaction })) || undefined
  } catch {
    return undefined
  }
}
