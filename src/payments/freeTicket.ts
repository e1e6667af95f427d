// What a free request's payment is: nothing to settle, nothing charged. Its own file: the HTTP
// layer admits free requests with it without loading the x402 packages (payments/createPayments.ts
// is loaded only when prices are configured).
import type { PaymentTicket } from './paymentTicket.ts'

export const freeTicket: PaymentTicket = {
  payment: 'none',
  settle: async () => ({ ok: true, response: undefined }),
  finish: async () => ({ kind: 'served', paymentResponse: undefined, payment: undefined, charged: 'free' }),
  fail: async () => {},
}
