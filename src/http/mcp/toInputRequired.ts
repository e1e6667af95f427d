// MCP 2026-07-28's "input required" pattern for what an execute (or validate) needs from its
// client: a 401 (0xE5) asking for the sender's signature, or a 402 (0x52, 0x55) asking for an x402
// payment. To a client that declared the elicitation capability, the tool call answers
// `resultType: "input_required"` with one form elicitation (`signature`: the EIP-712 or Solana
// bytes to sign ride in its `_meta`; `payment`: the x402 offer rides in its `_meta`), and the
// client completes it by calling the same tool again with `inputResponses` (toRetriedCall.ts). A
// client without elicitation gets the tool result as before (the 401 body's `signing`, the 402's
// PaymentRequired, paid in `_meta["x402/payment"]`), which works everywhere. `requestState` only
// names what was asked: the route checks the signature or the payment again, so a tampered state
// gains nothing.
import type { CallToolResult } from '@modelcontextprotocol/server'
import type { RouteAnswer } from './toToolResult.ts'

/** What the client is asked for, by the inputRequests key it answers under. */
type InputNeed = 'signature' | 'payment'

/** The `_meta` keys the elicitation carries its material under. */
const signingMeta = 'intent-gateway/signing'
const paymentRequiredMeta = 'x402/payment-required'

export function toInputRequired(
  answer: RouteAnswer,
  result: CallToolResult,
  tool: string,
): Record<string, unknown> | undefined {
  const code = String(answer.headers['x-erc1066-status'] ?? '').toLowerCase()
  const body = (answer.body ?? {}) as { signing?: unknown; paymentRequired?: unknown; detail?: unknown }
  const detail = typeof body.detail === 'string' ? body.detail : ''
  let need: InputNeed
  let params: Record<string, unknown>
  if (answer.httpStatus === 401 && code === '0xe5' && body.signing !== undefined) {
    need = 'signature'
    params = {
      mode: 'form',
      message:
        `${tool} needs the sender's signature: sign the typed data in _meta["${signingMeta}"] with the sender's key (or a delegate of the policy) and give the signature. ${detail}`.trim(),
      requestedSchema: {
        type: 'object',
        properties: {
          signature: {
            type: 'string',
            title: 'Signature',
            description: "the sender's signature of the typed data (EVM: 0x and 130 hex digits; Solana: base58)",
            minLength: 1,
            maxLength: 1024,
          },
        },
        required: ['signature'],
      },
      _meta: { [signingMeta]: body.signing },
    }
  } else if (answer.httpStatus === 402 && (code === '0x52' || code === '0x55') && body.paymentRequired !== undefined) {
    need = 'payment'
    params = {
      mode: 'form',
      message: `${tool} has a price: pay one of the offers in _meta["${paymentRequiredMeta}"].accepts and give the x402 PaymentPayload, as JSON or as the base64 a PAYMENT-SIGNATURE header carries (or call the tool again with it in _meta["x402/payment"]).`,
      requestedSchema: {
        type: 'object',
        properties: {
          payment: {
            type: 'string',
            title: 'x402 payment',
            description: 'the x402 PaymentPayload, JSON or base64',
            minLength: 1,
            maxLength: 16384,
          },
        },
        required: ['payment'],
      },
      _meta: { [paymentRequiredMeta]: body.paymentRequired },
    }
  } else {
    return undefined
  }
  return {
    resultType: 'input_required',
    inputRequests: { [need]: { method: 'elicitation/create', params } },
    requestState: Buffer.from(JSON.stringify({ tool, need })).toString('base64url'),
    // The tool result the route gave, for a client that wants the whole answer (status, headers, body).
    _meta: { 'intent-gateway/result': result.structuredContent },
  }
}
