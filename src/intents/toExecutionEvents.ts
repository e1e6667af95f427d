// An execution's events, read from its journal records (any instance can tell them: they come from
// the shared journal, not from the instance that sent it). Each event id is derived from what it
// reports, so the same event has the same id on every read and every instance: receivers
// deduplicate by it, and a stream resumes after the last id it delivered.
import type { ExecutionRecord } from '../ports/journal.ts'
import { type StatusWords, statusVocabulary } from '../status/statusVocabulary.ts'

export type ExecutionEventType = 'submitted' | 'repriced' | 'mined' | 'final' | 'reverted' | 'dropped' | 'reorged'

export type ExecutionEvent = {
  id: string
  type: ExecutionEventType
  intentHash: string
  chainId: string
  /** The record's state when the event happened. */
  state: 'pending' | 'mined' | 'reverted' | 'dropped'
  transactionHash?: string | undefined
  blockNumber?: string | undefined
  attempt: number
  /** ISO time the journal recorded it. */
  at: string
  /** The same event in the other ecosystems' words (MCP task state, `relayer_*` code and its meaning), docs/api-contract.md §18. */
  statusWords: StatusWords
}

/** A replaced attempt's detail (EVM re-priced, Solana re-signed): its successor is a `repriced` event, not a new submission. */
const replacedDetail = /^(re-priced|re-signed|replaced by attempt)/

/** The events the records (all attempts of one intent on one chain, first to last) show now, in order. */
export function toExecutionEvents(records: readonly ExecutionRecord[]): ExecutionEvent[] {
  const events: Array<Omit<ExecutionEvent, 'statusWords'>> = []
  records.forEach((record, i) => {
    if (!record.transaction) return // claimed: nothing signed yet
    const base = {
      intentHash: record.intentHash,
      chainId: record.chainId,
      attempt: record.attempt,
      transactionHash: record.transaction.id,
      at: record.updatedAt.toISOString(),
    }
    // Unique across intents and chains (webhook receivers deduplicate by it), the same on every read.
    const id = (...parts: string[]) => [record.chainId, record.intentHash, record.attempt, ...parts].join(':')
    const previous = records[i - 1]
    const repriced = previous?.state === 'dropped' && replacedDetail.test(previous.detail ?? '')
    const sent: ExecutionEventType = repriced ? 'repriced' : 'submitted'
    events.push({
      ...base,
      id: id(sent, record.transaction.id),
      type: sent,
      state: 'pending',
      at: record.createdAt.toISOString(),
    })
    const block = record.blockNumber?.toString()
    const where = record.blockHash ?? block ?? ''
    if (record.state === 'mined' || record.state === 'reverted') {
      events.push({ ...base, id: id(record.state, where), type: record.state, state: record.state, blockNumber: block })
      if (record.final)
        events.push({ ...base, id: id('final', where), type: 'final', state: record.state, blockNumber: block })
    }
    // A replaced attempt is not the intent's end: its successor follows.
    const next = records[i + 1]
    if (record.state === 'dropped' && !(next && replacedDetail.test(record.detail ?? ''))) {
      events.push({ ...base, id: id('dropped'), type: 'dropped', state: 'dropped', blockNumber: block })
    }
  })
  return events.map((event) => ({ ...event, statusWords: statusVocabulary.ofEvent(event.type, event.state) }))
}

/** Whether the intent's events have ended: its last attempt is final (mined or reverted) or dropped. */
export function isFinished(records: readonly ExecutionRecord[]): boolean {
  const last = records.at(-1)
  if (!last) return false
  return last.state === 'dropped' || ((last.state === 'mined' || last.state === 'reverted') && last.final)
}
