// Account mode's issued transaction messages (agent as signer, relayer as fee payer), by intent
// hash: the gateway co-signs only a message byte-identical to one it issued, and only until the
// block height its blockhash lives to. Kept in this process: an agent sends its signature back to
// the instance that issued the message (another instance answers 401 0xE5 with a message of its
// own, and signs nothing). Bounded: the oldest message goes first when it is full, so unsigned
// requests cannot grow it without limit (an evicted agent is asked to sign a fresh message).
export type IssuedMessage = {
  /** The compiled transaction message the agent signs, exactly as issued. */
  messageBytes: Uint8Array
  /** The block height up to which its blockhash lets it land. */
  lastValidBlockHeight: bigint
  blockhash: string
  /** The compute budget the gateway chose for it (journal details). */
  computeUnitLimit: string
  computeUnitPrice: string
}

export type IssuedMessages = {
  get(intentHash: string): IssuedMessage | undefined
  put(intentHash: string, message: IssuedMessage): void
  /** Forgets every message whose blockhash expired at `height`. */
  prune(height: bigint): void
  readonly size: number
}

export function createIssuedMessages({ capacity = 10_000 }: { capacity?: number } = {}): IssuedMessages {
  const messages = new Map<string, IssuedMessage>()
  return {
    get: (intentHash) => messages.get(intentHash),
    put(intentHash, message) {
      messages.delete(intentHash)
      messages.set(intentHash, message)
      while (messages.size > capacity) messages.delete(messages.keys().next().value as string)
    },
    prune(height) {
      for (const [hash, message] of messages) if (height > message.lastValidBlockHeight) messages.delete(hash)
    },
    get size() {
      return messages.size
    },
  }
}
