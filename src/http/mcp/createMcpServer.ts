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
import type { PaymentPayload } from '@x402/core/types'
import type { Hex } from 'viem'
import type { FieldError } from '../../errors/inputError.ts'
import { idempotencyKeyProblem } from '../../idempotency/idempotencyKeyProblem.ts'
import type { Journal } from '../../ports/journal.ts'
import { getStatusCode, Status } from '../../status/statusCodes.ts'
import { toProblemDetails } from '../problemDetails.ts'
import { httpMeanings } from '../schemas/httpSchemas.ts'
import { cancelTask } from './cancelTask.ts'
import { checkToolArguments } from './checkToolArguments.ts'
import { findTooDeep } from './findTooDeep.ts'
import type { McpTool, McpToolName } from './mcpTools.ts'
import { toInputRequired } from './toInputRequired.ts'
import { toRetriedCall } from './toRetriedCall.ts'
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
  /** From `_meta["intent-gateway/idempotency-key"]` (execute_intent), sent as Idempotency-Key. */
  idempotencyKey?: string | undefined
}

/** Where an MCP client puts what an HTTP client sends as the Idempotency-Key header. */
export const idempotencyKeyMeta = 'intent-gateway/idempotency-key'

export type CreateMcpServerParameters = {
  callRoute: (request: RouteRequest) => Promise<RouteAnswer>
  /**
   * Counts one tool call against the client's rate limit: the route's answer refusing it (429,
   * 0xF6, Retry-After) when over the limit, else undefined. `chainId` is the tool's, if any.
   */
  admitToolCall?: ((chainId: string | undefined) => Promise<RouteAnswer | undefined>) | undefined
  version: string
  /** The tools (mcpTools.ts' createMcpTools), built once per app. */
  tools: readonly McpTool[]
  /**
   * 'modern' (2026-07-28): the Tasks extension is offered; an execute_intent not final yet, from a
   * client declaring the extension, answers a task (its id the intent hash) that tasks/get follows.
   */
  era?: 'legacy' | 'modern' | undefined
  /**
   * The journal, for tasks/cancel (a claim withdrawn while nothing is signed) and for who created
   * a task; without it every task is refused cancel and update, nothing changed.
   */
  journal?: Pick<Journal, 'get' | 'withdraw'> | undefined
  /** The /mcp request's identity (an API key's short id, or `oauth:<iss>#<sub>`); undefined without a credential. */
  caller?: string | undefined
}

export function createMcpServer({
  callRoute,
  admitToolCall,
  version,
  tools: mcpTools,
  era = 'legacy',
  journal,
  caller,
}: CreateMcpServerParameters): Server {
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
  const byName = new Map<string, McpTool>(mcpTools.map((t) => [t.name, t]))
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
      ...Object.fromEntries(
        Object.entries(request.params._meta ?? {}).map(([name, value]) => [`_meta.${name}`, value]),
      ),
    })
    if (tooDeep)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${tooDeep.field} ${tooDeep.message}`, {
        errors: [tooDeep],
      })
    const tool = byName.get(request.params.name)
    if (!tool)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name} (the tools are: ${mcpTools.map((t) => t.name).join(', ')})`,
      )
    const errors = checkToolArguments(tool.inputSchema, args)
    const payment = request.params._meta?.['x402/payment']
    if (payment !== undefined && (typeof payment !== 'object' || payment === null || Array.isArray(payment))) {
      errors.push({ field: '_meta.x402/payment', message: 'must be an x402 PaymentPayload object' })
    }
    const idempotencyKey = request.params._meta?.[idempotencyKeyMeta]
    if (idempotencyKey !== undefined) {
      // The same words as the HTTP header's (one rule for both: idempotencyKeyProblem).
      const problem =
        tool.name === 'execute_intent' ? idempotencyKeyProblem(idempotencyKey) : 'is taken by execute_intent only'
      if (problem) errors.push({ field: `_meta.${idempotencyKeyMeta}`, message: problem })
    }
    // 2026-07-28's input required pattern: the same call again, answering what it asked for.
    const asksInput = era === 'modern' && (tool.name === 'execute_intent' || tool.name === 'validate_intent')
    // The SDK lifts the retry fields off the params: read them where it puts them.
    const retry = {
      inputResponses: ctx.mcpReq.inputResponses,
      requestState: ctx.mcpReq.requestState?.(),
      dropped: ctx.mcpReq.droppedInputResponseKeys,
    }
    const retried = asksInput ? toRetriedCall(tool.name, args, retry) : { args, errors: [] }
    errors.push(...retried.errors)
    if (errors.length > 0) return withoutRow(tool.name, badArguments(tool.name, errors))

    if (tool.name === 'explain_status') return explainStatus(String(args.code))
    const route = toRouteRequest(tool.name, retried.args)
    // An object (checked above); the route verifies it as a PaymentPayload, as it would a header's.
    const paymentSignature =
      retried.paymentSignature ?? (payment ? encodePaymentSignatureHeader(payment as PaymentPayload) : undefined)
    const answer = await callRoute({
      ...route,
      ...(paymentSignature ? { paymentSignature } : {}),
      ...(typeof idempotencyKey === 'string' ? { idempotencyKey } : {}),
    })
    if (asksInput && declaresElicitation(ctx)) {
      const inputRequired = toInputRequired(answer, toToolResult(answer, tool), tool.name)
      if (inputRequired) return inputRequired as unknown as CallToolResult
    }
    // Not final yet (202, 0xF3): a task to follow, for a client that takes tasks.
    const intentHash = answer.headers['x-intent-hash']
    if (
      era === 'modern' &&
      tool.name === 'execute_intent' &&
      toTaskState(answer) === 'working' &&
      typeof intentHash === 'string' &&
      declaresTasks(ctx)
    ) {
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
    // Only the identity that created the task (the journal keeps it with the claim), and only
    // while nothing is signed (cancelTask.ts: the race with the signer is settled by the journal).
    server.setRequestHandler('tasks/cancel', { params: taskParams }, async (params, ctx) => {
      const answer = await readTask(params, ctx)
      const taskId = params.taskId
      if (!journal) throw notCancellable(taskId, 'this gateway cannot withdraw a claim here', toTaskState(answer))
      const cancelled = await cancelTask({ journal, intentHash: taskId.toLowerCase() as Hex, caller })
      if (cancelled.ok) return cancelledTask(taskId)
      throw refusal(taskId, 'cancelled', cancelled)
    })
    // Input is given by calling the tool again (execute_intent with the signature, or with the
    // x402 payment in _meta["x402/payment"]), not through tasks/update: refused with nothing
    // changed, after the same creator check as tasks/cancel (a stranger learns nothing more).
    server.setRequestHandler('tasks/update', { params: taskParams }, async (params, ctx) => {
      await readTask(params, ctx)
      const record = await journal?.get(params.taskId.toLowerCase() as Hex)
      if (record?.apiKeyId === undefined) throw refusal(params.taskId, 'updated', { reason: 'keyless' })
      if (caller !== record.apiKeyId) throw refusal(params.taskId, 'updated', { reason: 'not-creator' })
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `tasks/update is not accepted: give a signature or a payment by calling execute_intent again (the payment in _meta["x402/payment"])`,
        {
          taskId: params.taskId,
        },
      )
    })
  }

  /** The route's answer for a task, after the checks every task method makes, in the extension's order. */
  async function readTask(params: { taskId: unknown }, ctx: ServerContext): Promise<RouteAnswer> {
    // The capability first: a client that did not declare the extension learns that, whatever it sent.
    if (!declaresTasks(ctx))
      throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [tasksExtension]: {} } } })
    const { taskId } = params
    if (typeof taskId !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(taskId))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'taskId must be an intent hash: 0x and 64 hex digits', {
        field: 'taskId',
      })
    const answer = await callRoute({ method: 'GET', url: `/intents/${taskId}` })
    if (answer.httpStatus === 404)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown task: ${taskId} (no execution of this intent was sent by this gateway)`,
        { field: 'taskId' },
      )
    return answer
  }

  return server
}

// Checked by readTask, after the capability: the schema only types the params.
const taskParams = fromJsonSchema<{ taskId: string }>({ type: 'object' })

/** A task withdrawn before anything was signed: no outcome is recorded, so its intent may run later. */
function cancelledTask(taskId: string): Record<string, unknown> {
  const at = new Date().toISOString()
  return {
    taskId,
    status: 'cancelled',
    statusMessage:
      'cancelled before anything was signed: no outcome is recorded, the intent (its nonce unused) may be executed later, and a payment settled for it stays its credit',
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs: 0,
  }
}

function notCancellable(taskId: string, why: string, status: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${taskId} is not cancellable: ${why}`, {
    taskId,
    status,
  })
}

