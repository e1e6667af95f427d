// What this gateway has executed, in memory: the record behind GET /intents/{intentHash} and the
// guard that keeps one intent, or one (sender, nonce), from being sent twice at the same time.
import type { Hex } from 'viem'
import type { ExecutionState } from './intentOutcome.ts'

export type IntentRecord = {
  intentHash: Hex
  chainId: string
  sender: string
  nonce: bigint
  state: ExecutionState
  status: number
  transactionHash: Hex | undefined
  blockNumber: bigint | undefined
  gasUsed: bigint | undefined
  returnData: Hex | undefined
  detail: string | undefined
  createdAt: Date
  updatedAt: Date
}

export type Claim =
  | { ok: true; record: IntentRecord }
  /** Someone else holds the intent or its (sender, nonce): here is their record. */
  | { ok: false; holder: IntentRecord }

export type IntentStore = {
  get(intentHash: Hex, chainId?: string): IntentRecord | undefined
  /** Claims the intent for one execution; fails while another execution of it is pending or done. */
  claim(params: { intentHash: Hex; chainId: string; sender: string; nonce: bigint }): Claim
  update(record: IntentRecord, patch: Partial<Omit<IntentRecord, 'intentHash' | 'chainId' | 'createdAt'>>): void
  /** Gives an unsent claim back, as if it had never been made. */
  release(record: IntentRecord): void
  size(): number
}

export function createIntentStore({ maxRecords = 100_000 }: { maxRecords?: number } = {}): IntentStore {
  const records = new Map<string, IntentRecord>()
  // (chain, sender, nonce) -> key of the record that holds it while pending or after it mined.
  const nonceHolders = new Map<string, string>()

  const key = (chainId: string, intentHash: Hex) => `${chainId} ${intentHash}`
  const nonceKey = (chainId: string, sender: string, nonce: bigint) => `${chainId} ${sender.toLowerCase()} ${nonce}`
  const holds = (r: IntentRecord) => r.state === 'pending' || r.state === 'mined'

  function evict() {
    // Oldest first; records still pending are what protects against double sends, keep them.
    for (const [k, r] of records) {
      if (records.size <= maxRecords) return
      if (r.state === 'pending') continue
      records.delete(k)
      const nk = nonceKey(r.chainId, r.sender, r.nonce)
      if (nonceHolders.get(nk) === k) nonceHolders.delete(nk)
    }
  }

  return {
    get(intentHash, chainId) {
      if (chainId) return records.get(key(chainId, intentHash))
      let latest: IntentRecord | undefined
      for (const r of records.values()) {
        if (r.intentHash === intentHash && (!latest || r.updatedAt >= latest.updatedAt)) latest = r
      }
      return latest
    },
    claim({ intentHash, chainId, sender, nonce }) {
      const k = key(chainId, intentHash)
      const existing = records.get(k)
      if (existing && holds(existing)) return { ok: false, holder: existing }
      const nk = nonceKey(chainId, sender, nonce)
      const holderKey = nonceHolders.get(nk)
      const holder = holderKey ? records.get(holderKey) : undefined
      if (holder && holds(holder)) return { ok: false, holder }

      const now = new Date()
      const record: IntentRecord = {
        intentHash, chainId, sender, nonce, state: 'pending', status: 0xf3,
        transactionHash: undefined, blockNumber: undefined, gasUsed: undefined, returnData: undefined, detail: undefined,
        createdAt: now, updatedAt: now,
      }
      records.delete(k) // re-insert so that eviction order stays oldest-first
      records.set(k, record)
      nonceHolders.set(nk, k)
      evict()
      return { ok: true, record }
    },
    update(record, patch) {
      Object.assign(record, patch, { updatedAt: new Date() })
    },
    release(record) {
      const k = key(record.chainId, record.intentHash)
      if (records.get(k) === record) records.delete(k)
      const nk = nonceKey(record.chainId, record.sender, record.nonce)
      if (nonceHolders.get(nk) === k) nonceHolders.delete(nk)
    },
    size: () => records.size,
  }
}
