// POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (no session: every POST
// carries what it needs, so any instance can answer it), in MCP 2026-07-28 and 2025-11-25 (v2
// SDK). Each request gets its own MCP server; the tools call the gateway's routes in-process. The
// SDK answers with a web-standard Response, in JSON: it goes out through this reply, so the common
// headers, the security headers and the metrics apply to /mcp as to every route. GET and DELETE
// (a server-sent stream, the end of a session) have nothing to offer without sessions: 405.
// Rate limit: the /mcp request is counted when it arrives, as every request is (so initialize and
// tools/list cost one); that count pays for its first tool call, and each further tool call counts
// one more, so that a batch of N tool calls costs N, as N HTTP requests would. A batch may hold
// at most maxBatchSize messages.
import type { Server } from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyRequest, preValidationAsyncHookHandler } from 'fastify'
import type { ChainRegistry } from '../../intents/createChainRegistry.ts'
import type { Journal } from '../../ports/journal.ts'
import type { RouteCaller } from '../createRouteCaller.ts'
import { createMcpTools } from '../mcp/mcpTools.ts'
import { toProblemAnswer } from '../mcp/toProblemAnswer.ts'
import type { CountRequest } from '../plugins/rateLimit.ts'
import { describedChain } from '../requestChain.ts'
import type { ApiDocs } from '../schemas/createApiDocs.ts'
import { apiKeyOptional, apiKeyRequired, jsonResponse, outcomeResponses } from '../schemas/httpSchemas.ts'

export type McpRouteOptions = {
  caller: RouteCaller
  /** The server version the MCP handshake names. */
  version: string
  /** The runtimes' examples the tools' schemas show (createApiDocs.ts). */
  docs: ApiDocs
  preValidation?: preValidationAsyncHookHandler | undefined
  /** The rate limit's counter, when there is a limit: each tool call is counted with it. */
  countRequest?: CountRequest | undefined
  /** Names the chain of a tool call refused before it reaches its route. */
  registry: ChainRegistry
  /** The most JSON-RPC messages one batch may hold (default 32). */
  maxBatchSize?: number | undefined
  /** With OAuth on, /mcp itself needs a credential (documented so: no anonymous requirement). */
  credentialRequired?: boolean | undefined
  /** For tasks/cancel: who created a task, and the withdrawal of a claim not signed yet. */
  journal?: Pick<Journal, 'get' | 'withdraw'> | undefined
}

const jsonRpcMessage = {
  type: ['object', 'array'],
  additionalProperties: true,
  description:
    'a JSON-RPC 2.0 message of the Model Context Protocol (server/discover, tools/list, tools/call, tasks/get, or in 2025-11-25 initialize and notifications), or a 2025-era batch of them',
  examples: [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'explain_status', arguments: { code: '0x10' } } },
  ],
} as const

/** Headers the transport reads; the others (framing, host) belong to this HTTP request only. */
const hopByHop = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade'])

/** The MCP SDK (with zod), loaded by the first /mcp request rather than by every gateway. */
let mcpModules:
  | Promise<[typeof import('../mcp/createMcpServer.ts'), typeof import('@modelcontextprotocol/server')]>
  | undefined
const loadMcp = () =>
  (mcpModules ??= Promise.all([import('../mcp/createMcpServer.ts'), import('@modelcontextprotocol/server')]))

