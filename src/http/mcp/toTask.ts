// The MCP task of an execution (the Tasks extension, io.modelcontextprotocol/tasks, MCP
// 2026-07-28): its id is the intent hash; its state is read from GET /intents/{hash}'s answer,
// which comes from the journal (so any instance answers, after a restart too), mapped by the one
// status vocabulary (src/status/statusVocabulary.ts, docs/api-contract.md §18): 202 (0xF3, pending
// or mined but not final) → working, 200 (0x11, final) → completed, a code asking the client for
// something (0xE5 a signature, 0x52 and 0x55 a payment, 0x15 a permission) → input_required, any
// other refusal (0x20 too early, a 202, included) or a revert → failed.
import type { CallToolResult } from '@modelcontextprotocol/server'
import { statusVocabulary, type TaskState } from '../../status/statusVocabulary.ts'
import type { McpTool } from './mcpTools.ts'
import { type RouteAnswer, toToolResult } from './toToolResult.ts'

export const tasksExtension = 'io.modelcontextprotocol/tasks'

export type { TaskState }

/** How long a task is kept: an execution stays in the journal (RETENTION) far longer; a day is what we promise. */
const ttlMs = 24 * 60 * 60 * 1000

export function toTaskState(answer: RouteAnswer): TaskState {
  const code = Number.parseInt(String(answer.headers['x-erc1066-status'] ?? '').slice(2), 16)
  // An answer without a code (a framework's own error): by its HTTP status alone.
  if (Number.isNaN(code))
    return answer.httpStatus === 202 ? 'working' : answer.httpStatus === 200 ? 'completed' : 'failed'
  // 0x20 (too early) is a 202 too, but nothing runs: a retry once the window opens is a new execute (its row says failed).
  return statusVocabulary.taskStateOf(code, answer.httpStatus)
}

/**
 * The task as tasks/get (and a tools/call that created it) answers it: flat, `taskId` and `status`
 * at the top; once finished, the tool result inlined under `result` (a failure's too: the route's
 * problem, `isError: true`, says what went wrong, as the tool would have answered).
 */
export function toTask(
  intentHash: string,
  answer: RouteAnswer,
  tool: McpTool | undefined,
  now = new Date(),
): Record<string, unknown> {
  const status = toTaskState(answer)
  const result: CallToolResult = toToolResult(answer, tool)
  const body = (answer.body ?? {}) as { detail?: unknown }
  // The journal keeps no times the route reports: both are the time of this answer.
  const at = now.toISOString()
  return {
    taskId: intentHash,
    status,
    ...(typeof body.detail === 'string' ? { statusMessage: body.detail } : {}),
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs,
    pollIntervalMs: 1000,
    ...(status === 'working' ? {} : { result }),
  }
}
