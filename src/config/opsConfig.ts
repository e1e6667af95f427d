// The operator's console (GET /ops) and its switches: who may use them and what the page shows.
// Off unless OPS_API_KEYS is set or OAuth is on (a token granting ops:read / ops:write). Reads its
// own variables and reports its own problems, for loadConfig to compose.
import { hashApiKey } from '../crypto/hashApiKey.ts'
import { devnetApiKey } from './devnetApiKey.ts'
import { readInteger } from './readInteger.ts'

export type OpsConfig = {
  /** OPS_API_KEYS: SHA-256 hashes of the operators' keys (read and write); never an agent's key. */
  keyHashes: Buffer[]
  /** OPS_STUCK_AFTER_SECONDS: an intent in flight longer than this is marked stuck (default 120). */
  stuckAfterMs: number
  /** OPS_SETTLED_SHOWN: how many settled intents the page lists (default 20). */
  settledShown: number
  /** OPS_FEED_BUFFER: events a slow viewer may fall behind before it is sent a fresh snapshot instead (default 256). */
  feedBuffer: number
  /** OPS_POLL_MS: how often each instance reads the switches and the journal's change feed (default 500). */
  pollMs: number
}

export type OpsConfigResult = { value: OpsConfig; problems: string[] }

/**
 * OPS_API_KEYS: comma-separated keys (at least 16 characters each) or `sha256:<64 hex>`. A key that
 * is also in API_KEYS is refused: an agent's key must never open the console.
 */
export function opsConfig(
  env: Record<string, string | undefined>,
  { production, agentKeyHashes = [] }: { production: boolean; agentKeyHashes?: readonly Buffer[] },
): OpsConfigResult {
  const problems: string[] = []
  const keyHashes: Buffer[] = []
  const entries = (env.OPS_API_KEYS ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0)
  entries.forEach((entry, i) => {
    const hashed = /^sha256:([0-9a-fA-F]{64})$/.exec(entry)
    let hash: Buffer | undefined
    if (hashed) hash = Buffer.from(hashed[1]!, 'hex')
    else if (entry.startsWith('sha256:'))
      problems.push(`OPS_API_KEYS: entry ${i + 1} starts with sha256: but is not followed by 64 hex digits`)
    else if (entry.length < 16) problems.push(`OPS_API_KEYS: entry ${i + 1} is shorter than 16 characters`)
    else if (production && entry === devnetApiKey)
      problems.push(
        `OPS_API_KEYS: entry ${i + 1} is the devnet's public API key and is refused when NODE_ENV=production`,
      )
    else hash = hashApiKey(entry)
    if (!hash) return
    if (agentKeyHashes.some((h) => h.equals(hash)))
      problems.push(`OPS_API_KEYS: entry ${i + 1} is also one of API_KEYS: an operator's key must not be an agent's`)
    else keyHashes.push(hash)
  })
  const stuckAfterSeconds =
    readInteger(env, 'OPS_STUCK_AFTER_SECONDS', { min: 1, max: 86_400, fallback: 120 }, problems) ?? 120
  const settledShown = readInteger(env, 'OPS_SETTLED_SHOWN', { min: 1, max: 500, fallback: 20 }, problems) ?? 20
  const feedBuffer = readInteger(env, 'OPS_FEED_BUFFER', { min: 16, max: 10_000, fallback: 256 }, problems) ?? 256
  // Within the 2 s a switch has to reach every instance, with room for a slow round trip.
  const pollMs = readInteger(env, 'OPS_POLL_MS', { min: 50, max: 1_500, fallback: 500 }, problems) ?? 500
  return { value: { keyHashes, stuckAfterMs: stuckAfterSeconds * 1000, settledShown, feedBuffer, pollMs }, problems }
}
