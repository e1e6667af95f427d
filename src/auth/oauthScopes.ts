// The scopes an OAuth access token may grant: each is one thing an API key may do today.
export const oauthScopes = [
  /** POST /intents/validate (and the MCP validate tool). */
  'intents:validate',
  /** POST /intents/execute (and the MCP execute tool). */
  'intents:execute',
  /** The operator's console: reading. */
  'ops:read',
  /** The operator's console: acting. */
  'ops:write',
] as const

export type OAuthScope = (typeof oauthScopes)[number]
