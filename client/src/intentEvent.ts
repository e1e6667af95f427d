// One event of an execution, as GET /intents/{intentHash}/events streams it (and webhooks deliver it).

export type IntentEventType = 'submitted' | 'repriced' | 'mined' | 'final' | 'reverted' | 'dropped' | 'reorged'

export type IntentEvent = {
  /** Unique per event and the same on every read: deduplicate by it. */
  id: string
  type: IntentEventType
  intentHash: string
  chainId: string
  state: 'pending' | 'mined' | 'reverted' | 'dropped'
  transactionHash?: string | undefined
  /** Decimal string. */
  blockNumber?: string | undefined
  attempt: number
  /** ISO time the gateway's journal recorded it. */
  at: string
}
