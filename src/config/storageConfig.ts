// What several gateway instances share besides the journal (whose engine reads its own settings:
// src/storageEngines.ts): the rate limits in Redis (REDIS_URL) instead of each process's memory,
// the name each instance goes by (INSTANCE_ID), retention and the relayer leases' term. Reads its
// own variables and reports its own problems, for loadConfig to compose.
import { hostname } from 'node:os'

export type StorageConfig = {
  /** REDIS_URL: rate limits counted in Redis, shared by every instance; undefined: in memory. */
  redisUrl: string | undefined
  /**
   * REDIS_PREFIX: what every key this gateway writes in Redis starts with (default
   * `intent-gateway:`); gateways that must not share counts (another deployment, a test run) use another.
   */
  redisPrefix: string
  /**
   * RETENTION_DAYS: how long executions and payments settled for good are kept in the journal
   * (default 30; 0 keeps them forever). A pruned intent is no longer replayed from the journal.
   */
  retentionDays: number
  /** INSTANCE_ID: how /health names this instance (default: host name and process id). */
  instanceId: string
  /** RELAYER_LEASE_TTL_MS: with a shared journal (DATABASE_URL), how long an instance's hold on a relayer key lasts unless renewed (default 15 s). */
  relayerLeaseTtlMs: number
}

export type StorageConfigResult = { value: StorageConfig; problems: string[] }

export function storageConfig(env: Record<string, string | undefined>): StorageConfigResult {
  const problems: string[] = []
  const redisUrl = env.REDIS_URL?.trim() || undefined
  if (redisUrl !== undefined && !hasScheme(redisUrl, ['redis:', 'rediss:']))
    problems.push('REDIS_URL: must be a Redis URL, redis://host:6379 (or rediss:// for TLS)')
  const redisPrefix = env.REDIS_PREFIX?.trim() || 'intent-gateway:'
  if (!/^[\w.:-]{1,64}$/.test(redisPrefix)) problems.push('REDIS_PREFIX: 1 to 64 letters, digits, ".", "_", ":" or "-"')
  const retentionRaw = env.RETENTION_DAYS?.trim()
  const retentionDays = retentionRaw ? Number(retentionRaw) : 30
  if (!/^[0-9]{1,5}$/.test(retentionRaw ?? '30') || retentionDays > 36_500)
    problems.push('RETENTION_DAYS: a whole number of days from 0 (keep forever) to 36500')
  const instanceId = env.INSTANCE_ID?.trim() || `${hostname()}-${process.pid}`
  if (!/^[\w.:-]{1,64}$/.test(instanceId)) problems.push('INSTANCE_ID: 1 to 64 letters, digits, ".", "_", ":" or "-"')
  const ttlRaw = env.RELAYER_LEASE_TTL_MS?.trim()
  const relayerLeaseTtlMs = ttlRaw ? Number(ttlRaw) : 15_000
  if (!Number.isInteger(relayerLeaseTtlMs) || relayerLeaseTtlMs < 1_000 || relayerLeaseTtlMs > 600_000)
    problems.push('RELAYER_LEASE_TTL_MS: an integer number of milliseconds from 1000 to 600000')
  return { value: { redisUrl, redisPrefix, retentionDays, instanceId, relayerLeaseTtlMs }, problems }
}

function hasScheme(url: string, schemes: string[]): boolean {
  try {
    return schemes.includes(new URL(url).protocol)
  } catch {
    return false
  }
}
