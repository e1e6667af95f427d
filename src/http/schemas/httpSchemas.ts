// The schemas of every route's headers and answers, in one place: the routes declare them,
// Fastify serializes answers with them, and @fastify/swagger turns them into /openapi.json.
// Fastify's serializer drops fields a schema does not declare: every object whose fields are open
// (the problem extensions, `signing`, `paymentRequired`, chain descriptions) says so with
// `additionalProperties: true`. No `required` on answers: the serializer throws on a missing one.
// They name no chain family: what the document shows in a runtime's terms (chain ids, worked
// examples) comes from the runtime modules, through createApiDocs.ts.
import { chainTypes } from '../../ports/chainId.ts'
import { statusCodes } from '../../status/statusCodes.ts'

const hex = (what: string, pattern?: string) =>
  ({ type: 'string', description: what, ...(pattern ? { pattern } : {}) }) as const
const ercCode = hex('the ERC-1066 code: 0x + two upper-case hex digits', '^0x[0-9A-F]{2}$')
/** `evm, solana or sui`: the chain types, from the runtime list (ports/chainId.ts). */
const chainTypeList = `${chainTypes.slice(0, -1).join(', ')} or ${chainTypes.at(-1)}`
const intentHash = hex(
  "keccak256 of the ABI-encoded intent (EVM), of the runtime's canonical intent bytes (Solana, Sui), or of the raw body when it is not an intent",
  '^0x[0-9a-f]{64}$',
)

/** The headers every answer carries (docs/api-contract.md §3). */
export const commonResponseHeaders = {
  'X-Request-Id': {
    type: 'string',
    description:
      "the request's id in the gateway's logs: the X-Request-Id sent, when it is 1–128 visible ASCII characters, else a fresh UUID",
    pattern: '^[\\x21-\\x7e]{1,128}$',
  },
  'X-ERC1066-Status': { ...ercCode, description: 'the ERC-1066 code of the outcome: 0x + two upper-case hex digits' },
  'X-Status-Code': { ...ercCode, description: 'the same value as X-ERC1066-Status' },
  'X-Intent-Hash': intentHash,
  'X-Chain-Type': {
    type: 'string',
    enum: [...chainTypes, ''],
    description: `the runtime of the chain: ${chainTypeList} (empty when no chain could be chosen)`,
  },
  // Documented with an example chain of the runtimes' (createApiDocs.ts).
  'X-Chain-Id': {
    type: 'string',
    description: 'the CAIP-2 id of the chain, or the requested value when no chain could be chosen',
  },
  'X-Payment-Required': {
    type: 'string',
    enum: ['true', 'false'],
    description: '"true" exactly when the HTTP status is 402',
  },
} as const

const retryAfter = { 'Retry-After': { type: 'string', description: 'seconds to wait before retrying' } } as const

/** Extra headers by HTTP status. */
const statusHeaders: Record<number, Record<string, { type: string; description: string }>> = {
  202: {
    Location: { type: 'string', description: 'where to poll the execution (0xF3): /intents/{intentHash}' },
    'Retry-After': {
      type: 'string',
      description: "0x20 TOO_EARLY because of the intent's own validAfter: the seconds until it is valid",
    },
  },
  401: {
    'WWW-Authenticate': {
      type: 'string',
      description:
        'Bearer realm="intent-gateway" when an API key is missing or wrong (absent on signature refusals, 0xE4 and 0xE5)',
    },
  },
  402: {
    'PAYMENT-REQUIRED': {
      type: 'string',
      description: 'x402 v2: the base64 JSON PaymentRequired (the same object as `paymentRequired` in the body)',
    },
    'Cache-Control': { type: 'string', description: "no-store on the gateway's own price (0x55)" },
  },
  429: retryAfter,
  503: retryAfter,
}

/**
 * Request headers: documented only; loose on purpose, since the routes answer a bad value themselves
 * (400, 421). X-Chain-Id is described with the runtimes' chain ids in the document (createApiDocs.ts).
 */
export const requestHeadersSchema = {
  type: 'object',
  properties: {
    'x-chain-id': {
      type: 'string',
      description:
        'the chain: a chain id in decimal or a CAIP-2 id. Absent: DEFAULT_CHAIN_ID, else the only configured chain. Not served: 421 (0xA2).',
    },
    'payment-signature': {
      type: 'string',
      description:
        "x402 v2: the base64 JSON PaymentPayload that pays the gateway's price (a 402 with 0x55 offers it in PAYMENT-REQUIRED; @x402/fetch sends it by itself). Ignored where the route is free on the chosen chain",
    },
  },
} as const

/** The chain choice alone, for routes that take no payment. */
export const chainHeaderSchema = {
  type: 'object',
  properties: { 'x-chain-id': requestHeadersSchema.properties['x-chain-id'] },
} as const

const fieldError = {
  type: 'object',
  additionalProperties: true,
  properties: { field: { type: 'string' }, message: { type: 'string' } },
} as const

