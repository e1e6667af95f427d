// The gateway's operations as MCP tools: names, descriptions and JSON Schemas. Every schema is
// taken from the definitions the HTTP routes use (the intent, the intent-hash parameter, the
// chain header, the outcome and problem bodies, the status table): never a second description.
import { intentHashParamsSchema, intentSchema } from '../../intents/intentSchema.ts'
import type { ApiDocs } from '../schemas/createApiDocs.ts'
import { chainSchema, chainsSchema, outcomeSchema, problemSchema, statusCodesSchema } from '../schemas/httpSchemas.ts'

export type McpToolName = 'validate_intent' | 'execute_intent' | 'get_intent' | 'list_chains' | 'explain_status'

export type McpTool = {
  name: McpToolName
  title: string
  description: string
  inputSchema: {
    type: 'object'
    properties: Record<string, object>
    required?: readonly string[]
    additionalProperties: false
  }
  outputSchema: { type: 'object'; properties: Record<string, object>; required?: readonly string[] }
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }
  /** What its x402 discovery shows (not listed by tools/list): an intent it takes, and an answer. */
  examples?: { intent: unknown; answer: unknown } | undefined
}

// The intent exactly as POST /intents/validate and /intents/execute take it, without the $id
// under which Fastify and the OpenAPI document share it.
const { $id: _intentId, ...intent } = intentSchema
const intentHash = intentHashParamsSchema.properties.intentHash

/**
 * Every tool that calls a route answers with the route's HTTP answer: its status, its ERC-1066
 * code, the headers that matter and the body (an outcome below 400, a problem from 400 on). On
 * 402 the x402 `PaymentRequired` fields (x402Version, error, resource, accepts, extensions) stand
 * beside them at the top, as x402's MCP transport reads them.
 */
function httpAnswer(headers: object, body: object) {
  return {
    type: 'object',
    required: ['httpStatus', 'erc1066Status', 'headers', 'body'],
    properties: {
      httpStatus: { type: 'integer', description: 'the HTTP status the gateway answered the same request with' },
      erc1066Status: problemSchema.properties.erc1066Status,
      headers,
      body,
      x402Version: {
        type: 'integer',
        description: 'on 402 only: the x402 PaymentRequired, as in `body.paymentRequired`',
      },
    },
  } as const
}

/** The tools, their chain header and examples in the runtimes' terms (createApiDocs.ts): built once per app. */
export function createMcpTools(docs: ApiDocs): readonly McpTool[] {
  const chainId = {
    ...docs.chainIdHeader,
    description: `${docs.chainIdHeader.description} Sent as the X-Chain-Id header; absent: the X-Chain-Id header of the /mcp request, if any.`,
  }
  const headers = {
    type: 'object',
    additionalProperties: true,
    description:
      'the headers of the HTTP answer that matter to an agent, lower-case: the common headers (x-erc1066-status, x-intent-hash, x-chain-id, …) and, when present, location, retry-after, www-authenticate, payment-required, payment-response',
    properties: Object.fromEntries(
      Object.entries(docs.responseHeaders).map(([name, schema]) => [name.toLowerCase(), schema]),
    ),
  } as const
  const intentAnswer = httpAnswer(headers, { anyOf: [outcomeSchema, problemSchema] })
  const intentInput = {
    type: 'object',
    properties: { intent, chainId },
    required: ['intent'],
    additionalProperties: false,
  } as const
  const { validate, execute, answer } = docs.intentExamples
  return [
    {
      name: 'validate_intent',
      title: 'Validate an intent',
      description:
        "Ask the chain's validator whether an intent may run, without running it (POST /intents/validate). The result carries the HTTP status and the ERC-1066 code: 200 (0x01) allowed, 403 (0x10) disallowed by the policy, 402 (0x54) funds short, 410 expired, 421 (0xA2) chain not served, 400 with `errors` naming the fields. With `signature`, the signature is checked too (401 0xE4 when wrong).",
      inputSchema: intentInput,
      outputSchema: intentAnswer,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      examples: { intent: validate, answer },
    },
    {
      name: 'execute_intent',
      title: 'Execute an intent',
      description:
        "Validate an intent, then execute it on-chain through the gateway's relayer (POST /intents/execute): 200 (0x11) when mined, 202 (0xF3) when not mined in time (poll get_intent), 409 when already executed (0x22) or in flight (0xF8), the validation's answer when refused (nothing is sent). It needs the sender's `signature`: without one, a 401 (0xE5) body carries `signing`, the typed data to sign. With API keys configured it needs a key (Authorization: Bearer on the /mcp request). A price is demanded as an x402 PaymentRequired (402) and paid in `_meta[\"x402/payment\"]`.",
      inputSchema: intentInput,
      outputSchema: intentAnswer,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
      examples: { intent: execute, answer },
    },
    {
      name: 'get_intent',
      title: 'Follow an execution',
      description:
        "The state of an execution this gateway sent, by its intent hash (GET /intents/{intentHash}, the X-Intent-Hash of execute): 202 (0xF3) while unconfirmed, 200 (0x11) once executed, the revert's code otherwise, 404 for an intent this gateway never sent.",
      inputSchema: {
        type: 'object',
        properties: { intentHash, chainId },
        required: ['intentHash'],
        additionalProperties: false,
      },
      outputSchema: intentAnswer,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    {
      name: 'list_chains',
      title: 'List the chains',
      description:
        'The chains this gateway serves (GET /chains): runtime, CAIP-2 id, name, currency, contracts, relayer, availability, endpoints (redacted) and how intents are signed (the EIP-712 domain). With `chainId`, that one chain (GET /chains/{chainId}; 421 when not served).',
      inputSchema: {
        type: 'object',
        properties: {
          chainId: {
            type: 'string',
            maxLength: 100,
            description: 'one chain only: an EVM chain id in decimal or a CAIP-2 id',
          },
        },
        additionalProperties: false,
      },
      outputSchema: httpAnswer(headers, { anyOf: [chainsSchema, chainSchema, problemSchema] }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    {
      name: 'explain_status',
      title: 'Explain an ERC-1066 code',
      description:
        'What an ERC-1066 status code means here and which HTTP status the gateway answers it with (one row of GET /status-codes), and what that HTTP status means here.',
      inputSchema: {
        type: 'object',
        properties: {
          code: {
            type: 'string',
            pattern: '^0x[0-9a-fA-F]{2}$',
            description: 'the code as X-ERC1066-Status writes it: 0x + two hex digits, e.g. 0x10',
          },
        },
        required: ['code'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        required: ['code', 'statusName', 'description', 'httpStatus', 'reserved', 'httpMeaning'],
        properties: {
          ...statusCodesSchema.properties.codes.items.properties,
          httpMeaning: { type: 'string', description: "what the HTTP status means on this gateway's intent routes" },
        },
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
  ]
}