export function registerMcpRoute(
  app: FastifyInstance,
  {
    caller,
    version,
    docs,
    preValidation,
    countRequest,
    registry,
    maxBatchSize = 32,
    journal,
    credentialRequired = false,
  }: McpRouteOptions,
) {
  const tools = createMcpTools(docs)
  const schema = {
    operationId: 'mcp',
    tags: ['agents'],
    summary:
      "Model Context Protocol server (Streamable HTTP, stateless; MCP 2026-07-28 and 2025-11-25): the gateway's operations as MCP tools",
    description:
      "MCP 2026-07-28 (server/discover, the `_meta` envelope, Mcp-Method/Mcp-Name headers, `resultType`; the Tasks extension: an execute_intent not final yet is a task whose id is the intent hash, followed with tasks/get) and 2025-11-25 and older (initialize), one endpoint: a request without the 2026 envelope is served as 2025. A protocol version not spoken: 400 with the SDK's version error listing ours. " +
      'Tools: validate_intent, execute_intent, get_intent, list_chains, explain_status. Each tool sends the same request to the matching route (with this request\'s Authorization and X-Chain-Id) and returns its answer: `httpStatus`, `erc1066Status`, `headers` and `body` as structuredContent, `isError` from 400 on; a 402 carries the x402 PaymentRequired, paid with `_meta["x402/payment"]`. Send `Accept: application/json, text/event-stream`. Answers are JSON (no stream); there are no sessions, so GET and DELETE answer 405. With API keys configured, a key is optional here, a key that is sent must be valid, and execute_intent needs one; with OAUTH_ISSUER set, /mcp needs an API key or an access token (401 with resource_metadata otherwise). ' +
      "The rate limit is the client's HTTP budget (its API key, else its address): an /mcp request counts as one request and pays for its first tool call; each further tool call, batched or not, counts as one more (a batch of N tool calls costs N, as N HTTP requests would). " +
      "A tool call over the limit has the route's 429 (0xF6) as its result, `retry-after` among its headers; an /mcp request over the limit is answered 429 itself. " +
      `A batch holds at most ${maxBatchSize} messages (more: 400, JSON-RPC -32600). Arguments nested deeper than 32 levels answer JSON-RPC -32602 naming the argument.`,
    body: jsonRpcMessage,
    response: {
      200: jsonResponse(
        'the JSON-RPC response (a tool result, a task, the tool list, the discover or initialize result), or a JSON-RPC error',
        {
          type: ['object', 'array'],
          additionalProperties: true,
        },
      ),
      202: {
        description: 'accepted: the request carried notifications or responses only',
        headers: jsonResponse('', {}).headers,
      },
      ...outcomeResponses([400, 401, 406, 413, 415, 429]),
    },
    ...(preValidation ? { security: credentialRequired ? apiKeyRequired : apiKeyOptional } : {}),
  }
  app.post(
    '/mcp',
    {
      schema,
      // The transport answers a body that is not JSON-RPC itself, as a JSON-RPC error.
      validatorCompiler: () => () => true,
      ...(preValidation ? { preValidation } : {}),
    },
    async (request, reply) => {
      if (Array.isArray(request.body) && request.body.length > maxBatchSize) {
        const error = {
          code: -32600,
          message: `Invalid Request: a batch holds at most ${maxBatchSize} messages; this one holds ${request.body.length}`,
        }
        // As text, like the transport's own JSON-RPC errors: the 400 problem schema would drop its fields.
        return reply
          .code(400 as 200)
          .type('application/json')
          .send(JSON.stringify({ jsonrpc: '2.0', id: null, error }))
      }
      const [{ createMcpServer }, sdk] = await loadMcp()
      const newServer = (era: 'legacy' | 'modern') =>
        createMcpServer({
          callRoute: (route) => caller.call(request, route),
          admitToolCall: countRequest && admitter(request, countRequest, registry),
          version,
          tools,
          era,
          journal,
          // Who asks, as the credential hook identified the /mcp request: the tasks' creator check.
          caller: request.apiKeyId,
        })
      const webRequest = toWebRequest(request)
      const { status, headers, text } = (await sdk.isLegacyRequest(webRequest, request.body))
        ? await serveLegacy(sdk, newServer('legacy'), webRequest, request.body)
        : await serveModern(sdk, newServer, webRequest, request.body)
      // Any status the SDK chose (the declared ones are what it answers).
      reply.code(status as 200)
      headers.forEach((value, name) => {
        if (name !== 'content-length') reply.header(name, value)
      })
      return reply.send(text.length > 0 ? text : undefined)
    },
  )
}

/**
 * Counts the tool calls of one /mcp request, the first with the request itself, the others one
 * after the other: the memory store hands back its live counter, so counts made side by side
 * would each read the total of all of them and refuse calls still within the limit.
 */
function admitter(request: FastifyRequest, countRequest: CountRequest, registry: ChainRegistry) {
  let paid = true
  let previous: Promise<unknown> = Promise.resolve()
  return async (chainId: string | undefined) => {
    if (paid) {
      paid = false
      return undefined
    }
    const counted = previous.then(() => countRequest(request))
    previous = counted.catch(() => undefined)
    const refusal = await counted
    // The tool's own chain, else the /mcp request's.
    return (
      refusal &&
      toProblemAnswer(refusal, chainId !== undefined ? registry.describe(chainId) : describedChain(registry, request))
    )
  }
}

type Sdk = typeof import('@modelcontextprotocol/server')
type Answer = { status: number; headers: Headers; text: string }

/**
 * 2025-11-25 and older (a request without the 2026 `_meta` envelope): the SDK's Streamable HTTP
 * transport without sessions, answering JSON. Batches are this leg's only.
 */
async function serveLegacy(sdk: Sdk, server: Server, webRequest: Request, parsedBody: unknown): Promise<Answer> {
  // No session id generator: stateless, one transport per request.
  const transport = new sdk.WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
  try {
    await server.connect(transport)
    const response = await transport.handleRequest(webRequest, { parsedBody })
    return { status: response.status, headers: response.headers, text: await response.text() }
  } finally {
    await server.close()
  }
}

/**
 * 2026-07-28 (the request carries its protocol version, client and capabilities in `_meta`):
 * the SDK's per-request handler, which checks the version (an unknown one: its
 * unsupported-version error listing ours), the Mcp-Method/Mcp-Name headers, and answers with
 * `resultType`. Strict: 2025-era requests never reach it (serveLegacy answers them).
 */
async function serveModern(
  sdk: Sdk,
  newServer: (era: 'modern') => Server,
  webRequest: Request,
  parsedBody: unknown,
): Promise<Answer> {
  const handler = sdk.createMcpHandler(() => newServer('modern'), { legacy: 'reject' })
  try {
    const response = await handler.fetch(webRequest, { parsedBody })
    return { status: response.status, headers: response.headers, text: await response.text() }
  } finally {
    await handler.close()
  }
}

function toWebRequest(request: FastifyRequest): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || hopByHop.has(name)) continue
    headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  return new Request(`http://gateway${request.url}`, { method: request.method, headers })
}
