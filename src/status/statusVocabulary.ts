// The one status vocabulary (docs/api-contract.md §18) as data: for each ERC-1066 code the gateway
// answers, the MCP task state, the x402 settlement word and the `relayer_*` status code a
// Gelato-style client expects; for each execution state, the same words. toTask (MCP), GET
// /intents/{hash}, the events and the OpenAPI document all read it here, and
// test/house/statusVocabulary.test.ts holds the table in the docs to it, so the words cannot drift
// apart. The HTTP status and the name of a code stay in statusCodes.ts (one place for them).
import { getStatusCode } from './statusCodes.ts'

export type TaskState = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'
export type RelayerStatus = 100 | 110 | 200 | 400 | 500
/** What became of an x402 payment; undefined where no payment is asked. */
export type X402Settlement = 'offer' | 'settled' | 'settlement_pending' | 'credited' | 'not charged'

/** One code's words: `taskNote` qualifies the task state (the docs write it in brackets). */
export type CodeWords = {
  taskState: TaskState
  taskNote?: string
  x402: string | undefined
  relayer: RelayerStatus | undefined
}

/** The words of an answer or an execution, as GET /intents/{hash} and the events carry them. */
export type StatusWords = {
  taskState: TaskState
  relayerStatus: RelayerStatus | undefined
  relayerMeaning: string | undefined
  x402Settlement?: X402Settlement | undefined
}

const relayerMeanings: Record<RelayerStatus, string> = {
  100: 'pending: the relay took the request; nothing is on chain yet',
  110: 'submitted: a transaction is broadcast, not yet included',
  200: 'included and successful',
  400: 'rejected: the relay did not and will not include it (refused before anything was sent)',
  500: 'reverted: included, and it reverted',
}

const refused = (taskState: TaskState = 'failed', taskNote?: string): CodeWords => ({
  taskState,
  ...(taskNote ? { taskNote } : {}),
  x402: 'not charged',
  relayer: 400,
})

/** §18 "Codes": every code the gateway answers. Another code: failed unless 2xx (§18, last paragraph). */
const codes: Record<number, CodeWords> = {
  0x00: refused(),
  0x01: { taskState: 'completed', taskNote: 'validate', x402: undefined, relayer: undefined },
  0x06: refused(),
  0x10: refused(),
  0x11: { taskState: 'completed', x402: 'settled', relayer: 200 },
  0x14: refused(),
  0x15: refused('input_required'),
  0x16: refused(),
  0x20: refused('failed', 'retry after the window opens'),
  0x21: refused(),
  0x22: refused(),
  0x40: refused('failed', 'retry'),
  0x42: refused('failed', 'retry'),
  0x44: { taskState: 'working', x402: undefined, relayer: 100 },
  0x46: refused(),
  0x50: { taskState: 'failed', x402: 'settled (the attempt was bought)', relayer: 500 },
  0x52: { taskState: 'input_required', x402: 'offer', relayer: 400 },
  0x54: refused(),
  0x55: { taskState: 'input_required', x402: 'offer', relayer: 400 },
  0xa0: refused(),
  0xa1: refused(),
  0xa2: refused(),
  0xa8: refused(),
  0xe4: refused(),
  0xe5: refused('input_required'),
  0xf0: { taskState: 'failed', x402: 'not charged, or credited once settled', relayer: 400 },
  0xf3: { taskState: 'working', x402: 'settled, or `settlement_pending`', relayer: 110 },
  0xf4: refused('failed', 'retry'),
  0xf6: refused('failed', 'retry'),
  0xf8: refused(),
}

export type ExecutionStateWords = {
  state: string
  final?: boolean
  eventTypes: readonly string[]
  taskState: TaskState
  relayer: RelayerStatus
}

/** §18 "Execution states": a journal record's state (claimed: nothing signed yet) and what it is called elsewhere. */
const executionStates: readonly ExecutionStateWords[] = [
  { state: 'claimed', eventTypes: [], taskState: 'working', relayer: 100 },
  { state: 'pending', eventTypes: ['submitted', 'repriced', 'reorged'], taskState: 'working', relayer: 110 },
  { state: 'mined', final: false, eventTypes: ['mined'], taskState: 'working', relayer: 110 },
  { state: 'mined', final: true, eventTypes: ['final'], taskState: 'completed', relayer: 200 },
  { state: 'reverted', final: false, eventTypes: ['reverted'], taskState: 'working', relayer: 500 },
  { state: 'reverted', final: true, eventTypes: ['final'], taskState: 'failed', relayer: 500 },
  { state: 'dropped', eventTypes: ['dropped'], taskState: 'failed', relayer: 400 },
]

function wordsOf(
  taskState: TaskState,
  relayer: RelayerStatus | undefined,
  x402Settlement?: X402Settlement,
): StatusWords {
  return {
    taskState,
    relayerStatus: relayer,
    relayerMeaning: relayer === undefined ? undefined : relayerMeanings[relayer],
    ...(x402Settlement ? { x402Settlement } : {}),
  }
}

export const statusVocabulary = {
  relayerMeanings,
  executionStates,
  /** The table's row of a code, or undefined for a code the gateway does not answer. */
  row(code: number): CodeWords | undefined {
    return codes[code]
  },
  /** Every code with a row, in order. */
  codes(): number[] {
    return Object.keys(codes)
      .map(Number)
      .sort((a, b) => a - b)
  },
  /** The MCP task state of an answer with this code (another code: by its HTTP status, §18). */
  taskStateOf(code: number, httpStatus = getStatusCode(code).httpStatus): TaskState {
    const row = codes[code]
    if (row) return row.taskState
    return httpStatus === 200 ? 'completed' : httpStatus === 202 ? 'working' : 'failed'
  },
  /** The words of an answer with this code (a refusal or an outcome), as a client of each ecosystem reads it. */
  ofCode(code: number, x402Settlement?: X402Settlement): StatusWords {
    const row = codes[code]
    const httpStatus = getStatusCode(code).httpStatus
    return wordsOf(
      statusVocabulary.taskStateOf(code, httpStatus),
      row ? row.relayer : httpStatus >= 400 ? 400 : undefined,
      x402Settlement,
    )
  },
  /** The words of a journal record's state (`final`: settled deep enough, CONFIRMATIONS). */
  ofExecution(state: string, final: boolean, x402Settlement?: X402Settlement): StatusWords {
    const row = executionStates.find((s) => s.state === state && (s.final === undefined || s.final === final))
    return row ? wordsOf(row.taskState, row.relayer, x402Settlement) : wordsOf('failed', 400, x402Settlement)
  },
  /** The words of an execution event (events and webhooks): its type, and the record's state (`final` is mined or reverted). */
  ofEvent(type: string, state: string): StatusWords {
    const row = executionStates.find((s) => s.eventTypes.includes(type) && (type !== 'final' || s.state === state))
    return row ? wordsOf(row.taskState, row.relayer) : statusVocabulary.ofExecution(state, false)
  },
  /** An x402 payment's state (the ledger's, or `settlement_pending`) as §18 words it. */
  ofPayment(state: string): X402Settlement {
    if (state === 'consumed') return 'settled'
    if (state === 'settled') return 'credited'
    if (state === 'settlement_pending') return 'settlement_pending'
    return 'not charged'
  },
}
