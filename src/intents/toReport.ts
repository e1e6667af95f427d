// An execution record as the API reports it (execute's answer, GET /intents/{intentHash}).
import type { ChainAdapter } from '../ports/chainAdapter.ts'
import type { ExecutionReport } from '../ports/intentOutcome.ts'
import type { ExecutionRecord } from '../ports/journal.ts'

/**
 * The execution as reported. `final` says whether a mined or reverted outcome is deep enough
 * (CONFIRMATIONS) to be relied on; `confirmationsRequired` is the chain's depth.
 */
export function toReport(record: ExecutionRecord, adapter?: Pick<ChainAdapter, 'confirmations'>): ExecutionReport {
  const settled = record.state === 'mined' || record.state === 'reverted'
  return {
    state: record.state === 'claimed' ? 'pending' : record.state,
    transactionHash: record.transaction?.id,
    blockNumber: record.blockNumber,
    gasUsed: record.gasUsed,
    returnData: record.returnData,
    final: record.state === 'dropped' || (settled && record.final),
    ...(adapter?.confirmations !== undefined && adapter.confirmations > 1
      ? { confirmationsRequired: adapter.confirmations }
      : {}),
  }
}
