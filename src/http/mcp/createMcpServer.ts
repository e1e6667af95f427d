// The MCP server of one /mcp request: lists the tools and answers a call by sending the matching
// request to the gateway's own HTTP route (callRoute), so that a tool answers exactly as the route
// does, with the same API keys, limits and payments. Every tool call is counted against the
// client's rate limit first (admitToolCall), however it arrived, alone or in a batch. Low-level
// Server with JSON Schemas: the tools' schemas are the routes' own, which the SDK's zod-based
// registerTool would not take as they are.
import {
  type CallToolResult,
  fromJsonSchema,
  type ListToolsResult,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { FieldError } from '../../errors/inputError.ts'
import { httpMeanings } from '../schemas/httpSchemas.ts'
import { toProblemDetails } from '../problemDetails.ts'
import { getStatusCode, Status } from '../../status/statusCodes.ts'
import { checkToolArguments } from './checkToolArguments.ts'
import { findTooDeep } from './findTooDeep.ts'
import { type McpTool, type McpToolName, mcpTools } from './mcpTools.ts'
import { tasksExtension, toTask, toTaskState } from './toTask.ts'
import { type RouteAnswer, toToolResult } from './toToolResult.ts'

/** A request for one of the gateway's routes, made on behalf of the MCP client. */
export type RouteRequest = {
  method: 'GET' | 'POST'
  url: string
  body?: unknown
  /** Sent as X-Chain-Id. */
  chainId?: string | undefined
  /** The x402 PaymentPayload from `_meta["x402/payment"]`, sent as PAYMENT-SIGNATURE (base64 JSON). */
  paymentSignature?: string | undefined
}

export type CreateMcpServerParameters = {
  callRoute: (request: RouteRequest) => Promise<RouteAnswer>
  /**
   * Counts one tool call against the client's rate limit: the route's answer refusing it (429,
   * 0xF6, Retry-After) when over the limit, else undefined. `chainId` is the tool's, if any.
   */
  admitToolCall?: ((chainId: string | undefined) => Promise<RouteAnswer | undefined>) | undefined
  version: string
  /**
   * 'modern' (2026-07-28): the Tasks extension is offered; an execute_intent not final yet, from a
   * client declaring the extension, answers a task (its id the intent hash) that tasks/get follows.
   */
  era?: 'legacy' | 'modern' | undefined
}

const byName = new Map<string, McpTool>(mcpTools.map((t) => [t.name, t]))

export function createMcpServer({ callRoute, admitToolCall, version, era = 'legacy' }: CreateMcpServerParameters): Server {
  const server = new Server(
    { name: 'intent-gateway', title: 'Intent Gateway', version },
    {
      capabilities: { tools: {}, ...(era === 'modern' ? { extensions: { [tasksExtension]: {} } } : {}) },
      instructions:
        'Validate and execute blockchain intents. Every result carries the HTTP status and the ERC-1066 code the gateway answered with; explain_status explains a code. ' +
        "execute_intent needs the sender's EIP-712 signature: a 401 (0xE5) result carries `signing`, the typed data to sign.",
    },
  )

  // The schemas are plain JSON Schema objects, which the SDK's JSON value type does not see as such.
  const tools = mcpTools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
    name,
    title,
    description,
    inputSchema,
    outputSchema,
    annotations,
  })) as unknown as ListToolsResult['tools']
  server.setRequestHandler('tools/list', async () => ({ tools }))

  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>
    // Counted first, whatever follows, as an HTTP request is counted before its body is read.
    const refusal = await admitToolCall?.(typeof args.chainId === 'string' ? args.chainId : undefined)
    if (refusal) return withoutRow(request.params.name, toToolResult(refusal))
    // Before anything serializes them: a value nested thousands deep would overflow the stack.
    const tooDeep = findTooDeep({
      ...args,
      ...Object.fromEntries(Object.entries(request.params._meta ?? {}).map(([name, value]) => [`_meta.${name}`, value])),
    })
    if (tooDeep) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${tooDeep.field} ${tooDeep.message}`, { errors: [tooDeep] })
    const tool = byName.get(request.params.name)
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name} (the tools are: ${mcpTools.map((t) => t.name).join(', ')})`)
    const errors = checkToolArguments(tool.inputSchema, args)
    const payment = request.params._meta?.['x402/payment']
    if (payment !== undefined && (typeof payment !== 'object' || payment === null || Array.isArray(payment))) {
      errors.push({ field: '_meta.x402/payment', message: 'must be an x402 PaymentPayload object' })
    }
    if (errors.length > 0) return withoutRow(tool.name, badArguments(tool.name, errors))

    if (tool.name === 'explain_status') return explainStatus(String(args.code))
    const route = toRouteRequest(tool.name, args)
    const answer = await callRoute({ ...route, ...(payment ? { paymentSignature: encodePaymentSignatureHeader(payment as never) } : {}) })
    // Not final yet (202, 0xF3): a task to follow, for a client that takes tasks.
    const intentHash = answer.headers['x-intent-hash']
    if (era === 'modern' && tool.name === 'execute_intent' && toTaskState(answer) === 'working' && typeof intentHash === 'string' && declaresTasks(ctx)) {
      return { resultType: 'task', ...toTask(intentHash, answer, tool) } as unknown as CallToolResult
    }
    return toToolResult(answer, tool)
  })

  if (era === 'modern') {
    // Public as GET /intents/{hash} is: the id is the intent hash, and the state is read from the journal.
    server.setRequestHandler('tasks/get', { params: taskParams }, async (params, ctx) => {
      const answer = await readTask(params, ctx)
      return toTask(params.taskId, answer, byName.get('execute_intent'))
    })
    // A task is made only once execute has claimed the intent and sent its transaction (202,
    // 0xF3): what is signed cannot be called back, so no task is cancellable. (A claim not yet
    // signed, such as one waiting for its x402 settlement, would be; the journal offers no way
    // to withdraw one yet.) Refused with nothing changed, whoever asks.
    server.setRequestHandler('tasks/cancel', { params: taskParams }, async (params, ctx) => {
      const answer = await readTask(params, ctx)
      const state = toTaskState(answer)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${params.taskId} is not cancellable: ${state === 'working' ? 'its transaction is signed and sent' : `it is ${state}`}`, {
        taskId: params.taskId,
        status: state,
      })
    })
    // Input is given by calling the tool again (execute_intent with the signature, or with the
    // x402 payment in _meta["x402/payment"]), not through tasks/update.
    server.setRequestHandler('tasks/update', { params: taskParams }, async (params, ctx) => {
      await readTask(params, ctx)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `tasks/update is not accepted: give a signature or a payment by calling execute_intent again (the payment in _meta["x402/payment"])`, {
        taskId: params.taskId,
      })
    })
  }

  /** The route's answer for a task, after the checks every task method makes, in the extension's order. */
  async function readTask(params: { taskId: unknown }, ctx: ServerContext): Promise<RouteAnswer> {
    // The capability first: a client that did not declare the extension learns that, whatever it sent.
    if (!declaresTasks(ctx)) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [tasksExtension]: {} } } })
    const { taskId } = params
    if (typeof taskId !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(taskId))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'taskId must be an intent hash: 0x and 64 hex digits', { field: 'taskId' })
    const answer = await callRoute({ method: 'GET', url: `/intents/${taskId}` })
    if (answer.httpStatus === 404) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId} (no execution of this intent was sent by this gateway)`, { field: 'taskId' })
    return answer
  }

  return server
}

