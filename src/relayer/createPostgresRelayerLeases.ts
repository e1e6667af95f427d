// Relayer keys leased to gateway instances through the shared PostgreSQL journal database: an
// instance owns a key's nonce sequence while its lease lives. Each instance keeps a seat among the
// instances that claim the same keys on a chain (renewed with its leases), and holds its share of
// the keys by rank among the live seats (relayerShare: ⌊K/N⌋ or ⌈K/N⌉). It takes free keys (never
// leased, given back, or whose lease expired: its holder died) up to its share, renews those it
// holds up to it, and gives back the rest once its pool has stopped sending from them. Claims on
// one chain are serialized by a transaction lock, so two instances never take the same free key.
// Expiry is judged by the database's clock; the local expiry is counted from before the round
// trip, so it never outlives the database's.
import { createHash } from 'node:crypto'
import pg from 'pg'
import type { RelayerLease, RelayerLeases } from './relayerLeases.ts'
import { relayerShare } from './relayerShare.ts'

export type CreatePostgresRelayerLeasesParameters = {
  url: string
  instanceId: string
  /** How long a lease lives unless renewed; default 15 s. */
  ttlMs?: number
}

export function createPostgresRelayerLeases({ url, instanceId, ttlMs = 15_000 }: CreatePostgresRelayerLeasesParameters): RelayerLeases & { close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 })
  pool.on('error', () => {})
  const ttl = `${ttlMs} milliseconds`
  // Keys this instance was last told it holds, per chain: a key held again after a gap is `acquired` (its nonce read again).
  const heldBefore = new Map<string, Set<string>>()

  return {
    instanceId,
    ttlMs,
    async claim(chainId, relayers, { release = [] } = {}) {
      const asked = Date.now()
      // The seats live in the leases table under a name no address can take: instances that
      // claim another list of keys on the chain (each its own key) do not share with these.
      const keySet = createHash('sha256').update([...relayers].map((r) => r.toLowerCase()).sort().join(',')).digest('hex').slice(0, 16)
      const seats = `seat ${keySet} `
      const client = await pool.connect()
      let held: string[]
      try {
        await client.query('BEGIN')
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`relayer-leases ${chainId}`])
        await client.query(`INSERT INTO gateway_instances (instance_id, expires_at) VALUES ($1, now() + $2::interval) ON CONFLICT (instance_id) DO UPDATE SET expires_at = EXCLUDED.expires_at`, [instanceId, ttl])
        await client.query(
          `INSERT INTO relayer_leases (chain_id, relayer, instance_id, expires_at) VALUES ($1, $2, $3, now() + $4::interval)
           ON CONFLICT (chain_id, relayer) DO UPDATE SET instance_id = EXCLUDED.instance_id, expires_at = EXCLUDED.expires_at`,
          [chainId, `${seats}${instanceId}`, instanceId, ttl],
        )
        const live = (await client.query<{ instance_id: string }>(
          `SELECT instance_id FROM relayer_leases WHERE chain_id = $1 AND starts_with(relayer, $2) AND expires_at > now()`,
          [chainId, seats],
        )).rows.map((r) => r.instance_id)
        const share = relayerShare({ keys: relayers.length, instanceIds: live, instanceId })
        const rows = (await client.query<{ relayer: string; instance_id: string; live: boolean }>(
          'SELECT relayer, instance_id, expires_at > now() AS live FROM relayer_leases WHERE chain_id = $1 AND relayer = ANY($2)',
          [chainId, relayers],
        )).rows
        const mine = new Set(rows.filter((r) => r.instance_id === instanceId && r.live).map((r) => r.relayer))
        const taken = new Set(rows.filter((r) => r.live).map((r) => r.relayer))
        // Keep up to the share (the first ones, in the configured order), take free keys up to it.
        const keep = relayers.filter((r) => mine.has(r)).slice(0, share)
        const take = relayers.filter((r) => !taken.has(r)).slice(0, Math.max(share - keep.length, 0))
        held = [...keep, ...take]
        for (const relayer of held) {
          await client.query(
            `INSERT INTO relayer_leases (chain_id, relayer, instance_id, expires_at) VALUES ($1, $2, $3, now() + $4::interval)
             ON CONFLICT (chain_id, relayer) DO UPDATE SET instance_id = EXCLUDED.instance_id, expires_at = EXCLUDED.expires_at`,
            [chainId, relayer, instanceId, ttl],
          )
        }
        // Keys above the share are not renewed: the pool stops sending from them at once, and
        // names them in `release` at its next claim, once no send from them is under way.
        const giveBack = release.filter((r) => mine.has(r) && !held.includes(r))
        if (giveBack.length > 0) {
          await client.query('UPDATE relayer_leases SET expires_at = now() WHERE chain_id = $1 AND relayer = ANY($2) AND instance_id = $3', [chainId, giveBack, instanceId])
        }
        await client.query('COMMIT')
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {})
        throw err
      } finally {
        client.release()
      }
      const before = heldBefore.get(chainId) ?? new Set<string>()
      heldBefore.set(chainId, new Set(held))
      return held.map((relayer): RelayerLease => ({ chainId, relayer, expiresAt: asked + ttlMs, acquired: !before.has(relayer) }))
    },
    async holdExclusive(scope, key) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`relayer-leases ${scope}`])
        const holder = (await client.query<{ instance_id: string }>('SELECT instance_id FROM relayer_leases WHERE chain_id = $1 AND relayer = $2 AND expires_at > now()', [scope, key])).rows[0]?.instance_id
        if (holder !== undefined && holder !== instanceId) {
          await client.query('COMMIT')
          return { held: false, holder }
        }
        await client.query(
          `INSERT INTO relayer_leases (chain_id, relayer, instance_id, expires_at) VALUES ($1, $2, $3, now() + $4::interval)
           ON CONFLICT (chain_id, relayer) DO UPDATE SET instance_id = EXCLUDED.instance_id, expires_at = EXCLUDED.expires_at`,
          [scope, key, instanceId, ttl],
        )
        await client.query('COMMIT')
        return { held: true }
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {})
        throw err
      } finally {
        client.release()
      }
    },
    async releaseAll() {
      await pool.query('UPDATE relayer_leases SET expires_at = now() WHERE instance_id = $1', [instanceId]).catch(() => {})
      await pool.query('DELETE FROM gateway_instances WHERE instance_id = $1', [instanceId]).catch(() => {})
      heldBefore.clear()
    },
    async close() {
      await pool.end()
    },
  }
}
