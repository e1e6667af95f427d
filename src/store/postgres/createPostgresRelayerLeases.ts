// Relayer keys leased to gateway instances through the shared PostgreSQL journal database: an
// instance owns a key's nonce sequence while its lease lives. Each instance keeps a seat among the
// instances that claim the same keys on a chain (renewed with its leases), and holds its share of
// the keys by rank among the live seats (relayerShare: ⌊K/N⌋ or ⌈K/N⌉). It takes free keys (never
// leased, given back, or whose lease expired: its holder died) up to its share, renews those it
// holds up to it, and gives back the rest once its pool has stopped sending from them. A free key
// is taken by a write that succeeds only while it is free, so two instances never take the same one.
// Expiry is judged by the database's clock; the local expiry is counted from before the round
// trip, so it never outlives the database's. Each lease has an epoch, counted up in the same write
// that passes the key to another instance: the pool broadcasts what it signed under one epoch only
// while it still holds the key under it (fencing), and a key whose epoch moved since this instance
// last held it was sent from by another: `acquired`, its nonce read again.
import { createHash } from 'node:crypto'
import pg from 'pg'
import type { RelayerLease, RelayerLeases } from '../../ports/relayerLeases.ts'
import { relayerShare } from '../relayerShare.ts'

export type CreatePostgresRelayerLeasesParameters = {
  url: string
  instanceId: string
  /** How long a lease lives unless renewed; default 15 s. */
  ttlMs?: number | undefined
}

