import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgresDatabase.ts'
import { createPostgresRelayerLeases } from './createPostgresRelayerLeases.ts'
import { openPostgresJournal } from './openPostgresJournal.ts'

const keys = ['0xA1', '0xB2', '0xC3', '0xD4'].map((k) => k.padEnd(42, '0'))
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
  const relayers = (leases: Array<{ relayer: string }>) => leases.map((l) => l.relayer)

  it('gives three live instances 2, 1 and 1 of four keys (never 2, 2, 0), never one key to two of them, and the keys of one that stops renewing to the others once its leases end', async () => {
    const [a, b, c] = [store('a'), store('b'), store('c')]
    const chain = 'eip155:1'
    const three = keys.slice(0, 3)
    assert.deepEqual(
      (await a.claim(chain, three)).map((l) => [l.relayer, l.acquired]),
      three.map((k) => [k, true]),
      'alone: every key',
    )
    assert.deepEqual(await b.claim(chain, three), [], 'all held by a live instance')
    // a sees b alive: it keeps its share (2 of 3, a ranks first) and gives the third back once its pool names it.
    assert.deepEqual(relayers(await a.claim(chain, three)), three.slice(0, 2))
    assert.deepEqual(relayers(await a.claim(chain, three, { release: [three[2]!] })), three.slice(0, 2))
    assert.deepEqual(
      (await b.claim(chain, three)).map((l) => [l.relayer, l.acquired]),
      [[three[2], true]],
      'given back: taken at once, not at the end of its lease',
    )

    // Four keys, three instances (another key list on the same chain: its own seats).
    const chain4 = 'eip155:4'
    const all = async () => {
      const held = {
        a: relayers(await a.claim(chain4, keys)),
        b: relayers(await b.claim(chain4, keys)),
        c: relayers(await c.claim(chain4, keys)),
      }
      const flat = [...held.a, ...held.b, ...held.c]
      assert.equal(new Set(flat).size, flat.length, `never one key to two instances: ${JSON.stringify(held)}`)
      return held
    }
    await all()
    // Each gives back what is above its share at its next claim, as its pool does.
    let held = await all()
    for (let i = 0; i < 3; i++) {
      const release = (mine: string[], s: typeof a) =>
        s.claim(chain4, keys, { release: keys.filter((k) => !mine.includes(k)) })
      await release(held.a, a)
      await release(held.b, b)
      await release(held.c, c)
      held = await all()
    }
    assert.deepEqual([held.a.length, held.b.length, held.c.length], [2, 1, 1], JSON.stringify(held))

    // c dies (stops renewing): once its seat and lease end, a and b share the four keys 2 and 2.
    for (let i = 0; i < 8; i++) {
      await sleep(200)
      held = { a: relayers(await a.claim(chain4, keys)), b: relayers(await b.claim(chain4, keys)), c: [] }
    }
    assert.deepEqual([held.a.length, held.b.length], [2, 2], JSON.stringify(held))
    assert.equal(new Set([...held.a, ...held.b]).size, 4)
  })

  it('lets a clean shutdown give its keys back at once', async () => {
    await sleep(1_100) // the instances of the test before are no longer alive
    const [c, d] = [store('c2'), store('d2')]
    assert.equal((await c.claim('eip155:2', keys)).length, 4)
    await c.releaseAll()
    assert.equal((await d.claim('eip155:2', keys)).length, 4)
  })

  it("gives a drained instance's idle keys back at once (giveBack), the others kept; another instance takes them under a new epoch", async () => {
    const [e, f] = [store('e7'), store('f7')]
    const held = await e.claim('eip155:7', keys)
    assert.equal(held.length, 4)
    // Without it the key is live and e's: f gets nothing.
    assert.deepEqual(relayers(await f.claim('eip155:7', [keys[3]!])), [])
    await e.giveBack!('eip155:7', [keys[3]!])
    const taken = await f.claim('eip155:7', [keys[3]!])
    assert.deepEqual(relayers(taken), [keys[3]])
    assert.equal(taken[0]!.acquired, true)
    assert.ok(
      taken[0]!.epoch > held.find((l) => l.relayer === keys[3])!.epoch,
      'the epoch moved: what e signed under its lease is never broadcast',
    )
    // e's other keys are still its own.
    assert.deepEqual(relayers(await e.claim('eip155:7', keys.slice(0, 3))), keys.slice(0, 3))
  })

  it('never gives one key to two instances claiming at the same moment, round after round, and settles their shares', async () => {
    const many = Array.from({ length: 3 }, (_, i) => store(`race-${i}`))
    let counts: number[] = []
    let before: string[][] = []
    for (let round = 0; round < 8; round++) {
      // As the pool does: what it held before and no longer holds is given back.
      const held = await Promise.all(
        many.map((s, i) => s.claim('eip155:3', keys, { release: keys.filter((k) => !(before[i] ?? []).includes(k)) })),
      )
      const flat = held.flatMap(relayers)
      assert.equal(new Set(flat).size, flat.length, `round ${round}: ${flat.join(', ')}`)
      before = held.map(relayers)
      counts = held.map((h) => h.length)
    }
    assert.deepEqual(counts, [2, 1, 1])
  })

  it("moves a key's epoch when another instance takes it, and says `acquired` to an instance taking it back after another held it between (its nonce read again)", async () => {
    const chain = 'eip155:5'
    const key = [keys[0]!]
    const [a, b] = [store('epoch-a'), store('epoch-b')]
    const first = await a.claim(chain, key)
    assert.deepEqual(
      first.map((l) => [l.acquired, l.epoch]),
      [[true, 1]],
    )
    // Renewed, and lapsed then taken back with nobody between: the same epoch, not acquired.
    assert.deepEqual(
      (await a.claim(chain, key)).map((l) => [l.acquired, l.epoch]),
      [[false, 1]],
    )
    await sleep(1_100)
    assert.deepEqual(
      (await a.claim(chain, key)).map((l) => [l.acquired, l.epoch]),
      [[false, 1]],
      'lapsed and taken back by its holder with nobody between',
    )
    // a is cut off from the database for longer than its lease: b takes the key under a new epoch.
    await sleep(1_100)
    assert.deepEqual(
      (await b.claim(chain, key)).map((l) => [l.acquired, l.epoch]),
      [[true, 2]],
    )
    assert.deepEqual(await a.claim(chain, key), [], 'healed: held by b, a gets nothing')
    // b stops (its lease lapses) and a, which held the key at its last successful claim but one, takes it back.
    await b.releaseAll()
    const back = await a.claim(chain, key)
    assert.deepEqual(
      back.map((l) => [l.acquired, l.epoch]),
      [[true, 3]],
      'b sent from the key between: a reads its nonce again and signs under the new epoch',
    )
  })

  it("says `acquired` when the key passed through another instance between two of this one's claims that both held it", async () => {
    // The claim a makes while partitioned never answers; the one after the partition finds the key
    // its own again, but b held it between: a must not go on from its old nonce.
    const chain = 'eip155:6'
    const key = [keys[1]!]
    const [a, b] = [store('gap-a'), store('gap-b')]
    assert.deepEqual(
      (await a.claim(chain, key)).map((l) => l.epoch),
      [1],
    )
    await sleep(1_100)
    assert.deepEqual(
      (await b.claim(chain, key)).map((l) => l.epoch),
      [2],
    )
    await b.releaseAll()
    assert.deepEqual(
      (await a.claim(chain, key)).map((l) => [l.acquired, l.epoch]),
      [[true, 3]],
    )
  })
})
