import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Hex } from 'viem'
import { createIntentStore } from './createIntentStore.ts'

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const claimOf = (n: number, nonce = BigInt(n), chainId = 'eip155:1') => ({ intentHash: hash(n), chainId, sender: '0xAbC0000000000000000000000000000000000001', nonce })

describe('createIntentStore', () => {
  it('refuses a second claim of a pending or mined intent, or of its (sender, nonce)', () => {
    const store = createIntentStore()
    const first = store.claim(claimOf(1))
    assert.ok(first.ok)
    const again = store.claim(claimOf(1))
    assert.ok(!again.ok && again.holder === first.record)
    const sameNonce = store.claim({ ...claimOf(2, 1n), sender: '0xabc0000000000000000000000000000000000001' })
    assert.ok(!sameNonce.ok && sameNonce.holder === first.record, 'sender compared without case')
    store.update(first.record, { state: 'mined', status: 0x11 })
    assert.ok(!store.claim(claimOf(1)).ok)
  })

  it('lets an intent be tried again after it reverted, failed or was released unsent', () => {
    const store = createIntentStore()
    const a = store.claim(claimOf(1))
    assert.ok(a.ok)
    store.update(a.record, { state: 'reverted', status: 0x50 })
    const b = store.claim(claimOf(1))
    assert.ok(b.ok)
    store.release(b.record)
    assert.equal(store.get(hash(1)), undefined)
    assert.ok(store.claim(claimOf(1)).ok)
  })

  it('keeps chains apart', () => {
    const store = createIntentStore()
    assert.ok(store.claim(claimOf(1, 1n, 'eip155:1')).ok)
    assert.ok(store.claim(claimOf(1, 1n, 'eip155:10')).ok)
    assert.equal(store.get(hash(1), 'eip155:10')?.chainId, 'eip155:10')
  })

  it('evicts the oldest finished records beyond its bound, never a pending one', () => {
    const store = createIntentStore({ maxRecords: 2 })
    const pending = store.claim(claimOf(1))
    const done = store.claim(claimOf(2))
    assert.ok(pending.ok && done.ok)
    store.update(done.record, { state: 'mined', status: 0x11 })
    assert.ok(store.claim(claimOf(3)).ok)
    assert.equal(store.size(), 2)
    assert.ok(store.get(hash(1)), 'the pending record stays')
    assert.equal(store.get(hash(2)), undefined)
  })
})
