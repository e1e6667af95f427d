import assert from 'node:assert/strict'
import { AsyncLocalStorage } from 'node:async_hooks'
import { describe, it } from 'node:test'
import { createSettlerNonces, type SettlerNode } from './createSettlerNonces.ts'

const key = { address: '0xFacilitator', chainId: 31337 }

/** A node whose pending count and pool the test sets; counts the reads. */
function node(pending: number, pool: Set<number> | undefined = new Set()) {
  const state = { pending, pool, reads: 0, filled: [] as number[] }
  const reader: SettlerNode = {
    pendingCount: async () => {
      state.reads++
      return state.pending
    },
    poolNonces: async () => state.pool,
    fillGap: async (nonce) => void state.filled.push(nonce),
  }
  return { state, reader }
}

const sent = (nonce: number) => Promise.resolve(nonce)
const lost = () => Promise.reject(new Error('HTTP request failed'))

describe('the settler nonce counter', () => {
  it('hands concurrent sends consecutive nonces from one read of the pending count', async () => {
    const nonces = createSettlerNonces()
    const { state, reader } = node(7)
    const given = await Promise.all(Array.from({ length: 5 }, () => nonces.send(key, reader, sent)))
    assert.deepEqual(given, [7, 8, 9, 10, 11])
    assert.equal(state.reads, 1)
  })

  it("gives a failed send's nonce to the next send, not the next never handed out, and to no send still under way", async () => {
    const nonces = createSettlerNonces()
    const { reader } = node(0)
    assert.deepEqual(await Promise.all([0, 1, 2].map(() => nonces.send(key, reader, sent))), [0, 1, 2])
    await assert.rejects(nonces.send(key, reader, lost), /HTTP request failed/) // 3, lost on the way
    assert.deepEqual(await Promise.all([nonces.send(key, reader, sent), nonces.send(key, reader, sent)]), [3, 4])
    assert.equal(await nonces.send(key, reader, sent), 5)
  })

  it('does not hand out again a failed nonce the node holds: below its pending count, or in its pool (queued behind a gap)', async () => {
    const nonces = createSettlerNonces()
    const { state, reader } = node(0)
    assert.deepEqual(await Promise.all([0, 1].map(() => nonces.send(key, reader, sent))), [0, 1])
    await assert.rejects(nonces.send(key, reader, lost)) // 2: the answer lost, the node took it
    state.pending = 3
    assert.equal(await nonces.send(key, reader, sent), 3)

    // 4 lost on the way, 5 (under way at the same time) taken by the node, queued behind 4.
    const failed = await Promise.allSettled([nonces.send(key, reader, lost), nonces.send(key, reader, lost)])
    assert.deepEqual(
      failed.map((f) => f.status),
      ['rejected', 'rejected'],
    )
    state.pending = 4
    state.pool = new Set([5])
    assert.deepEqual(await Promise.all([nonces.send(key, reader, sent), nonces.send(key, reader, sent)]), [4, 6])
  })

  it('judges a failed nonce by what the node holds after the failure, not by a read answered before the node took it (CI runs 48, 49)', async () => {
    const nonces = createSettlerNonces()
    const { state, reader } = node(0)
    // Reads answer what the node held when they reached it, and come back when the test lets them.
    let answerReads: () => void = () => {}
    let held = Promise.resolve()
    const slow: SettlerNode = {
      ...reader,
      pendingCount: () => {
        const pending = state.pending
        return held.then(() => pending)
      },
    }
    assert.equal(await nonces.send(key, slow, sent), 0)
    let loseAnswer: () => void = () => {}
    const a = nonces.send(
      key,
      slow,
      () => new Promise<number>((_, reject) => (loseAnswer = () => reject(new Error('reset')))),
    )
    await new Promise((resolve) => setImmediate(resolve)) // a holds 1 and is being sent
    held = new Promise((resolve) => (answerReads = resolve))
    const b = nonces.send(key, slow, sent) // its read reaches the node before a's transaction
    await new Promise((resolve) => setImmediate(resolve))
    state.pending = 2 // the node took a's transaction and mined it; its answer is lost
    loseAnswer()
    await assert.rejects(a, /reset/)
    const c = nonces.send(key, slow, sent) // asked while b's read is still on its way
    held = Promise.resolve()
    answerReads()
    assert.deepEqual((await Promise.all([b, c])).sort(), [2, 3], 'the mined nonce 1 is handed out to no one')
  })

  it('judges only the nonces given back before its reads: one given back while two sends read the node is handed to neither (queued behind a gap, its answer lost)', async () => {
    const nonces = createSettlerNonces()
    const { state, reader } = node(0)
    // The pool answers what the node held when the read reached it, and comes back when the test lets it.
    let answerPool: () => void = () => {}
    let poolHeld = Promise.resolve()
    const slow: SettlerNode = {
      ...reader,
      poolNonces: () => {
        const held = new Set(state.pool)
        return poolHeld.then(() => held)
      },
    }
    const controlled = () => {
      let fail: () => void = () => {}
      const sending = nonces.send(
        key,
        slow,
        () => new Promise<number>((_, reject) => (fail = () => reject(new Error('reset')))),
      )
      return { sending, fail: () => fail() }
    }
    const c = controlled() // 0: lost on the way
    const a = controlled() // 1: the node takes it, queued behind the gap 0 leaves
    await new Promise((resolve) => setImmediate(resolve))
    c.fail()
    await assert.rejects(c.sending)
    poolHeld = new Promise((resolve) => (answerPool = resolve))
    const d = nonces.send(key, slow, sent) // both read the pool before a's transaction is in it
    const f = nonces.send(key, slow, sent)
    await new Promise((resolve) => setTimeout(resolve, 10))
    state.pool = new Set([1])
    a.fail()
    await assert.rejects(a.sending)
    answerPool()
    const given = await Promise.all([d, f])
    assert.ok(!given.includes(1), `the queued nonce 1 is handed to neither: ${given}`)
    assert.deepEqual(given.sort(), [0, 2])
    assert.equal(await nonces.send(key, slow, sent), 3, 'judged by the next reads: held in the pool')
  })

  it('where the node cannot say what its pool holds, judges a failed nonce by the pending count alone', async () => {
    const nonces = createSettlerNonces()
    const { reader } = node(0, undefined)
    assert.equal(await nonces.send(key, reader, sent), 0)
    await assert.rejects(nonces.send(key, reader, lost))
    assert.equal(await nonces.send(key, reader, sent), 1)
  })

  it('never goes below what it handed out when the node counts fewer (a lagging endpoint); goes up when it counts more', async () => {
    const nonces = createSettlerNonces()
    const { state, reader } = node(10)
    assert.equal(await nonces.send(key, reader, sent), 10)
    state.pending = 5
    assert.equal(await nonces.send(key, reader, sent), 11)
    state.pending = 20 // the key used elsewhere
    assert.equal(await nonces.send(key, reader, sent), 20)
  })

  it('after a forget reads the node again, even lower; a failure from before the forget is not taken back', async () => {
    const nonces = createSettlerNonces()
    const { state, reader } = node(10)
    assert.equal(await nonces.send(key, reader, sent), 10)
    let fail: (err: Error) => void = () => {}
    const underWay = nonces.send(key, reader, () => new Promise<number>((_, reject) => (fail = reject)))
    await new Promise((resolve) => setImmediate(resolve))
    state.pending = 9 // a reorg took a settlement back
    nonces.forget({ ...key, address: key.address.toLowerCase() })
    fail(new Error('lost'))
    await assert.rejects(underWay)
    assert.equal(await nonces.send(key, reader, sent), 9)
    assert.equal(await nonces.send(key, reader, sent), 10)
  })

  it('fills a gap no send takes within fillAfterMs with a transaction of no effect, so those above it land', async () => {
    const nonces = createSettlerNonces({ fillAfterMs: 10 })
    const { state, reader } = node(0)
    const sends = await Promise.allSettled([
      nonces.send(key, reader, lost),
      nonces.send(key, reader, sent),
      nonces.send(key, reader, sent),
    ])
    assert.deepEqual(
      sends.map((s) => (s.status === 'fulfilled' ? s.value : 'lost')),
      ['lost', 1, 2],
    )
    assert.deepEqual(state.filled, [])
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(state.filled, [0])
    state.pending = 3
    assert.equal(await nonces.send(key, reader, sent), 3)
  })

  it('goes back to a failed nonce that is the highest handed out instead of filling it', async () => {
    const nonces = createSettlerNonces({ fillAfterMs: 10 })
    const { state, reader } = node(0)
    assert.equal(await nonces.send(key, reader, sent), 0)
    await assert.rejects(nonces.send(key, reader, lost))
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(state.filled, [])
    assert.equal(await nonces.send(key, reader, sent), 1)
    assert.equal(await nonces.send(key, reader, sent), 2)
  })

  it("fills outside the failed settlement's context: what the fill signs is never noted as that settlement's", async () => {
    const nonces = createSettlerNonces({ fillAfterMs: 10 })
    const { reader } = node(0)
    const settling = new AsyncLocalStorage<string>()
    const seen: (string | undefined)[] = []
    const filling: SettlerNode = { ...reader, fillGap: async () => void seen.push(settling.getStore()) }
    await Promise.allSettled([
      settling.run('settlement 1', () => nonces.send(key, filling, lost)),
      nonces.send(key, filling, sent),
    ])
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(seen, [undefined])
  })

  it('tries a failed fill again', async () => {
    const nonces = createSettlerNonces({ fillAfterMs: 10 })
    const { state, reader } = node(0)
    let refusals = 1
    const filling: SettlerNode = {
      ...reader,
      fillGap: async (nonce) => {
        if (refusals-- > 0) throw new Error('HTTP request failed')
        state.filled.push(nonce)
      },
    }
    await Promise.allSettled([nonces.send(key, filling, lost), nonces.send(key, filling, sent)])
    await new Promise((resolve) => setTimeout(resolve, 80))
    assert.deepEqual(state.filled, [0])
  })

  it('on its first read hands out around the nonces the pool holds queued above the pending count (left by an earlier process)', async () => {
    const nonces = createSettlerNonces()
    const { state, reader } = node(4, new Set([5, 7]))
    const given = await Promise.all(Array.from({ length: 4 }, () => nonces.send(key, reader, sent)))
    assert.deepEqual(given, [4, 6, 8, 9])
    state.pool = new Set([10])
    assert.equal(await nonces.send(key, reader, sent), 10, 'the pool is asked on the first read only')
  })

  it('counts each settler and chain apart', async () => {
    const nonces = createSettlerNonces()
    const { reader } = node(3)
    assert.equal(await nonces.send(key, reader, sent), 3)
    assert.equal(await nonces.send({ ...key, chainId: 1 }, reader, sent), 3)
    assert.equal(await nonces.send({ ...key, address: '0xOther' }, reader, sent), 3)
    assert.equal(await nonces.send(key, reader, sent), 4)
  })
})
