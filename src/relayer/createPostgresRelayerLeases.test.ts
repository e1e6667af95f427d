import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestDatabase, type TestDatabase } from '../../test/support/postgresDatabase.ts'
import { openPostgresJournal } from '../journal/openPostgresJournal.ts'
import { createPostgresRelayerLeases } from './createPostgresRelayerLeases.ts'

const keys = ['0xA1', '0xB2', '0xC3'].map((k) => k.padEnd(42, '0'))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('createPostgresRelayerLeases', () => {
  let database: TestDatabase
  const stores: Array<{ close(): Promise<void> }> = []
  before(async () => {
    database = await createTestDatabase('leases')
    await (await openPostgresJournal({ url: database.url })).close() // the tables
  })
  after(async () => {
    for (const s of stores) await s.close()
    await database?.drop()
  })
  const store = (instanceId: string) => {
    const s = createPostgresRelayerLeases({ url: database.url, instanceId, ttlMs: 1_000 })
    stores.push(s)
    return s
  }

  it('gives each live instance its share of the keys, never one key to two of them, and the keys of one that stops renewing to the others once its leases end', async () => {
    const [a, b] = [store('a'), store('b')]
    const first = await a.claim('eip155:1', keys)
    assert.deepEqual(first.map((l) => [l.relayer, l.acquired]), keys.map((k) => [k, true]), 'alone: every key')
    assert.deepEqual(await b.claim('eip155:1', keys), [], 'all held by a live instance')
    // a sees b alive: it keeps its share (2 of 3) and lets the third lapse.
    assert.deepEqual((await a.claim('eip155:1', keys)).map((l) => [l.relayer, l.acquired]), [[keys[0], false], [keys[1], false]])
    // Both renew every 300 ms (a third of the TTL, as the pool does): b takes the lapsed key once its lease ends.
    let bAcquired: string[] = []
    for (let i = 0; i < 5; i++) {
      await sleep(300)
      const [ha, hb] = [await a.claim('eip155:1', keys), await b.claim('eip155:1', keys)]
      assert.deepEqual(ha.map((l) => l.relayer), [keys[0], keys[1]])
      assert.ok(hb.every((l) => !ha.some((h) => h.relayer === l.relayer)), 'never one key to two instances')
      bAcquired = [...bAcquired, ...hb.filter((l) => l.acquired).map((l) => l.relayer)]
    }
    assert.deepEqual(bAcquired, [keys[2]], 'the lapsed key taken over once')
    // a dies (stops renewing): once its leases end, b takes every key.
    let held: string[] = []
    for (let i = 0; i < 6; i++) {
      await sleep(300)
      held = (await b.claim('eip155:1', keys)).map((l) => l.relayer)
    }
    assert.deepEqual(held.sort(), [...keys].sort())
  })

  it('lets a clean shutdown give its keys back at once', async () => {
    await sleep(1_100) // the instances of the test before are no longer alive
    const [c, d] = [store('c'), store('d')]
    assert.equal((await c.claim('eip155:2', keys)).length, 3)
    await c.releaseAll()
    assert.equal((await d.claim('eip155:2', keys)).length, 3)
  })
})
