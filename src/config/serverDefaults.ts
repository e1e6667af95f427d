// The HTTP server's limits when no setting names them, in one place: loadConfig's fallbacks for
// REQUEST_TIMEOUT_MS, IDLE_TIMEOUT_MS, MAX_CONNECTIONS and MAX_CONNECTIONS_PER_CLIENT, and what
// buildApp takes when its caller leaves one out (a test, an embedding), so that the two never
// differ (before, a per-client cap of 64 in production and 512 for whoever called buildApp).
export const serverDefaults = {
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 5_000,
  maxConnections: 512,
  maxConnectionsPerClient: 64,
} as const