/** The fields of an execution, when a transaction exists (strings: numbers can exceed 2^53). */
const executionFields = {
  state: {
    type: 'string',
    enum: ['pending', 'mined', 'reverted', 'dropped'],
    description:
      'pending: sent, not confirmed; mined: executed; reverted: mined without effect; dropped: the transaction left the pool or was replaced',
  },
  transactionHash: {
    type: 'string',
    description: "the chain's transaction id (EVM: 0x hash; Sui: base58 digest; Solana: base58 signature)",
  },
  blockNumber: {
    type: 'string',
    pattern: '^[0-9]+$',
    description: 'the block (slot, checkpoint) it was included in, decimal',
  },
  gasUsed: { type: 'string', pattern: '^[0-9]+$', description: 'gas used, decimal' },
  returnData: { type: 'string', description: 'what the target call returned, 0x hex' },
} as const

const signing = {
  type: 'object',
  additionalProperties: true,
  description:
    'with 0xE4 and 0xE5: what the sender must sign and send back as `signature` (EVM: the EIP-712 typed data, `domain`, `types`, `primaryType`, `message`; Solana account mode: `{ scheme: "ed25519", mode: "account", intentHash, feePayer, message (base64 transaction message), encoding: "base64", lastValidBlockHeight, instructions (the steps as text) }`, sign the message bytes; Sui account mode: `{ scheme: "sui-transaction", mode: "account", intentHash, gasOwner, txBytes }`)',
} as const

const outcomeFields = {
  statusName: { type: 'string', description: "the code's name, e.g. ALLOWED" },
  description: { type: 'string', description: 'what the code means' },
  detail: { type: 'string', description: 'what happened, in words' },
  intentHash,
  chainType: { type: 'string', description: chainTypeList },
  chainId: { type: 'string', description: 'the CAIP-2 id of the chain' },
  ...executionFields,
  signing,
  replayed: {
    type: 'boolean',
    description:
      'true on a repeat of an intent this gateway sent: its one outcome answered again; nothing was sent, simulated or charged',
  },
} as const

/** A 2xx answer of validate, execute and GET /intents/{intentHash}. */
export const outcomeSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    status: ercCode,
    erc1066Status: ercCode,
    ...outcomeFields,
  },
} as const

/** RFC 9457 problem details with the outcome fields: every 4xx and 5xx body. */
export const problemSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    type: { type: 'string', description: 'urn:intent-gateway:problem:<status-name>' },
    title: { type: 'string' },
    status: { type: 'integer', description: 'the HTTP status' },
    erc1066Status: ercCode,
    ...outcomeFields,
    errors: { type: 'array', items: fieldError, description: 'input errors: which field, and what it must be' },
    paymentRequired: {
      type: 'object',
      additionalProperties: true,
      description:
        'on 402: the x402 v2 PaymentRequired (x402Version, error, resource, accepts, extensions), the same object as the PAYMENT-REQUIRED header',
    },
  },
} as const

const describeStatus = (httpStatus: number) => {
  const codes = statusCodes
    .filter((s) => s.httpStatus === httpStatus && !s.reserved)
    .map((s) => `${s.hex} ${s.statusName}`)
  return codes.length > 0 ? codes.slice(0, 12).join(', ') + (codes.length > 12 ? ', …' : '') : undefined
}

/** What each HTTP status means on the intent routes: response descriptions and the MCP explain_status tool. */
export const httpMeanings: Record<number, string> = {
  200: 'allowed (validate) or executed (execute)',
  202: 'accepted, not final: poll Location',
  400: 'the request or intent is not valid (errors names the fields)',
  401: "API key missing or wrong, or the sender's signature refused (0xE4) or required (0xE5, with `signing`)",
  402: 'funds required: `paymentRequired` and the PAYMENT-REQUIRED header',
  403: 'refused by the policy',
  404: 'not found',
  405: 'the method is not served on this path (Allow lists those that are)',
  406: 'the Accept header does not allow the answer (MCP: send Accept: application/json, text/event-stream)',
  409: 'already executed (0x22) or already in flight (0xF8)',
  410: 'expired',
  413: 'the body is larger than the limit',
  415: 'the Content-Type is not application/json',
  421: 'the chain is not served by this gateway (0xA2)',
  422: 'the call failed on-chain, or a limit was reached',
  428: 'an action is requested first',
  431: 'the request headers are larger than the limit (or the request is not readable HTTP: 400)',
  429: 'rate limit reached (0xF6): retry after Retry-After',
  500: 'unexpected gateway failure',
  501: 'not supported here (e.g. execute with no relayer)',
  502: 'gateway-side failure (the relayer could not send, or a contract answered a reserved code)',
  503: 'the chain is unreachable or paused: retry after Retry-After',
}

/**
 * The bodies many answers share, registered once (registerSharedSchemas) and referred to by $id:
 * the document then names them once under components.schemas instead of repeating them.
 */
export const sharedSchemas = [
  {
    $id: 'Outcome',
    title: 'Outcome',
    description:
      'an answer below 400: the ERC-1066 code and what it means, the intent and chain, the execution when one exists',
    ...outcomeSchema,
  },
  {
    $id: 'Problem',
    title: 'Problem',
    description: 'RFC 9457 problem details with the outcome fields: every 4xx and 5xx body',
    ...problemSchema,
  },
] as const

