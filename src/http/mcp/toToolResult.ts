// Turns the gateway's HTTP answer to a tool's request into the MCP tool result: the status, the
// ERC-1066 code, the headers that matter and the body as structuredContent (the same JSON as text
// for clients that read text only), isError from 400 on. A 402 follows x402's MCP transport: the
// PaymentRequired at the top of structuredContent; a settled payment in _meta["x402/payment-response"].

import type { CallToolResult } from '@modelcontextprotocol/server'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { commonResponseHeaders } from '../schemas/httpSchemas.ts'
import { mcpDiscoveryOf } from './mcpDiscoveryOf.ts'
import type { McpTool } from './mcpTools.ts'
import { toMcpPaymentWording } from './toMcpPaymentWording.ts'

/** What a tool needs of an HTTP answer. */
export type RouteAnswer = {
  httpStatus: number
  headers: Record<string, string | string[] | number | undefined>
  body: unknown
}

/** The headers a tool result repeats from the HTTP answer (lower-case names). */
const resultHeaderNames = [
  // Not X-Request-Id: the in-process route call's own id; the /mcp answer carries the request's.
  ...Object.keys(commonResponseHeaders)
    .map((h) => h.toLowerCase())
    .filter((h) => h !== 'x-request-id'),
  'location',
  'retry-after',
  'www-authenticate',
  'payment-required',
  'payment-response',
]

/** `tool`: the tool called; a 402's bazaar discovery then describes the tool, not the HTTP route behind it. */
export function toToolResult({ httpStatus, headers, body: answered }: RouteAnswer, tool?: McpTool): CallToolResult {
  const body = httpStatus === 402 ? toMcpPayment(answered, tool) : answered
  const kept: Record<string, string> = {}
  for (const name of resultHeaderNames) {
    const value = headers[name]
    if (value !== undefined) kept[name] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  const paymentRequired =
    httpStatus === 402 && isObject(body) && isObject(body.paymentRequired) ? body.paymentRequired : {}
  const structuredContent = {
    ...paymentRequired,
    httpStatus,
    erc1066Status: kept['x-erc1066-status'] ?? '',
    headers: kept,
    body: body ?? {},
  }
  const result: CallToolResult = {
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
    structuredContent,
    ...(httpStatus >= 400 ? { isError: true } : {}),
  }
  const settlement = kept['payment-response']
  if (settlement) {
    try {
      result._meta = { 'x402/payment-response': decodePaymentResponseHeader(settlement) }
    } catch {
      // A header the gateway wrote itself; should it not decode, the header stays in `headers`.
    }
  }
  return result
}

/** A 402 body whose texts say how to pay over MCP (the headers keep the route's own PAYMENT-REQUIRED). */
function toMcpPayment(body: unknown, tool: McpTool | undefined): unknown {
  if (!isObject(body)) return body
  const reworded: Record<string, unknown> = { ...body }
  if (typeof body.detail === 'string') reworded.detail = toMcpPaymentWording(body.detail)
  if (isObject(body.paymentRequired)) {
    const paymentRequired: Record<string, unknown> = { ...body.paymentRequired }
    if (typeof paymentRequired.error === 'string') paymentRequired.error = toMcpPaymentWording(paymentRequired.error)
    if (tool && isObject(paymentRequired.extensions) && 'bazaar' in paymentRequired.extensions)
      paymentRequired.extensions = { ...paymentRequired.extensions, ...mcpDiscoveryOf(tool) }
    reworded.paymentRequired = paymentRequired
  }
  return reworded
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
