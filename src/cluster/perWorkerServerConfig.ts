// The caps on what one process holds, for one of WORKERS processes: the primary hands connections
// to the workers in turn and each counts only its own, so a cap read as the whole gateway's
// (MAX_CONNECTIONS, MAX_CONNECTIONS_PER_CLIENT, the event stream bounds) is divided among them,
// rounded down (at least 1): N workers together never allow more than the setting.
import type { ServerConfig } from '../config/gatewayConfig.ts'

export function perWorkerServerConfig(server: ServerConfig, workers: number): ServerConfig {
  if (workers <= 1) return server
  const share = (value: number) => Math.max(1, Math.floor(value / workers))
  return {
    ...server,
    maxConnections: share(server.maxConnections),
    maxConnectionsPerClient: share(server.maxConnectionsPerClient),
    eventStreams: {
      maxPerClient: share(server.eventStreams.maxPerClient),
      maxPerIntent: share(server.eventStreams.maxPerIntent),
      max: share(server.eventStreams.max),
    },
  }
}
