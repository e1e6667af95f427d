// The routes' 402 texts tell an HTTP client to send a PAYMENT-SIGNATURE header; an MCP client has
// no headers to send and pays in the tool call's `_meta["x402/payment"]` (x402's MCP transport).
// Rewritten here, in the one place tool results are made, so that an agent reading the text does
// what works over MCP.

const rewrites: Array<[RegExp, string]> = [
  [
    /repeat the request with a PAYMENT-SIGNATURE header for one of (?:paymentRequired\.)?accepts/g,
    'call the tool again with the PaymentPayload for one of `accepts` in `_meta["x402/payment"]`',
  ],
  [/PAYMENT-SIGNATURE header is required/g, 'a PaymentPayload in the tool call\'s `_meta["x402/payment"]` is required'],
  [/(?:the |a )?PAYMENT-SIGNATURE(?: header)?/g, '`_meta["x402/payment"]`'],
]

export function toMcpPaymentWording(text: string): string {
  return rewrites.reduce((wording, [pattern, replacement]) => wording.replace(pattern, replacement), text)
}
