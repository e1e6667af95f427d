import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestDatabase, type TestDatabase } from '../../test/support/postgresDatabase.ts'
import { createLogger } from '../logging/createLogger.ts'
import { createPostgresRelayerLeases } from '../store/postgres/createPostgresRelayerLeases.ts'
import { openPostgresJournal } from '../store/postgres/openPostgresJournal.ts'
import { holdSoleKey } from './holdSoleKey.ts'

const key = '0xFAC1000000000000000000000000000000000001'
const logger = createLogger({ level: 'silent', destination: { write: () => {} } })

describe("holdSoleKey (the in-process facilitator's key: one instance at a time)", () => {
  let database: TestDatabase
  const stores: Array<{ close(): Promise<void> }> = []
  before(async () => {
    database = await createTestDatabase('solekey')
    await (await openPostgresJournal({ url: database.url })).close()
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
  const hold = (leases: ReturnType<typeof store>, waitMs?: number) =>
    holdSoleKey({ leases, scope: 'x402-facilitator', key, setting: 'FACILITATOR_PRIVATE_KEY', logger, waitMs })

  it('refuses a second live instance with the same key, naming the holder; takes it once the holder shut down, or died and its lease ended', async () => {
    const [a, b, c] = [store('a'), store('b'), store('c')]
    const first = await hold(a)
    assert.equal(first.problem, undefined)
    const second = await hold(b, 1_500) // longer than the lease: the holder renews it
    assert.equal(
      second.problem,
      `FACILITATOR_PRIVATE_KEY: its account ${key} is in use by another live instance (a) sharing this database; two instances settling with one key collide on its nonce: give each instance its own key, or share a remote facilitator (FACILITATOR_URL)`,
    )
    // a shuts down cleanly: its lease goes back at once.
    first.close()
    await a.releaseAll()
    const third = await hold(b, 0)
    assert.equal(third.problem, undefined)
    // b dies (stops renewing, gives nothing back): c waits for its lease to end, then holds the key.
    third.close()
    const started = Date.now()
    const fourth = await hold(c)
    assert.equal(fourth.problem, undefined)
    assert.ok(Date.now() - started < 2_500, `${Date.now() - started} ms`)
    fourth.close()
  })
})