// Checked by readTask, after the capability: the schema only types the params.
const taskParams = fromJsonSchema<{ taskId: string }>({ type: 'object' })

function declaresTasks(ctx: ServerContext): boolean {
  const capabilities = ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities' as never] as { extensions?: Record<string, unknown> } | undefined
  return capabilities?.extensions?.[tasksExtension] !== undefined
}

function toRouteRequest(name: Exclude<McpToolName, 'explain_status'>, args: Record<string, unknown>): RouteRequest {
  const chainId = args.chainId as string | undefined
  switch (name) {
    case 'validate_intent':
      return { method: 'POST', url: '/intents/validate', body: args.intent, chainId }
    case 'execute_intent':
      return { method: 'POST', url: '/intents/execute', body: args.intent, chainId }
    case 'get_intent':
      return { method: 'GET', url: `/intents/${args.intentHash as string}`, chainId }
    case 'list_chains':
      return chainId === undefined ? { method: 'GET', url: '/chains' } : { method: 'GET', url: `/chains/${encodeURIComponent(chainId)}` }
  }
}

function explainStatus(code: string): CallToolResult {
  const entry = getStatusCode(Number.parseInt(code.slice(2), 16))
  const structuredContent = {
    code: entry.hex,
    statusName: entry.statusName,
    description: entry.description,
    httpStatus: entry.httpStatus,
    reserved: entry.reserved,
    httpMeaning: httpMeanings[entry.httpStatus] ?? (entry.reserved ? 'a reserved code: the contract that returned it is at fault' : 'see GET /status-codes'),
  }
  return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent }
}

/**
 * explain_status answers with a row of the status table, which a problem does not fit (a client
 * checks structuredContent against the output schema): its refusals are the problem as text alone.
 */
function withoutRow(tool: string, result: CallToolResult): CallToolResult {
  if (tool === 'explain_status') delete result.structuredContent
  return result
}

/** Arguments the tool itself refuses: a 400 problem naming them, as the routes answer bad input. */
function badArguments(tool: string, errors: FieldError[]): CallToolResult {
  const status = getStatusCode(Status.INVALID_FORMAT)
  const body = toProblemDetails({
    httpStatus: 400,
    status: Status.INVALID_FORMAT,
    title: `The arguments of ${tool} are not valid`,
    detail: errors.map((e) => `${e.field}: ${e.message}`).join('; '),
    context: { chainId: '', chainType: '', intentHash: undefined, status: Status.INVALID_FORMAT },
    errors,
  })
  return toToolResult({ httpStatus: 400, headers: { 'x-erc1066-status': status.hex }, body: JSON.parse(JSON.stringify(body)) })
}
