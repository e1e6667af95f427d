import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import type { Address, Hex } from 'viem'
import { writeV1Journal } from '../../test/support/v1Journal.ts'
import type { SignedExecution } from '../chains/chainAdapter.ts'
import { ConfigError } from '../errors/configError.ts'
import type { Intent } from '../intents/intent.ts'
import { journalSchemaVersion, openJournal } from './openJournal.ts'

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
/** An EVM-shaped signed execution (the journal does not look inside bytes or details). */
const signedTx = (txNonce: number, from: string = relayer): SignedExecution => ({
  id: hash(1000 + txNonce),
  bytes: Buffer.from(`02f8${txNonce.toString(16).padStart(4, '0')}`, 'hex').toString('base64'),
  relayer: from,
  details: { txNonce },
})
const mined = { state: 'mined' as const, status: 0x11, blockNumber: 7n, gasUsed: 21_000n, returnData: '0x' as Hex, detail: undefined }
const claimed = async (journal: ReturnType<typeof openJournal>, params: Parameters<ReturnType<typeof openJournal>["claim"]>[0]) => {
  const c = await journal.claim(params)
  assert.ok(c.ok, 'claimed')
  return c.record
}

const dir = mkdtempSync(join(tmpdir(), 'journal-test-'))
after(() => rmSync(dir, { recursive: true, force: true }))

