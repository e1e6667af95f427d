// The PostgreSQL journal's writes on an execute's path, one statement for a turn's calls: the
// claims of a wave of executes, their signed transactions, a block's settlements, and the reads
// that look for an earlier attempt before each claim. One by one they were five statements an
// execute, each a round trip, a commit and a plan at the server (docs/performance.md); a turn's
// calls now share each statement (createTurnBatch). Each call gets the answer its own statement
// gave, by the same rules: a row changes only from the states it did, a claim conflicts on the
// same unique indexes, a reverted attempt is read after the insert's index check.
// What a batch cannot answer for a call (a conflict, a record asked twice in one turn) goes to the
// one-call statement it had before.
import type { Hex } from 'viem'
import type { SignedExecution } from '../../ports/chainAdapter.ts'
import type { Intent } from '../../ports/intent.ts'
import type { Claim, ExecutionRecord, Settlement } from '../../ports/journal.ts'
import { Status } from '../../status/statusCodes.ts'
import { holding, type Row, senderKey, serializeIntent } from '../journalRow.ts'
import { createTurnBatch } from './createTurnBatch.ts'

type Run = (text: string, values: unknown[]) => Promise<{ rows: Row[] }>

/**
 * SQL: no epoch given, or the relayer's lease is the instance's under that epoch. The lease row is
 * locked (FOR SHARE) until the write commits, so a takeover of the key (a write of that row) comes
 * either after the record, and its holder's nonce floor reads it, or before, and the record is refused.
 */
export const leaseHeld = (epoch: string, chainId: string, relayer: string, instanceId: string) =>
  `(${epoch} IS NULL OR EXISTS (SELECT 1 FROM relayer_leases l WHERE l.chain_id = ${chainId} AND l.relayer = ${relayer} AND l.instance_id = ${instanceId} AND l.epoch = ${epoch} FOR SHARE))`

const claimMany = `INSERT INTO executions (chain_id, intent_hash, attempt, sender, intent_nonce, intent, state, status, chain_instance, created_at, updated_at, instance_id, api_key_id)
SELECT v.chain_id, v.intent_hash, (SELECT COALESCE(MAX(x.attempt), 0) + 1 FROM executions x WHERE x.chain_id = v.chain_id AND x.intent_hash = v.intent_hash),
       v.sender, v.intent_nonce, v.intent, 'claimed', $9, v.chain_instance, v.at, v.at, $10, v.api_key_id
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[]) WITH ORDINALITY
     AS v(chain_id, intent_hash, sender, intent_nonce, intent, chain_instance, at, api_key_id, ord)
ORDER BY v.ord
ON CONFLICT DO NOTHING RETURNING *`
// The latest reverted attempt of each intent: it holds the hash (one outcome per intent) without holding the unique index.
const revertedOf = `SELECT DISTINCT ON (e.chain_id, e.intent_hash) e.* FROM executions e
JOIN unnest($1::text[], $2::text[]) AS v(chain_id, intent_hash) ON e.chain_id = v.chain_id AND e.intent_hash = v.intent_hash
WHERE e.state = 'reverted' ORDER BY e.chain_id, e.intent_hash, e.id DESC`
const dropClaims = `DELETE FROM executions WHERE id = ANY($1::bigint[]) AND state = 'claimed'`
// signed_seq in the order the calls came (a key's nonce order): the numbers are taken in the
// unnest's order before the join, in a subquery the planner cannot fold into it (nextval is volatile).
// A transaction signed under a lease epoch is recorded only while the key is this instance's under
// it (leaseHeld, $7 the epochs, $8 the instance).
const signMany = `UPDATE executions AS e SET state = 'pending', relayer = v.relayer, tx_id = v.tx_id, tx_bytes = v.tx_bytes, tx_details = v.tx_details::jsonb,
       bundle_index = v.bundle_index, signed_seq = v.seq, updated_at = v.updated_at
FROM (SELECT u.*, nextval('executions_signed_seq') AS seq
      FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $9::int[])
        WITH ORDINALITY AS u(id, relayer, tx_id, tx_bytes, tx_details, updated_at, lease_epoch, bundle_index, ord)
      ORDER BY u.ord) AS v
WHERE e.id = v.id AND e.state IN ('claimed', 'pending') AND ${leaseHeld('v.lease_epoch', 'e.chain_id', 'v.relayer', '$8')}
RETURNING e.id`
const settleMany = `UPDATE executions AS e SET state = v.state, status = v.status, block_number = v.block_number, block_hash = v.block_hash, final = v.final,
       gas_used = v.gas_used, return_data = v.return_data, detail = v.detail, updated_at = v.updated_at
FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[])
     AS v(id, state, status, block_number, block_hash, final, gas_used, return_data, detail, updated_at, tx_id)
WHERE e.id = v.id AND e.state = 'pending' AND e.tx_id IS NOT DISTINCT FROM v.tx_id
RETURNING e.id`
// The live attempt first: an attempt that replaced another may be dropped while the one it replaced was mined.
const latestOf = `SELECT DISTINCT ON (v.ord) e.* FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS v(chain_id, intent_hash, ord)
JOIN executions e ON e.chain_id = v.chain_id AND e.intent_hash = v.intent_hash
ORDER BY v.ord, (e.${holding}) DESC, e.id DESC`

