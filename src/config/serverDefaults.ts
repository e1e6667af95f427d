// The HTTP server's limits when no setting names them: loadConfig's fallbacks for
// REQUEST_TIMEOUT_MS, IDLE_TIMEOUT_MS, MAX_CONNECTIONS and MAX_CONNECTIONS_PER_CLIENT. buildApp
// adds no defaults of its own (it reads the configuration loadConfig made): before, a per-client
// cap of 64 in production and 512 for whoever called buildApp without one.
export const serverDefaults = {
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 5_000,
  maxConnections: 512,
  maxConnectionsPerClient: 64,
} as const