/** Why a task is not cancelled (or updated), as a JSON-RPC error; nothing was changed. */
function refusal(
  taskId: string,
  what: 'cancelled' | 'updated',
  { reason, state }: { reason: string; state?: string | undefined },
): ProtocolError {
  switch (reason) {
    case 'keyless':
      return new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${taskId} cannot be ${what}: it was created without a credential, so nobody can show they created it`,
        { taskId, reason },
      )
    case 'not-creator':
      return new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${taskId} can be ${what} only by the API key or OAuth identity that created it`,
        { taskId, reason },
      )
    case 'unknown':
      return new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown task: ${taskId} (no execution of this intent was sent by this gateway)`,
        { taskId, reason },
      )
    default:
      return notCancellable(
        taskId,
        state === 'pending' || state === 'mined'
          ? 'its transaction is signed and sent'
          : state === 'reverted'
            ? 'it reverted'
            : state === 'dropped'
              ? 'it was dropped'
              : `it is ${state}`,
        state === 'claimed' || state === 'pending' ? 'working' : state === 'mined' ? 'completed' : 'failed',
      )
  }
}

/** The request's envelope as the record it is on the wire: the SDK types it `Partial<{}>`, with no keys to read. */
function envelopeOf(ctx: ServerContext): Record<string, unknown> | undefined {
  return ctx.mcpReq.envelope
}

/** A client that can answer a form elicitation (2026-07-28: declared in the request's envelope; empty means form). */
function declaresElicitation(ctx: ServerContext): boolean {
  const capabilities = envelopeOf(ctx)?.['io.modelcontextprotocol/clientCapabilities'] as
    | { elicitation?: Record<string, unknown> }
    | undefined
  const elicitation = capabilities?.elicitation
  return (
    typeof elicitation === 'object' &&
    elicitation !== null &&
    (Object.keys(elicitation).length === 0 || elicitation.form !== undefined)
  )
}

function declaresTasks(ctx: ServerContext): boolean {
  const capabilities = envelopeOf(ctx)?.['io.modelcontextprotocol/clientCapabilities'] as
    | { extensions?: Record<string, unknown> }
    | undefined
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
      return chainId === undefined
        ? { method: 'GET', url: '/chains' }
        : { method: 'GET', url: `/chains/${encodeURIComponent(chainId)}` }
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
    httpMeaning:
      httpMeanings[entry.httpStatus] ??
      (entry.reserved ? 'a reserved code: the contract that returned it is at fault' : 'see GET /status-codes'),
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
  return toToolResult({
    httpStatus: 400,
    headers: { 'x-erc1066-status': status.hex },
    body: JSON.parse(JSON.stringify(body)),
  })
}
