// The settings of the interfaces for operators and agents: Prometheus metrics (on or off, on the
// API's port or one of their own, a scrape token) and the MCP server. Reads its own variables and
// reports its own problems, for loadConfig to compose with the others ("every problem at once").
import { readBoolean } from './readBoolean.ts'
export type InterfacesConfig = {
  metrics: {
    /** METRICS_ENABLED (default true): off, nothing is recorded and GET /metrics is 404. */
    enabled: boolean
    /** METRICS_PORT: serve GET /metrics on this port only (createMetricsServer), not on the API's. */
    port: number | undefined
    /** METRICS_HOST: the address the metrics port listens on (default: HOST, else 0.0.0.0). */
    host: string
    /** METRICS_TOKEN: when set, a scrape needs `Authorization: Bearer <token>`. */
    token: string | undefined
  }
  mcp: {
    /** MCP_ENABLED (default true): the MCP server at POST /mcp. */
    enabled: boolean
  }
}

export type InterfacesConfigResult = { value: InterfacesConfig; problems: string[] }

const minTokenLength = 16

export function interfacesConfig(env: Record<string, string | undefined>): InterfacesConfigResult {
  const problems: string[] = []
  const enabled = readBoolean(env, 'METRICS_ENABLED', problems, true)
  const port = readPort(env, 'METRICS_PORT', problems)
  const host = env.METRICS_HOST?.trim() || env.HOST?.trim() || '0.0.0.0'
  const token = env.METRICS_TOKEN?.trim() || undefined
  if (token !== undefined && token.length < minTokenLength)
    problems.push(`METRICS_TOKEN: is shorter than ${minTokenLength} characters`)
  if (!enabled) {
    for (const name of ['METRICS_PORT', 'METRICS_HOST', 'METRICS_TOKEN']) {
      if (env[name]?.trim())
        problems.push(`${name}: is set but METRICS_ENABLED is false (remove it, or turn the metrics on)`)
    }
  }
  const apiPort = env.PORT?.trim()
  if (port !== undefined && apiPort && Number(apiPort) === port)
    problems.push(
      `METRICS_PORT: ${port} is the API's PORT; choose another port, or leave METRICS_PORT unset to serve /metrics on the API's port`,
    )
  if (port === undefined && env.METRICS_HOST?.trim())
    problems.push("METRICS_HOST: is set but METRICS_PORT is not (the metrics are served on the API's port and host)")
  const mcpEnabled = readBoolean(env, 'MCP_ENABLED', problems, true)
  return { value: { metrics: { enabled, port, host, token }, mcp: { enabled: mcpEnabled } }, problems }
}

function readPort(env: Record<string, string | undefined>, name: string, problems: string[]): number | undefined {
  const raw = env[name]?.trim()
  if (!raw) return undefined
  const value = Number(raw)
  if (!/^[0-9]+$/.test(raw) || value < 1 || value > 65535) {
    problems.push(`${name}: "${raw.slice(0, 20)}" is not an integer between 1 and 65535`)
    return undefined
  }
  return value
}
