// Whose an Idempotency-Key is: two callers' "1" never meet. A caller that authenticated is its API
// key (its short id) or its OAuth identity (`oauth:<iss>#<sub>`), as rate limits and webhooks know
// it; a caller without either is the intent's sender (an intent only runs with its sender's
// signature, so a key recorded under a sender was recorded by a request that ran the sender's own
// signed intent).

export type IdempotencyScopeParameters = {
  /** The request's authenticated identity (request.apiKeyId): an API key's short id, or `oauth:<iss>#<sub>`. */
  apiKeyId: string | undefined
  /** The intent's sender, as the request wrote it. */
  sender: string
}

export function idempotencyScope({ apiKeyId, sender }: IdempotencyScopeParameters): string {
  if (apiKeyId !== undefined) return `key:${apiKeyId}`
  // Hex addresses (EVM, Sui) are case-insensitive; base58 keys (Solana) are not.
  return `sender:${sender.startsWith('0x') ? sender.toLowerCase() : sender}`
}
