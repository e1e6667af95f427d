// A claim whose release PostgreSQL did not answer (the link cut mid-request) is given back as soon
// as the database answers again, not left holding its intent for the stale-claim age (120 s) while
// its instance lives: found by the fault campaign's pgcut phase (docs/chaos.md). A real PostgreSQL
// (a database of this file's own) reached through a TCP relay the test cuts and heals; a second
// journal on the same database, outside the cut, is the other instance that retries the intent.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startTcpStall, type TcpStall } from '../../bench/chaos/tcpStall.ts'
import type { Journal } from '../../src/ports/journal.ts'
import { openPostgresJournal } from '../../src/store/postgres/openPostgresJournal.ts'
import { eventually } from '../support/eventually.ts'
import { claimOf, signedTx } from '../support/journalContract.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'

describe('a release the database did not answer', () => {
  let database: TestDatabase
  let link: TcpStall
  let cutOff: Journal
  let other: Journal
  before(async () => {
    database = await createTestDatabase('releasecut')
    other = await openPostgresJournal({ url: database.url, instanceId: 'b' })
    const server = new URL(database.url)
    link = await startTcpStall({ host: server.hostname, port: Number(server.port || 5432) })
    const viaLink = new URL(database.url)
    viaLink.port = String(link.port)
    cutOff = await openPostgresJournal({ url: viaLink.toString(), instanceId: 'a', connectTimeoutMs: 500 })
  })
  after(async () => {
    link?.heal()
    await cutOff?.close()
    await other?.close()
    await link?.close()
    await database?.drop()
  })

  it('is given back once the database answers again; a signed claim never is', async () => {
    const held = await cutOff.claim(claimOf(1))
    assert.ok(held.ok)
    const signed = await cutOff.claim(claimOf(2))
    assert.ok(signed.ok)
    await cutOff.recordSigned(signed.record, signedTx(2))

    link.cut()
    await assert.rejects(cutOff.release(held.record))
    // Meanwhile the intent is still held: the other instance's claim of it is refused.
    assert.equal((await other.claim(claimOf(1))).ok, false)
    link.heal()

    // Given back within seconds, not the stale-claim age: the other instance claims it now.
    await eventually('the other instance claiming the intent', 10_000, async () =>
      (await other.claim(claimOf(1))).ok ? true : undefined,
    )
    // The signed record was never touched.
    assert.equal((await other.get(claimOf(2).intentHash, 'eip155:1'))?.state, 'pending')
  })
})