export type ClaimCall = {
  chainId: string
  intentHash: Hex
  intent: Intent
  chainInstance: string | null
  apiKeyId: string | null
}
export type SignCall = { id: number; chainId: string; tx: SignedExecution; now: number }
export type SettleCall = { id: number; txId: string | null; s: Settlement; now: number }

/** Serialization failures and deadlocks: the batch's calls are asked again one by one. */
const isConflictAbort = (err: unknown) => ['40001', '40P01'].includes((err as { code?: unknown })?.code as string)

/** Indexes of the calls whose key came earlier in the same batch: they go after it, alone. */
function repeats<T>(calls: T[], key: (call: T) => string | number): Set<number> {
  const seen = new Set<string | number>()
  const again = new Set<number>()
  calls.forEach((call, i) => {
    const k = key(call)
    if (seen.has(k)) again.add(i)
    else seen.add(k)
  })
  return again
}

export function createJournalBatches({
  run,
  record,
  instanceId,
  claimOne,
  signOne,
  settleOne,
  writeBundles,
}: {
  run: Run
  /** A row as the record it is. */
  record: (row: Row) => ExecutionRecord
  instanceId: string | null
  /** The one-call claim, with its conflict handling (the holder read, a stale claim taken over). */
  claimOne: (call: ClaimCall) => Promise<Claim>
  signOne: (call: SignCall) => Promise<boolean>
  /** Writes each bundle's bytes once (a call of a bundle records none of its own): before its calls' records. */
  writeBundles: (bundles: SignCall[]) => Promise<void>
  settleOne: (call: SettleCall) => Promise<boolean>
}) {
  const claim = createTurnBatch<ClaimCall, Claim>(async (calls) => {
    const now = Date.now()
    const batch = await run(claimMany, [
      calls.map((c) => c.chainId),
      calls.map((c) => c.intentHash),
      calls.map((c) => senderKey(c.intent)),
      calls.map((c) => c.intent.nonce.toString()),
      calls.map((c) => serializeIntent(c.intent)),
      calls.map((c) => c.chainInstance),
      calls.map(() => now),
      calls.map((c) => c.apiKeyId),
      Status.SUBMITTED,
      instanceId,
    ]).catch((err: unknown) => {
      if (!isConflictAbort(err)) throw err
      return undefined
    })
    // Two instances' batches of claims can wait on each other's index entries: the server aborts
    // one, nothing of it written, and its calls are claimed one by one.
    if (!batch) return inTurns(calls, claimOne)
    // The unique indexes let one row in per intent: the first call of that intent gets it.
    const inserted = new Map(batch.rows.map((row) => [`${row.chain_id} ${row.intent_hash}`, row]))
    const won = calls.map((c) => {
      const key = `${c.chainId} ${c.intentHash}`
      const row = inserted.get(key)
      inserted.delete(key)
      return row
    })
    // Read after the insert, so that an attempt that turned reverted after the insert's snapshot
    // and before its index check is seen too.
    const claimed = calls.filter((_, i) => won[i])
    const reverted =
      claimed.length === 0
        ? []
        : (await run(revertedOf, [claimed.map((c) => c.chainId), claimed.map((c) => c.intentHash)])).rows
    const revertedBy = new Map(reverted.map((row) => [`${row.chain_id} ${row.intent_hash}`, row]))
    const withdrawn = won.flatMap((row) =>
      row && revertedBy.has(`${row.chain_id} ${row.intent_hash}`) ? [row.id] : [],
    )
    if (withdrawn.length > 0) await run(dropClaims, [withdrawn])
    return Promise.all(
      calls.map((c, i): Claim | Promise<Claim> => {
        const row = won[i]
        if (!row) return claimOne(c) // a conflict: the holder is read, or a stale claim taken over, as one call does
        const holder = revertedBy.get(`${row.chain_id} ${row.intent_hash}`)
        return holder ? { ok: false, holder: record(holder) } : { ok: true, record: record(row) }
      }),
    )
  })

  const sign = createTurnBatch<SignCall, boolean>(async (calls) => {
    const bundles = new Map<string, SignCall>()
    for (const c of calls) if (c.tx.bundle) bundles.set(`${c.chainId} ${c.tx.id}`, c)
    await writeBundles([...bundles.values()])
    return updateEach(run, signMany, calls, signOne, (first) => [
      first.map((c) => c.id),
      first.map((c) => c.tx.relayer),
      first.map((c) => c.tx.id),
      first.map((c) => (c.tx.bundle ? null : c.tx.bytes)),
      first.map((c) => JSON.stringify(c.tx.details)),
      first.map((c) => c.now),
      first.map((c) => c.tx.leaseEpoch ?? null),
      instanceId,
      first.map((c) => c.tx.bundle?.index ?? null),
    ])
  })

  const settle = createTurnBatch<SettleCall, boolean>((calls) =>
    updateEach(run, settleMany, calls, settleOne, (first) => [
      first.map((c) => c.id),
      first.map((c) => c.s.state),
      first.map((c) => c.s.status),
      first.map((c) => c.s.blockNumber?.toString() ?? null),
      first.map((c) => c.s.blockHash ?? null),
      first.map((c) => (c.s.final === false ? 0 : 1)),
      first.map((c) => c.s.gasUsed?.toString() ?? null),
      first.map((c) => c.s.returnData ?? null),
      first.map((c) => c.s.detail ?? null),
      first.map((c) => c.now),
      first.map((c) => c.txId),
    ]),
  )

  const latest = createTurnBatch<{ chainId: string; intentHash: Hex }, Row | undefined>(async (calls) => {
    const { rows } = await run(latestOf, [calls.map((c) => c.chainId), calls.map((c) => c.intentHash)])
    const byKey = new Map(rows.map((row) => [`${row.chain_id} ${row.intent_hash}`, row]))
    return calls.map((c) => byKey.get(`${c.chainId} ${c.intentHash}`))
  })

  return { claim, sign, settle, latest }
}

/**
 * One `UPDATE … RETURNING e.id` for the calls of a batch (a record asked twice in it goes after,
 * alone, and finds what the first left): whether each call changed its record.
 */
async function updateEach<T extends { id: number }>(
  run: Run,
  text: string,
  calls: T[],
  one: (call: T) => Promise<boolean>,
  values: (first: T[]) => unknown[],
): Promise<boolean[]> {
  const again = repeats(calls, (c) => c.id)
  const first = calls.filter((_, i) => !again.has(i))
  let done: Set<number>
  try {
    done = new Set((await run(text, values(first))).rows.map((r) => Number(r.id)))
  } catch (err) {
    if (!isConflictAbort(err)) throw err
    return inTurns(calls, one)
  }
  const results = calls.map((c, i) => !again.has(i) && done.has(c.id))
  for (const i of again) results[i] = await one(calls[i]!)
  return results
}

/** One call after another, each its own statement. */
async function inTurns<T, R>(calls: T[], one: (call: T) => Promise<R>): Promise<R[]> {
  const results: R[] = []
  for (const call of calls) results.push(await one(call))
  return results
}
