// The retry of MCP 2026-07-28's "input required" pattern (toInputRequired.ts): the same tool call
// again, with `inputResponses` answering the elicitation. An accepted `signature` goes into the
// intent as its `signature`; an accepted `payment` (an x402 PaymentPayload, JSON or base64) is
// sent as the PAYMENT-SIGNATURE header. Whatever is given is checked by the route as if sent
// over HTTP; here only its shape. A declined or cancelled elicitation gives nothing: the call runs
// as it was (and answers what it needs again).
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import type { FieldError } from '../../errors/inputError.ts'

export type RetriedCall = { args: Record<string, unknown>; paymentSignature?: string | undefined; errors: FieldError[] }

export type RetryFields = {
  inputResponses?: unknown
  requestState?: unknown
  /** Responses the SDK set aside as not bare results (a `{ method, result }` wrapper). */
  dropped?: readonly string[] | undefined
}

export function toRetriedCall(
  tool: string,
  args: Record<string, unknown>,
  { inputResponses, requestState, dropped = [] }: RetryFields,
): RetriedCall {
  const errors: FieldError[] = dropped.map((key) => ({
    field: `inputResponses.${key}`,
    message: 'must be an elicitation result: { action, content } (not wrapped in { method, result })',
  }))
  if (inputResponses === undefined && requestState === undefined) return { args, errors }
  if (requestState !== undefined) {
    const state = readState(requestState)
    if (!state || state.tool !== tool)
      errors.push({ field: 'requestState', message: `is not a state this gateway gave for ${tool}` })
  }
  if (inputResponses === undefined) return { args, errors }
  if (!isObject(inputResponses))
    return { args, errors: [...errors, { field: 'inputResponses', message: 'must be an object' }] }
  let retried = args
  let paymentSignature: string | undefined
  for (const [key, response] of Object.entries(inputResponses)) {
    const field = `inputResponses.${key}`
    if (key !== 'signature' && key !== 'payment') {
      errors.push({ field, message: 'is not a request this gateway made (it asks for signature or payment)' })
      continue
    }
    if (!isObject(response) || typeof response.action !== 'string') {
      errors.push({ field, message: 'must be an elicitation result: { action, content }' })
      continue
    }
    if (response.action !== 'accept') continue
    const value = isObject(response.content) ? response.content[key] : undefined
    if (typeof value !== 'string' || value.length === 0) {
      errors.push({ field: `${field}.content.${key}`, message: 'must be a non-empty string' })
      continue
    }
    if (key === 'signature') {
      if (!isObject(args.intent)) continue // the intent's own check names it
      retried = { ...args, intent: { ...args.intent, signature: value } }
    } else {
      paymentSignature = toPaymentSignature(value)
      if (!paymentSignature)
        errors.push({
          field: `${field}.content.payment`,
          message: 'must be an x402 PaymentPayload object, as JSON or base64 JSON',
        })
    }
  }
  return { args: retried, ...(paymentSignature ? { paymentSignature } : {}), errors }
}

function readState(state: unknown): { tool?: unknown; need?: unknown } | undefined {
  if (typeof state !== 'string' || state.length > 512) return undefined
  try {
    const parsed = JSON.parse(Buffer.from(state, 'base64url').toString('utf8')) as unknown
    return isObject(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

/** The PAYMENT-SIGNATURE header value of a payload given as JSON or as base64 JSON; undefined if it is neither. */
function toPaymentSignature(value: string): string | undefined {
  for (const text of [value, Buffer.from(value, 'base64').toString('utf8')]) {
    try {
      const parsed = JSON.parse(text) as unknown
      // Only its shape is checked here; the route verifies the payload as it would a header's.
      if (isObject(parsed)) return encodePaymentSignatureHeader(parsed as PaymentPayload)
    } catch {
      // not this encoding
    }
  }
  return undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