describe('openJournal', () => {
  it('keys (sender, nonce) by the address as written for base58 senders, case-insensitively for hex ones', async () => {
    const journal = openJournal({ path: ':memory:' })
    const solana = (sender: string, n: number) => ({ chainId: 'solana:x', intentHash: hash(n), intent: { ...intentOf(1n), sender } })
    // Two Solana keys that differ only in case are two senders.
    await claimed(journal, solana('4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T', 80))
    await claimed(journal, solana('4nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T', 81))
    // One EVM address written in two cases is one sender.
    await claimed(journal, { ...claimOf(82, 5n), intent: intentOf(5n, '0xAbC0000000000000000000000000000000000009') })
    const again = await journal.claim({ ...claimOf(83, 5n), intent: intentOf(5n, '0xabc0000000000000000000000000000000000009') })
    assert.equal(again.ok, false)
    journal.close()
  })

  it('keeps a Solana intent\'s account metas', async () => {
    const journal = openJournal({ path: ':memory:' })
    const accounts = [{ address: 'BPFLoaderUpgradeab1e11111111111111111111111', signer: false, writable: true }]
    await claimed(journal, { chainId: 'solana:x', intentHash: hash(77), intent: { ...intentOf(1n), accounts } })
    assert.deepEqual((await journal.get(hash(77)))?.intent.accounts, accounts)
    journal.close()
  })

  it('refuses a second claim of an intent, or of its (sender, nonce), while claimed, pending or executed', async () => {
    const journal = openJournal({ path: ':memory:' })
    const first = await journal.claim(claimOf(1))
    assert.ok(first.ok)
    const again = await journal.claim(claimOf(1))
    assert.ok(!again.ok && again.holder.id === first.record.id)
    const sameNonce = await journal.claim({ ...claimOf(2, 1n), intent: intentOf(1n, '0xabc0000000000000000000000000000000000001') })
    assert.ok(!sameNonce.ok && sameNonce.holder.id === first.record.id, 'sender compared without case')
    await journal.recordSigned(first.record, signedTx(0))
    assert.ok(!(await journal.claim(claimOf(1))).ok, 'pending holds')
    assert.ok(await journal.settle(first.record, mined))
    assert.ok(!(await journal.claim(claimOf(1))).ok, 'executed holds')
    assert.ok(!(await journal.claim(claimOf(3, 1n))).ok, 'executed holds its (sender, nonce)')
    journal.close()
  })

  it('lets an intent be tried again after a revert or a dropped transaction, numbering and keeping every attempt', async () => {
    const journal = openJournal({ path: ':memory:' })
    const a = await claimed(journal, claimOf(1))
    assert.equal(a.attempt, 1)
    await journal.recordSigned(a, signedTx(0))
    await journal.settle(a, { ...mined, state: 'reverted', status: 0x50 })
    const b = await claimed(journal, claimOf(1))
    assert.ok(b.id !== a.id)
    assert.equal(b.attempt, 2)
    assert.equal((await journal.get(hash(1)))?.id, b.id, 'the latest attempt answers')
    await journal.release(b)
    assert.equal((await journal.get(hash(1)))?.state, 'reverted', 'a released attempt leaves the earlier one')
    const c = await claimed(journal, claimOf(1))
    assert.equal(c.attempt, 2, 'a released attempt number is used again')
    await journal.recordSigned(c, signedTx(1))
    await journal.settle(c, { state: 'dropped', status: 0xf0, detail: 'replaced', blockNumber: undefined, gasUsed: undefined, returnData: undefined })
    const d = await claimed(journal, claimOf(1))
    assert.equal(d.attempt, 3)
    assert.equal((await claimed(journal, claimOf(1, 1n, 'eip155:10'))).attempt, 1, 'attempts are counted per chain')
    journal.close()
  })

  it('settles only a pending record, and only from its own transaction', async () => {
    const journal = openJournal({ path: ':memory:' })
    const a = await claimed(journal, claimOf(1))
    assert.equal(await journal.settle(a, mined), false, 'nothing signed yet')
    await journal.recordSigned(a, signedTx(0))
    const stale = { ...a, transaction: { ...a.transaction!, id: hash(5) } }
    assert.equal(await journal.settle(stale, mined), false, 'another transaction id')
    assert.ok(await journal.settle(a, mined))
    assert.equal(await journal.settle(a, { ...mined, state: 'reverted' }), false, 'already settled')
    assert.equal((await journal.get(hash(1)))?.state, 'mined')
    journal.close()
  })

  it('keeps chains apart', async () => {
    const journal = openJournal({ path: ':memory:' })
    assert.ok((await journal.claim(claimOf(1, 1n, 'eip155:1'))).ok)
    assert.ok((await journal.claim(claimOf(1, 1n, 'eip155:10'))).ok)
    assert.equal((await journal.get(hash(1), 'eip155:10'))?.chainId, 'eip155:10')
    journal.close()
  })

  it('lists the unsettled transactions of one relayer on one chain, in the order they were signed', async () => {
    const journal = openJournal({ path: ':memory:' })
    const other = '0x00000000000000000000000000000000000000bB'
    const [r1, r2, r3, r4] = [await claimed(journal, claimOf(1)), await claimed(journal, claimOf(2)), await claimed(journal, claimOf(3)), await claimed(journal, claimOf(4))]
    // Signed in another order than claimed: the relayer hands out nonces in signing order.
    await journal.recordSigned(r3!, signedTx(10))
    await journal.recordSigned(r1!, signedTx(11))
    await journal.recordSigned(r4!, signedTx(0, other))
    await journal.recordSigned(r2!, signedTx(12))
    const of = async (chainId: string, who: string) => (await journal.pending({ chainId, relayer: who })).map((r) => r.transaction!.details.txNonce)
    assert.deepEqual(await of('eip155:1', relayer), [10, 11, 12])
    assert.deepEqual(await of('eip155:1', other), [0])
    assert.deepEqual(await of('eip155:10', relayer), [])
    assert.deepEqual((await journal.pending()).map((r) => r.intentHash), [hash(3), hash(1), hash(4), hash(2)])
    await journal.settle(r1!, mined)
    assert.deepEqual(await of('eip155:1', relayer), [10, 12])
    // Signed again (a new transaction for the same attempt): it moves to the end.
    await journal.recordSigned(r3!, signedTx(13))
    assert.deepEqual(await of('eip155:1', relayer), [12, 13])
    assert.equal(await journal.pendingCount(), 3)
    journal.close()
  })

  it('keeps signed records across a reopen and gives back claims that never signed', async () => {
    const path = join(dir, 'reopen', 'journal.sqlite')
    const first = openJournal({ path })
    const signed = await claimed(first, claimOf(1))
    await claimed(first, claimOf(2))
    await first.recordSigned(signed, signedTx(4))
    first.close()

    const second = openJournal({ path })
    const [pending, ...rest] = await second.pending()
    assert.equal(rest.length, 0)
    assert.equal(pending?.intentHash, hash(1))
    assert.deepEqual(pending?.transaction, signedTx(4))
    assert.deepEqual(pending?.intent, { ...intentOf(1n), sender: '0xAbC0000000000000000000000000000000000001' })
    assert.equal(await second.get(hash(2)), undefined, 'the unsigned claim was released')
    assert.ok((await second.claim(claimOf(2))).ok)
    second.close()
    assert.equal(readdirSync(join(dir, 'reopen')).filter((f) => f.endsWith('.bak')).length, 0, 'a current file is not copied')
  })

  it('round-trips a Sui record: base58 digest, base64 bytes, the gas coin in its details', async () => {
    const path = join(dir, 'sui', 'journal.sqlite')
    const digest = '5BzvQ3xQeXWbKNGrL8bKAG4C4GRb9iLw7ZLpVkZcRoxM'
    const tx: SignedExecution = {
      id: digest,
      bytes: Buffer.from('sui transaction bytes and signature').toString('base64'),
      relayer: `0x${'ab'.repeat(32)}`,
      details: { gasCoin: { objectId: `0x${'ce'.repeat(32)}`, version: '18446744073709551615' } },
    }
    const first = openJournal({ path })
    const record = await claimed(first, { ...claimOf(1, 1n, 'sui:localnet') })
    await first.recordSigned(record, tx)
    first.close()

    const second = openJournal({ path })
    const [pending] = await second.pending({ chainId: 'sui:localnet', relayer: tx.relayer })
    assert.deepEqual(pending?.transaction, tx)
    assert.equal(pending?.attempt, 1)
    assert.ok(await second.settle(pending!, { ...mined, returnData: undefined }))
    const settled = await second.get(hash(1), 'sui:localnet')
    assert.equal(settled?.state, 'mined')
    assert.equal(settled?.transaction?.id, digest)
    second.close()
  })

  it('upgrades a journal written by the first gateway (schema 1) at start-up, keeping every record, and copies it first', async () => {
    const path = join(dir, 'v1', 'journal.sqlite')
    mkdirSync(join(dir, 'v1'))
    const v1Intent = (n: bigint) => JSON.stringify(intentOf(n), (_, v) => (typeof v === 'bigint' ? v.toString() : v))
    const row = { chain_id: 'eip155:1', sender: '0xabc0000000000000000000000000000000000001', relayer, created_at: 1_700_000_000_000, updated_at: 1_700_000_000_500 }
    const raw = (n: number) => `0x02f8${n.toString(16).padStart(4, '0')}`
    writeV1Journal(
      path,
      [
        // Intent 1: a revert, then an executed second try.
        { ...row, id: 1, intent_hash: hash(1), intent_nonce: '1', intent: v1Intent(1n), state: 'reverted', status: 0x50, tx_nonce: 3, transaction_hash: hash(1003), raw_transaction: raw(3), block_number: '40', gas_used: '50000', detail: 'denied' },
        { ...row, id: 2, intent_hash: hash(1), intent_nonce: '1', intent: v1Intent(1n), state: 'mined', status: 0x11, tx_nonce: 4, transaction_hash: hash(1004), raw_transaction: raw(4), block_number: '41', gas_used: '60000', return_data: '0x' },
        // Two pending ones, claimed in the other order than their nonces.
        { ...row, id: 4, intent_hash: hash(2), intent_nonce: '2', intent: v1Intent(2n), state: 'pending', status: 0xf3, tx_nonce: 6, transaction_hash: hash(1006), raw_transaction: raw(6) },
        { ...row, id: 5, intent_hash: hash(3), intent_nonce: '3', intent: v1Intent(3n), state: 'pending', status: 0xf3, tx_nonce: 5, transaction_hash: hash(1005), raw_transaction: raw(5) },
        // A claim a crash left behind, and a released one (id 7, deleted) above every kept id.
        { ...row, id: 6, intent_hash: hash(4), intent_nonce: '4', intent: v1Intent(4n), state: 'claimed', status: 0xf3, relayer: null },
        { ...row, id: 7, intent_hash: hash(5), intent_nonce: '5', intent: v1Intent(5n), state: 'claimed', status: 0xf3, relayer: null },
      ],
      { deleteIds: [7] },
    )

    const journal = openJournal({ path })
    const evm = (n: number) => ({ id: hash(1000 + n), bytes: Buffer.from(raw(n).slice(2), 'hex').toString('base64'), relayer, details: { txNonce: n } })
    const mined = await journal.get(hash(1), 'eip155:1')
    assert.deepEqual(
      { ...mined, createdAt: mined?.createdAt.getTime(), updatedAt: mined?.updatedAt.getTime() },
      {
        id: 2,
        chainId: 'eip155:1',
        intentHash: hash(1),
        attempt: 2,
        intent: intentOf(1n),
        state: 'mined',
        status: 0x11,
        transaction: evm(4),
        blockNumber: 41n,
        // Schema 3: what was reported final stays final; the chain instance is unknown.
        blockHash: undefined,
        final: true,
        chainInstance: undefined,
        gasUsed: 60000n,
        returnData: '0x',
        detail: undefined,
        createdAt: 1_700_000_000_000,
        updatedAt: 1_700_000_000_500,
      },
    )
    // The pending ones, to be reconciled in nonce order; the left-over claim given back.
    const pending = await journal.pending({ chainId: 'eip155:1', relayer })
    assert.deepEqual(pending.map((r) => [r.id, r.attempt, r.transaction]), [[5, 1, evm(5)], [4, 1, evm(6)]])
    assert.equal(await journal.get(hash(4)), undefined)
    assert.equal(await journal.pendingCount(), 2)
    // Exactly-once holds on the upgraded records, and new ids go above every id ever used.
    assert.ok(!(await journal.claim(claimOf(1))).ok, 'the executed intent is held')
    assert.ok(!(await journal.claim(claimOf(9, 2n))).ok, "the pending intent's (sender, nonce) is held")
    const next = await claimed(journal, claimOf(6))
    assert.equal(next.id, 8)
    await journal.recordSigned(next, signedTx(7))
    assert.deepEqual((await journal.pending({ chainId: 'eip155:1', relayer })).map((r) => r.transaction!.details.txNonce), [5, 6, 7])
    journal.close()

    // Upgraded once: the version is recorded, the copy of the old file kept and still a version-1 file.
    const db = new Database(path, { readonly: true })
    assert.equal(db.pragma('user_version', { simple: true }), journalSchemaVersion)
    db.close()
    const copies = readdirSync(join(dir, 'v1')).filter((f) => /^journal\.sqlite\.v0-\d+\.bak$/.test(f))
    assert.equal(copies.length, 1)
    const copy = new Database(join(dir, 'v1', copies[0]!), { readonly: true })
    assert.equal((copy.prepare('SELECT COUNT(*) AS n FROM executions WHERE raw_transaction IS NOT NULL').get() as { n: number }).n, 4)
    copy.close()
    const again = openJournal({ path })
    assert.equal((await again.pending()).length, 3)
    again.close()
    assert.equal(readdirSync(join(dir, 'v1')).filter((f) => f.endsWith('.bak')).length, 1, 'no second copy')
  })

  it('journals a replacement as a new attempt before it is broadcast; whichever attempt is mined settles the intent', async () => {
    const journal = openJournal({ path: ':memory:' })
    const first = await claimed(journal, claimOf(40))
    await journal.recordSigned(first, signedTx(8))
    const repriced = { ...signedTx(8), id: hash(2008) }
    const second = await journal.replace(first, repriced, 'replaced by attempt 2: fees raised')
    assert.deepEqual([first.state, first.status, second.state, second.attempt, second.transaction?.id], ['dropped', 0xf0, 'pending', 2, hash(2008)])
    assert.deepEqual((await journal.pending()).map((r) => r.id), [second.id], 'only the live attempt is pending')
    assert.ok(!(await journal.claim(claimOf(40))).ok, 'the intent stays held')
    assert.deepEqual(await journal.replaced(second), [first.transaction])
    // The first transaction is the one mined: it takes the outcome; the second is replaced.
    assert.equal(await journal.settle(second, { ...mined, transactionId: first.transaction!.id }), true)
    assert.equal(second.state, 'dropped')
    assert.match(second.detail ?? '', /attempt 1 .* was mined instead/)
    const now = await journal.get(hash(40), 'eip155:1')
    assert.deepEqual([now?.id, now?.state, now?.final], [first.id, 'mined', true])
    // And the other way: a third intent whose replacement is mined.
    const a = await claimed(journal, claimOf(41))
    await journal.recordSigned(a, signedTx(9))
    const b = await journal.replace(a, { ...signedTx(9), id: hash(2009) }, 'fees raised')
    assert.equal(await journal.settle(b, { ...mined, transactionId: hash(2009) }), true)
    assert.deepEqual([(await journal.get(hash(41)))?.id, (await journal.get(hash(41)))?.state, a.state], [b.id, 'mined', 'dropped'])
    journal.close()
  })

  it('keeps a settlement unconfirmed until confirmed, reopens it after a reorg, and retires a live record of a reset chain', async () => {
    const journal = openJournal({ path: ':memory:' })
    const r = await claimed(journal, { ...claimOf(50), chainInstance: 'genesis-a' })
    assert.equal(r.chainInstance, 'genesis-a')
    await journal.recordSigned(r, signedTx(10))
    await journal.settle(r, { ...mined, blockHash: '0xb1', final: false })
    assert.deepEqual((await journal.unconfirmed()).map((x) => [x.id, x.blockHash, x.final]), [[r.id, '0xb1', false]])
    assert.equal(await journal.reopen(r, 'reopened: reorg'), true)
    assert.deepEqual([r.state, r.blockNumber, r.blockHash, r.status], ['pending', undefined, undefined, 0xf3])
    assert.deepEqual((await journal.pending()).map((x) => x.id), [r.id])
    await journal.settle(r, { ...mined, blockHash: '0xb2', final: false })
    assert.equal(await journal.confirm(r), true)
    assert.equal(await journal.reopen(r, 'too late'), false, 'a final record is not reopened')
    assert.deepEqual(await journal.unconfirmed(), [])
    // Another instance of the chain: the mined record is listed, and retired frees the intent.
    assert.deepEqual((await journal.otherInstances('eip155:1', 'genesis-a')).map((x) => x.id), [])
    assert.deepEqual((await journal.otherInstances('eip155:1', 'genesis-b')).map((x) => x.id), [r.id])
    assert.equal(await journal.retire(r, 'the chain was reset'), true)
    assert.deepEqual([r.state, r.status, r.detail], ['dropped', 0xf0, 'the chain was reset'])
    assert.ok((await journal.claim(claimOf(50))).ok)
    journal.close()
  })

  it('refuses a journal written by a newer gateway, leaving it untouched', () => {
    const path = join(dir, 'newer.sqlite')
    const db = new Database(path)
    db.pragma(`user_version = ${journalSchemaVersion + 1}`)
    db.close()
    assert.throws(
      () => openJournal({ path }),
      (err: unknown) => err instanceof ConfigError && err.message.includes(`JOURNAL_PATH: cannot open the execution journal at ${path}: it has journal schema version ${journalSchemaVersion + 1}, newer than this gateway's ${journalSchemaVersion}`),
    )
    const after = new Database(path, { readonly: true })
    assert.equal(after.pragma('user_version', { simple: true }), journalSchemaVersion + 1)
    after.close()
  })

  it('takes a consistent backup while open, which opens as a journal of its own', async () => {
    const path = join(dir, 'live.sqlite')
    const journal = openJournal({ path })
    const c = await claimed(journal, claimOf(1))
    await journal.recordSigned(c, signedTx(3))
    const copy = join(dir, 'backups', 'copy.sqlite')
    await journal.backup(copy)
    journal.close()
    const restored = openJournal({ path: copy })
    assert.deepEqual((await restored.pending())[0]?.transaction, signedTx(3))
    restored.close()
  })

  it('refuses a second gateway on the same file, naming JOURNAL_PATH', () => {
    const path = join(dir, 'locked.sqlite')
    const first = openJournal({ path })
    assert.throws(() => openJournal({ path }), (err: unknown) => err instanceof ConfigError && /JOURNAL_PATH: .* in use by another gateway/.test(err.message))
    first.close()
    openJournal({ path }).close()
    assert.ok(existsSync(path))
  })

  it('names JOURNAL_PATH when the file cannot be opened', () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, '')
    assert.throws(() => openJournal({ path: join(file, 'journal.sqlite') }), (err: unknown) => err instanceof ConfigError && /JOURNAL_PATH/.test(err.message))
  })
})
