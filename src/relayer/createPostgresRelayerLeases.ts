// Relayer keys leased to gateway instances through the shared PostgreSQL journal database: an
// instance owns a key's nonce sequence while its lease lives. Each instance takes free keys (never
// leased, or whose lease expired: its holder died or let go) up to its fair share of the keys
// among the live instances, renews those it holds up to that share, and lets the rest lapse for
// the others. Expiry is judged by the database's clock; the local expiry is counted from before
// the round trip, so it never outlives the database's.
import pg from 'pg'
import type { RelayerLease, RelayerLeases } from './relayerLeases.ts'

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
    async claim(chainId, relayers) {
      const asked = Date.now()
      const client = await pool.connect()
      let held: string[]
      try {
        await client.query('BEGIN')
        await client.query(`INSERT INTO gateway_instances (instance_id, expires_at) VALUES ($1, now() + $2::interval) ON CONFLICT (instance_id) DO UPDATE SET expires_at = EXCLUDED.expires_at`, [instanceId, ttl])
        const live = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM gateway_instances WHERE expires_at > now()')).rows[0]!.n)
        const share = Math.ceil(relayers.length / Math.max(live, 1))
        // The chain's leases, locked: two instances never take the same free key.
        const rows = (await client.query<{ relayer: string; instance_id: string; live: boolean }>(
          'SELECT relayer, instance_id, expires_at > now() AS live FROM relayer_leases WHERE chain_id = $1 AND relayer = ANY($2) FOR UPDATE',
          [chainId, relayers],
        )).rows
        const mine = rows.filter((r) => r.instance_id === instanceId && r.live).map((r) => r.relayer)
        const taken = new Set(rows.filter((r) => r.live).map((r) => r.relayer))
        const free = relayers.filter((r) => !taken.has(r))
        // Keep up to the share (the first ones, in the configured order), take free keys up to it.
        const keep = relayers.filter((r) => mine.includes(r)).slice(0, share)
        const take = free.slice(0, Math.max(share - keep.length, 0))
        held = [...keep, ...take]
        for (const relayer of held) {
          await client.query(
            `INSERT INTO relayer_leases (chain_id, relayer, instance_id, expires_at) VALUES ($1, $2, $3, now() + $4::interval)
             ON CONFLICT (chain_id, relayer) DO UPDATE SET instance_id = EXCLUDED.instance_id, expires_at = EXCLUDED.expires_at`,
            [chainId, relayer, instanceId, ttl],
          )
        }
        // Keys above the share (another instance joined) are not renewed: this instance stops
        // sending from them now, and they lapse for the others at the end of their lease, after
        // any send under way has long finished.
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
