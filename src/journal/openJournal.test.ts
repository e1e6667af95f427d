import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import type { Address, Hex } from 'viem'
import { ConfigError } from '../errors/configError.ts'
import type { Intent } from '../intents/intent.ts'
import { openJournal } from './openJournal.ts'

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const relayer = '0x00000000000000000000000000000000000000Aa' as Address
const intentOf = (nonce: bigint, sender = '0xAbC0000000000000000000000000000000000001'): Intent => ({
  sender,
  target: '0x0000000000000000000000000000000000000002',
  data: '0xd09de08a',
  value: 10n ** 30n, // beyond 2^64: must survive the round trip
  nonce,
  validAfter: 0n,
  validBefore: 2n ** 255n,
  policyId: hash(9),
})
const claimOf = (n: number, nonce = BigInt(n), chainId = 'eip155:1') => ({ chainId, intentHash: hash(n), intent: intentOf(nonce) })
const signedTx = (txNonce: number) => ({ relayer, txNonce, transactionHash: hash(1000 + txNonce), rawTransaction: `0x02${txNonce.toString(16).padStart(4, '0')}` as Hex })
const mined = { state: 'mined' as const, status: 0x11, blockNumber: 7n, gasUsed: 21_000n, returnData: '0x' as Hex, detail: undefined }

const dir = mkdtempSync(join(tmpdir(), 'journal-test-'))
after(() => rmSync(dir, { recursive: true, force: true }))

describe('openJournal', () => {
  it('refuses a second claim of an intent, or of its (sender, nonce), while claimed, pending or executed', () => {
    const journal = openJournal({ path: ':memory:' })
    const first = journal.claim(claimOf(1))
    assert.ok(first.ok)
    const again = journal.claim(claimOf(1))
    assert.ok(!again.ok && again.holder.id === first.record.id)
    const sameNonce = journal.claim({ ...claimOf(2, 1n), intent: intentOf(1n, '0xabc0000000000000000000000000000000000001') })
    assert.ok(!sameNonce.ok && sameNonce.holder.id === first.record.id, 'sender compared without case')
    journal.recordSigned(first.record, signedTx(0))
    assert.ok(!journal.claim(claimOf(1)).ok, 'pending holds')
    assert.ok(journal.settle(first.record, mined))
    assert.ok(!journal.claim(claimOf(1)).ok, 'executed holds')
    assert.ok(!journal.claim(claimOf(3, 1n)).ok, 'executed holds its (sender, nonce)')
    journal.close()
  })

  it('lets an intent be tried again after a revert or a dropped transaction, keeping every attempt', () => {
    const journal = openJournal({ path: ':memory:' })
    const a = journal.claim(claimOf(1))
    assert.ok(a.ok)
    journal.recordSigned(a.record, signedTx(0))
    journal.settle(a.record, { ...mined, state: 'reverted', status: 0x50 })
    const b = journal.claim(claimOf(1))
    assert.ok(b.ok && b.record.id !== a.record.id)
    assert.equal(journal.get(hash(1))?.id, b.record.id, 'the latest attempt answers')
    journal.release(b.record)
    assert.equal(journal.get(hash(1))?.state, 'reverted', 'a released attempt leaves the earlier one')
    const c = journal.claim(claimOf(1))
    assert.ok(c.ok)
    journal.recordSigned(c.record, signedTx(1))
    journal.settle(c.record, { state: 'dropped', status: 0xf0, detail: 'replaced', blockNumber: undefined, gasUsed: undefined, returnData: undefined })
    assert.ok(journal.claim(claimOf(1)).ok)
    journal.close()
  })

  it('settles only a pending record, and only from its own transaction', () => {
    const journal = openJournal({ path: ':memory:' })
    const a = journal.claim(claimOf(1))
    assert.ok(a.ok)
    assert.equal(journal.settle(a.record, mined), false, 'nothing signed yet')
    journal.recordSigned(a.record, signedTx(0))
    const stale = { ...a.record, transactionHash: hash(5) }
    assert.equal(journal.settle(stale, mined), false, 'another transaction hash')
    assert.ok(journal.settle(a.record, mined))
    assert.equal(journal.settle(a.record, { ...mined, state: 'reverted' }), false, 'already settled')
    assert.equal(journal.get(hash(1))?.state, 'mined')
    journal.close()
  })

  it('keeps chains apart', () => {
    const journal = openJournal({ path: ':memory:' })
    assert.ok(journal.claim(claimOf(1, 1n, 'eip155:1')).ok)
    assert.ok(journal.claim(claimOf(1, 1n, 'eip155:10')).ok)
    assert.equal(journal.get(hash(1), 'eip155:10')?.chainId, 'eip155:10')
    journal.close()
  })

  it('reports the highest relayer nonce held by an unsettled transaction', () => {
    const journal = openJournal({ path: ':memory:' })
    assert.equal(journal.highestPendingTxNonce('eip155:1', relayer), undefined)
    const records = [1, 2, 3].map((n) => {
      const c = journal.claim(claimOf(n))
      assert.ok(c.ok)
      journal.recordSigned(c.record, signedTx(n + 10))
      return c.record
    })
    assert.equal(journal.highestPendingTxNonce('eip155:1', relayer), 13)
    journal.settle(records[2]!, mined)
    assert.equal(journal.highestPendingTxNonce('eip155:1', relayer), 12)
    assert.equal(journal.highestPendingTxNonce('eip155:10', relayer), undefined)
    journal.close()
  })

  it('keeps signed records across a reopen and gives back claims that never signed', () => {
    const path = join(dir, 'reopen', 'journal.sqlite')
    const first = openJournal({ path })
    const signed = first.claim(claimOf(1))
    const unsigned = first.claim(claimOf(2))
    assert.ok(signed.ok && unsigned.ok)
    first.recordSigned(signed.record, signedTx(4))
    first.close()

    const second = openJournal({ path })
    const [pending, ...rest] = second.pending()
    assert.equal(rest.length, 0)
    assert.equal(pending?.intentHash, hash(1))
    assert.equal(pending?.rawTransaction, signedTx(4).rawTransaction)
    assert.equal(pending?.txNonce, 4)
    assert.deepEqual(pending?.intent, { ...intentOf(1n), sender: '0xAbC0000000000000000000000000000000000001' })
    assert.equal(second.get(hash(2)), undefined, 'the unsigned claim was released')
    assert.ok(second.claim(claimOf(2)).ok)
    second.close()
  })

  it('takes a consistent backup while open, which opens as a journal of its own', async () => {
    const path = join(dir, 'live.sqlite')
    const journal = openJournal({ path })
    const c = journal.claim(claimOf(1))
    assert.ok(c.ok)
    journal.recordSigned(c.record, signedTx(3))
    const copy = join(dir, 'backups', 'copy.sqlite')
    await journal.backup(copy)
    journal.close()
    const restored = openJournal({ path: copy })
    assert.equal(restored.pending()[0]?.rawTransaction, signedTx(3).rawTransaction)
    restored.close()
  })

  it('refuses a second gateway on the same file, naming JOURNAL_PATH', () => {
    const path = join(dir, 'locked.sqlite')
    const first = openJournal({ path })
    assert.throws(() => openJournal({ path }), (err: unknown) => err instanceof ConfigError && /JOURNAL_PATH: .* in use by another gateway/.test(err.message))
    first.close()
    openJournal({ path }).close()
  })

  it('names JOURNAL_PATH when the file cannot be opened', () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, '')
    assert.throws(() => openJournal({ path: join(file, 'journal.sqlite') }), (err: unknown) => err instanceof ConfigError && /JOURNAL_PATH/.test(err.message))
  })
})
