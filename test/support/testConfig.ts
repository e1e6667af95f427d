// A gateway configuration for tests: the defaults loadConfig reads from an empty environment (the
// one place defaults live), with the groups a test sets laid over them, each group merged a level
// deep (`{ execution: { receiptTimeoutMs: 200 } }` keeps the other execution settings).
import type { GatewayConfig } from '../../src/config/gatewayConfig.ts'
import { loadConfig } from '../../src/runtimes.ts'

type Group =
  | 'process'
  | 'server'
  | 'rpc'
  | 'keys'
  | 'execution'
  | 'storage'
  | 'auth'
  | 'rateLimit'
  | 'limits'
  | 'storageOptions'
  | 'runtimeOptions'
  | 'interfaces'

/** A test's settings: whole values, or part of a group. */
export type ConfigOverrides = {
  [K in keyof GatewayConfig]?: K extends Group ? Partial<GatewayConfig[K]> : GatewayConfig[K]
}

const groups: readonly Group[] = [
  'process',
  'server',
  'rpc',
  'keys',
  'execution',
  'storage',
  'auth',
  'rateLimit',
  'limits',
  'storageOptions',
  'runtimeOptions',
  'interfaces',
]

export function testConfig(overrides: ConfigOverrides): GatewayConfig {
  const config: GatewayConfig = loadConfig({})
  const merged: Record<string, unknown> = { ...config }
  for (const [name, value] of Object.entries(overrides)) {
    merged[name] =
      groups.includes(name as Group) && value !== undefined
        ? { ...(config[name as Group] as object), ...(value as object) }
        : value
  }
  return merged as GatewayConfig
}
