// Execute: validate and simulate, send nothing unless both pass, then send through the relayer
// and wait a bounded time for the receipt. The store keeps one intent from running twice.
import type { Hex } from 'viem'
import type { ChainAdapter, ExecutionReceipt } from '../chains/chainAdapter.ts'
import { Status } from '../status/statusCodes.ts'
import type { IntentRecord, IntentStore } from './createIntentStore.ts'
import type { Intent } from './intent.ts'
import type { ExecutionReport, IntentOutcome } from './intentOutcome.ts'

export type ExecuteIntentParameters = {
  adapter: ChainAdapter
  intent: Intent
  intentHash: Hex
  store: IntentStore
  receiptTimeoutMs: number
  /** Told about faults that happen after the response was sent (receipt polling failures). */
  onBackgroundError?: (err: unknown, record: IntentRecord) => void
}

export async function executeIntent({ adapter, intent, intentHash, store, receiptTimeoutMs, onBackgroundError }: ExecuteIntentParameters): Promise<IntentOutcome> {
  const outcome = (status: number, detail?: string, execution?: ExecutionReport): IntentOutcome => ({
    status, intentHash, chainId: adapter.chainId, chainType: adapter.chainType, detail, execution,
  })

  if (!adapter.canExecute) return outcome(Status.UNSUPPORTED_ACTION, `no relayer is configured for chain ${adapter.chainId}, so this gateway cannot execute on it (set RELAYER_PRIVATE_KEY)`)

  const claim = store.claim({ intentHash, chainId: adapter.chainId, sender: intent.sender, nonce: intent.nonce })
  if (!claim.ok) {
    const { holder } = claim
    const sameIntent = holder.intentHash === intentHash
    const what = sameIntent ? 'this intent' : `an intent with the same sender and nonce (${holder.intentHash})`
    return holder.state === 'pending'
      ? outcome(Status.IN_FLIGHT, `${what} is already being executed`, toReport(holder))
      : outcome(Status.NONCE_USED, `${what} was already executed`, toReport(holder))
  }
  const record = claim.record

  let submission
  try {
    const preflight = await adapter.prepareExecution(intent)
    if (!preflight.ok) {
      store.release(record)
      return outcome(preflight.status, preflight.detail)
    }
    submission = await preflight.send()
  } catch (err) {
    store.release(record)
    throw err
  }

  store.update(record, { transactionHash: submission.transactionHash })
  const settled = submission.receipt.then(
    (receipt) => {
      store.update(record, fromReceipt(receipt))
      return receipt
    },
    (err: unknown) => {
      store.update(record, { state: 'failed', status: Status.GATEWAY_FAILURE, detail: 'the receipt could not be obtained' })
      onBackgroundError?.(err, record)
      throw err
    },
  )

  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), receiptTimeoutMs)
  })
  try {
    const receipt = await Promise.race([settled, timeout])
    if (!receipt) return outcome(Status.SUBMITTED, `the transaction was sent but not mined within ${receiptTimeoutMs} ms; poll the Location for its state`, toReport(record))
    return outcome(receipt.status, receipt.detail, toReport(record))
  } finally {
    clearTimeout(timer)
    settled.catch(() => undefined) // reported through onBackgroundError
  }
}

function fromReceipt(receipt: ExecutionReceipt): Partial<IntentRecord> {
  return {
    state: receipt.state,
    status: receipt.status,
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    returnData: receipt.returnData,
    detail: receipt.detail,
  }
}

export function toReport(record: IntentRecord): ExecutionReport {
  return {
    state: record.state,
    transactionHash: record.transactionHash,
    blockNumber: record.blockNumber,
    gasUsed: record.gasUsed,
    returnData: record.returnData,
  }
}