export function createPostgresRelayerLeases({
  url,
  instanceId,
  ttlMs = 15_000,
}: CreatePostgresRelayerLeasesParameters): RelayerLeases & { close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 })
  pool.on('error', () => {})
  const ttl = `${ttlMs} milliseconds`
  /**
   * Takes a key for this instance only if it is free (or already this instance's) when the row is
   * written: of two instances taking it at once, one gets it. Its epoch moves when the holder
   * changes; taken back by the same instance with nobody between, it stays. Answers the epoch held.
   */
  const takeIfFree = async (scope: string, key: string): Promise<number | undefined> => {
    const { rows } = await pool.query<{ epoch: string }>(
      `INSERT INTO relayer_leases (chain_id, relayer, instance_id, expires_at) VALUES ($1, $2, $3, now() + $4::interval)
       ON CONFLICT (chain_id, relayer) DO UPDATE SET instance_id = EXCLUDED.instance_id, expires_at = EXCLUDED.expires_at,
         epoch = CASE WHEN relayer_leases.instance_id = EXCLUDED.instance_id THEN relayer_leases.epoch ELSE relayer_leases.epoch + 1 END
       WHERE relayer_leases.expires_at <= now() OR relayer_leases.instance_id = EXCLUDED.instance_id
       RETURNING epoch`,
      [scope, key, instanceId, ttl],
    )
    return rows[0] ? Number(rows[0].epoch) : undefined
  }
  // Keys this instance was last told it holds, per chain, with their epochs: a key held again after
  // a gap, or whose epoch moved (another instance held it between), is `acquired` (its nonce read again).
  const heldBefore = new Map<string, Map<string, number>>()
  /** The live instances on this journal (every one beats in gateway_instances), as this instance's last claim saw them. */
  let liveInstancesSeen = 1

  return {
    instanceId,
    ttlMs,
    async claim(chainId, relayers, { release = [] } = {}) {
      const asked = Date.now()
      // The seats live in the leases table under a name no address can take: instances that
      // claim another list of keys on the chain (each its own key) do not share with these.
      const keySet = createHash('sha256')
        .update(
          [...relayers]
            .map((r) => r.toLowerCase())
            .sort()
            .join(','),
        )
        .digest('hex')
        .slice(0, 16)
      const seats = `seat ${keySet} `
      // Each statement is atomic on its own: no lock spans the round trips, so a busy instance
      // never holds the others' renewals up.
      await pool.query(
        `WITH instance AS (
           INSERT INTO gateway_instances (instance_id, expires_at) VALUES ($3, now() + $4::interval)
           ON CONFLICT (instance_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
         )
         INSERT INTO relayer_leases (chain_id, relayer, instance_id, expires_at) VALUES ($1, $2, $3, now() + $4::interval)
         ON CONFLICT (chain_id, relayer) DO UPDATE SET instance_id = EXCLUDED.instance_id, expires_at = EXCLUDED.expires_at`,
        [chainId, `${seats}${instanceId}`, instanceId, ttl],
      )
      const rows = (
        await pool.query<{ relayer: string; instance_id: string; live: boolean; instances: string }>(
          `SELECT relayer, instance_id, expires_at > now() AS live, (SELECT count(*) FROM gateway_instances WHERE expires_at > now()) AS instances
             FROM relayer_leases WHERE chain_id = $1 AND (relayer = ANY($2) OR starts_with(relayer, $3))`,
          [chainId, relayers, seats],
        )
      ).rows
      const live = rows.filter((r) => r.live && r.relayer.startsWith(seats)).map((r) => r.instance_id)
      const share = relayerShare({ keys: relayers.length, instanceIds: live, instanceId })
      liveInstancesSeen = Math.max(1, Number(rows[0]?.instances ?? 1))
      const keys = rows.filter((r) => !r.relayer.startsWith(seats))
      // Mine while no other instance took it since, even if it lapsed: nobody sent from it meanwhile.
      const mine = new Set(keys.filter((r) => r.instance_id === instanceId).map((r) => r.relayer))
      const taken = new Set(keys.filter((r) => r.live && r.instance_id !== instanceId).map((r) => r.relayer))
      // Keep up to the share (the first ones, in the configured order), take free keys up to it.
      const keep = relayers.filter((r) => mine.has(r)).slice(0, share)
      const epochs = new Map<string, number>(
        keep.length === 0
          ? []
          : (
              await pool.query<{ relayer: string; epoch: string }>(
                'UPDATE relayer_leases SET expires_at = now() + $4::interval WHERE chain_id = $1 AND relayer = ANY($2) AND instance_id = $3 RETURNING relayer, epoch',
                [chainId, keep, instanceId, ttl],
              )
            ).rows.map((r) => [r.relayer, Number(r.epoch)]),
      )
      const held = [...epochs.keys()]
      for (const relayer of relayers) {
        if (held.length >= share) break
        if (taken.has(relayer) || held.includes(relayer)) continue
        const epoch = await takeIfFree(chainId, relayer)
        if (epoch !== undefined) {
          held.push(relayer)
          epochs.set(relayer, epoch)
        }
      }
      // Keys above the share are not renewed: the pool stops sending from them at once, and
      // names them in `release` at its next claim, once no send from them is under way.
      const giveBack = release.filter((r) => mine.has(r) && !held.includes(r))
      if (giveBack.length > 0) {
        await pool.query(
          'UPDATE relayer_leases SET expires_at = now() WHERE chain_id = $1 AND relayer = ANY($2) AND instance_id = $3',
          [chainId, giveBack, instanceId],
        )
      }
      const ordered = relayers.filter((r) => held.includes(r))
      const before = heldBefore.get(chainId) ?? new Map<string, number>()
      heldBefore.set(chainId, new Map(ordered.map((r) => [r, epochs.get(r)!])))
      return ordered.map((relayer): RelayerLease => {
        const epoch = epochs.get(relayer)!
        return { chainId, relayer, expiresAt: asked + ttlMs, acquired: before.get(relayer) !== epoch, epoch }
      })
    },
    liveInstances() {
      return liveInstancesSeen
    },
    async holdExclusive(scope, key) {
      // A hold renewed is this instance's heartbeat too (an instance that holds only exclusive keys,
      // a Sui-only fleet, claims no shares): its journal claims count as live while it beats.
      await pool.query(
        `INSERT INTO gateway_instances (instance_id, expires_at) VALUES ($1, now() + $2::interval)
         ON CONFLICT (instance_id) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
        [instanceId, ttl],
      )
      if ((await takeIfFree(scope, key)) !== undefined) return { held: true }
      const holder =
        (
          await pool.query<{ instance_id: string }>(
            'SELECT instance_id FROM relayer_leases WHERE chain_id = $1 AND relayer = $2',
            [scope, key],
          )
        ).rows[0]?.instance_id ?? 'unknown'
      return { held: false, holder }
    },
    async giveBack(chainId, relayers) {
      if (relayers.length === 0) return
      await pool.query(
        'UPDATE relayer_leases SET expires_at = now() WHERE chain_id = $1 AND relayer = ANY($2) AND instance_id = $3',
        [chainId, relayers, instanceId],
      )
    },
    async releaseAll() {
      await pool
        .query('UPDATE relayer_leases SET expires_at = now() WHERE instance_id = $1', [instanceId])
        .catch(() => {})
      await pool.query('DELETE FROM gateway_instances WHERE instance_id = $1', [instanceId]).catch(() => {})
      heldBefore.clear()
    },
    async close() {
      await pool.end()
    },
  }
}