export function registerSharedSchemas(app: { addSchema(schema: unknown): unknown }) {
  for (const schema of sharedSchemas) app.addSchema(schema)
}

const outcomeRef = { $ref: 'Outcome#' } as const
const problemRef = { $ref: 'Problem#' } as const

function response(httpStatus: number, schema: object, mediaType: string, examples?: unknown[]) {
  const codes = describeStatus(httpStatus)
  return {
    description: `${httpMeanings[httpStatus] ?? 'see the status code table'}${codes ? `. ERC-1066: ${codes}` : ''}`,
    headers: { ...commonResponseHeaders, ...statusHeaders[httpStatus] },
    content: {
      [mediaType]: {
        schema,
        ...(examples
          ? { examples: Object.fromEntries(examples.map((value, i) => [`example${i + 1}`, { value }])) }
          : {}),
      },
    },
  }
}

/** Response schemas for these HTTP statuses: outcome bodies below 400, problems from 400 on. */
export function outcomeResponses(statuses: number[], examples: Record<number, unknown[]> = {}) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      s < 400
        ? response(s, outcomeRef, 'application/json', examples[s])
        : response(s, problemRef, 'application/problem+json', examples[s]),
    ]),
  )
}

/** A JSON answer that is not an outcome (health, chains, status codes). */
export function jsonResponse(description: string, schema: object) {
  return { description, headers: commonResponseHeaders, content: { 'application/json': { schema } } }
}

/** Every status validate and execute can answer with (docs/api-contract.md §4); their examples come from createApiDocs.ts. */
export const intentStatuses = [200, 202, 400, 401, 402, 403, 409, 410, 413, 415, 421, 422, 428, 429, 500, 501, 502, 503]

/** The security scheme name of the API keys (Authorization: Bearer <key>). */
export const apiKeyScheme = 'apiKey'

/** The security scheme name of the metrics token (METRICS_TOKEN, Authorization: Bearer <token> on GET /metrics). */
export const metricsTokenScheme = 'metricsToken'

/** Security requirements: a key that must be sent, or one that may be (the empty requirement). */
export const apiKeyRequired: Array<Record<string, string[]>> = [{ [apiKeyScheme]: [] }]
export const apiKeyOptional: Array<Record<string, string[]>> = [{ [apiKeyScheme]: [] }, {}]

export const healthSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    status: { type: 'string', enum: ['ok'] },
    version: { type: 'string', description: "the gateway's version (its package.json), semver" },
    uptimeSeconds: { type: 'integer' },
    chains: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        description: 'one chain: chainId, chainType, available, reachable, blockNumber, latencyMs, error',
      },
    },
    journal: { type: 'object', additionalProperties: true, properties: { pendingExecutions: { type: 'integer' } } },
  },
} as const

export const readySchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    ready: { type: 'boolean' },
    chains: healthSchema.properties.chains,
  },
} as const

/** When the gateway holds a transaction (an execution or an x402 settlement) final on a chain: the operator's console reads it from here. */
const chainFinality = {
  type: 'object',
  additionalProperties: false,
  required: ['rule', 'description'],
  description:
    "when this gateway holds a transaction (an execution or an x402 settlement) final: `depth` (EVM: `confirmations` blocks deep, CONFIRMATIONS), `commitment` (Solana: the commitment a signature status must reach) or `effects` (Sui: once the validators' effects are certified; Sui does not reorganise)",
  properties: {
    rule: { type: 'string', enum: ['depth', 'commitment', 'effects'] },
    confirmations: {
      type: 'integer',
      minimum: 1,
      description: 'rule `depth`: how many blocks deep (1 = in the latest block)',
    },
    commitment: {
      type: 'string',
      enum: ['confirmed', 'finalized'],
      description: 'rule `commitment`: the Solana commitment level',
    },
    description: { type: 'string', description: 'the rule in words' },
  },
  examples: [
    {
      rule: 'depth',
      confirmations: 3,
      description: 'final 3 blocks deep (CONFIRMATIONS): until then an execution answers 202 and a reorg reopens it',
    },
  ],
} as const

const chainDescription = {
  type: 'object',
  additionalProperties: true,
  required: ['finality'],
  description:
    'a served chain: chainId, chainType, reference, name, nativeCurrency, contracts, relayer, available, endpoints (URLs redacted), signing (EVM: the EIP-712 domain, types, primaryType), finality (its finality rule)',
  properties: { finality: chainFinality },
} as const

export const chainsSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    defaultChainId: { type: ['string', 'null'], description: 'the chain used when X-Chain-Id is absent' },
    chains: { type: 'array', items: chainDescription },
  },
} as const

export const chainSchema = chainDescription

export const statusCodesSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    codes: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: {
          code: ercCode,
          statusName: { type: 'string' },
          description: { type: 'string' },
          httpStatus: { type: 'integer' },
          reserved: { type: 'boolean' },
        },
      },
    },
  },
} as const

/** The OpenAPI document itself: open-ended, it is whatever @fastify/swagger builds. */
export const openApiDocumentSchema = {
  type: 'object',
  additionalProperties: true,
  description: 'this OpenAPI 3.1 document',
} as const
