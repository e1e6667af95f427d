// The journal's contract, the same for every backend (SQLite, PostgreSQL): each backend's test
// file runs it against journals it opens empty.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import type { Address, Hex } from 'viem'
import type { SignedExecution } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'
import type { Journal } from '../../src/ports/journal.ts'

export const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
export const relayer = '0x00000000000000000000000000000000000000Aa' as Address
export const intentOf = (nonce: bigint, sender = '0xAbC0000000000000000000000000000000000001'): Intent => ({
  sender,
  target: '0x0000000000000000000000000000000000000002',
  data: '0xd09de08a',
  value: 10n ** 30n, // beyond 2^64: must survive the round trip
  nonce,
  validAfter: 0n,
  validBefore: 2n ** 255n,
  policyId: hash(9),
})
export const claimOf = (n: number, nonce = BigInt(n), chainId = 'eip155:1') => ({
  chainId,
  intentHash: hash(n),
  intent: intentOf(nonce),
})
/** An EVM-shaped signed execution (the journal does not look inside bytes or details). */
export const signedTx = (txNonce: number, from: string = relayer): SignedExecution => ({
  id: hash(1000 + txNonce),
  bytes: Buffer.from(`02f8${txNonce.toString(16).padStart(4, '0')}`, 'hex').toString('base64'),
  relayer: from,
  details: { txNonce },
})
export const mined = {
  state: 'mined' as const,
  status: 0x11,
  blockNumber: 7n,
  gasUsed: 21_000n,
  returnData: '0x' as Hex,
  detail: undefined,
}
export const claimed = async (journal: Journal, params: Parameters<Journal['claim']>[0]) => {
  const c = await journal.claim(params)
  assert.ok(c.ok, 'claimed')
  return c.record
}

/** The journal's contract, the same for every backend. */
export function journalContract(open: () => Promise<Journal>) {
  it('keys (sender, nonce) by the address as written for base58 senders, case-insensitively for hex ones', async () => {
    const journal = await open()
    const solana = (sender: string, n: number) => ({
      chainId: 'solana:x',
      intentHash: hash(n),
      intent: { ...intentOf(1n), sender },
    })
    // Two Solana keys that differ only in case are two senders.
    await claimed(journal, solana('4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T', 80))
    await claimed(journal, solana('4nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T', 81))
    // One EVM address written in two cases is one sender.
    await claimed(journal, { ...claimOf(82, 5n), intent: intentOf(5n, '0xAbC0000000000000000000000000000000000009') })
    const again = await journal.claim({
      ...claimOf(83, 5n),
      intent: intentOf(5n, '0xabc0000000000000000000000000000000000009'),
    })
    assert.equal(again.ok, false)
    await journal.close()
  })

  it("keeps a Solana intent's account metas", async () => {
    const journal = await open()
    const accounts = [{ address: 'BPFLoaderUpgradeab1e11111111111111111111111', signer: false, writable: true }]
    await claimed(journal, { chainId: 'solana:x', intentHash: hash(77), intent: { ...intentOf(1n), accounts } })
    assert.deepEqual((await journal.get(hash(77)))?.intent.accounts, accounts)
    await journal.close()
  })

  it('refuses a second claim of an intent, or of its (sender, nonce), while claimed, pending or executed', async () => {
    const journal = await open()
    const first = await journal.claim(claimOf(1))
    assert.ok(first.ok)
    const again = await journal.claim(claimOf(1))
    assert.ok(!again.ok && again.holder.id === first.record.id)
    const sameNonce = await journal.claim({
      ...claimOf(2, 1n),
      intent: intentOf(1n, '0xabc0000000000000000000000000000000000001'),
    })
    assert.ok(!sameNonce.ok && sameNonce.holder.id === first.record.id, 'sender compared without case')
    await journal.recordSigned(first.record, signedTx(0))
    assert.ok(!(await journal.claim(claimOf(1))).ok, 'pending holds')
    assert.ok(await journal.settle(first.record, mined))
    assert.ok(!(await journal.claim(claimOf(1))).ok, 'executed holds')
    assert.ok(!(await journal.claim(claimOf(3, 1n))).ok, 'executed holds its (sender, nonce)')
    await journal.close()
  })

  it('lets a dropped intent be tried again, numbering and keeping every attempt, and holds a reverted one for good', async () => {
    const journal = await open()
    const a = await claimed(journal, claimOf(1))
    assert.equal(a.attempt, 1)
    await journal.recordSigned(a, signedTx(0))
    await journal.settle(a, {
      state: 'dropped',
      status: 0xf0,
      detail: 'replaced',
      blockNumber: undefined,
      gasUsed: undefined,
      returnData: undefined,
    })
    const b = await claimed(journal, claimOf(1))
    assert.ok(b.id !== a.id)
    assert.equal(b.attempt, 2)
    assert.equal((await journal.get(hash(1)))?.id, b.id, 'the latest attempt answers')
    assert.equal((await journal.attempt('eip155:1', hash(1), 1))?.id, a.id, 'each attempt is kept')
    await journal.release(b)
    assert.equal((await journal.get(hash(1)))?.state, 'dropped', 'a released attempt leaves the earlier one')
    const c = await claimed(journal, claimOf(1))
    assert.equal(c.attempt, 2, 'a released attempt number is used again')
    await journal.recordSigned(c, signedTx(1))
    await journal.settle(c, { ...mined, state: 'reverted', status: 0x50 })
    // An intent hash has one outcome: a revert is final.
    const again = await journal.claim(claimOf(1))
    assert.ok(
      !again.ok && again.holder.id === c.id && again.holder.state === 'reverted',
      'a reverted intent holds its hash',
    )
    // A revert uses no nonce: another intent with the same sender and nonce may run.
    assert.ok((await journal.claim({ ...claimOf(2, 1n) })).ok, 'a revert does not hold the (sender, nonce)')
    assert.equal((await claimed(journal, claimOf(1, 1n, 'eip155:10'))).attempt, 1, 'attempts are counted per chain')
    await journal.close()
  })

  it('prunes what was settled for good before the cutoff, and nothing an open attempt still needs', async () => {
    const journal = await open()
    const settle = async (n: number, txNonce: number, s: Parameters<Journal['settle']>[1]) => {
      const r = await claimed(journal, claimOf(n))
      await journal.recordSigned(r, signedTx(txNonce))
      await journal.settle(r, s)
      return r
    }
    await settle(41, 0, mined)
    await settle(42, 1, { ...mined, state: 'reverted', status: 0x50 })
    await settle(43, 2, { ...mined, final: false })
    // Intent 44: a dropped attempt, then an open one that may still be settled by the dropped one's transaction.
    await settle(44, 3, {
      state: 'dropped',
      status: 0xf0,
      detail: 'replaced',
      blockNumber: undefined,
      gasUsed: undefined,
      returnData: undefined,
    })
    const open44 = await claimed(journal, claimOf(44))
    await journal.recordSigned(open44, signedTx(4))
    const payment = await journal.payments.reserve({
      network: 'eip155:1',
      asset: relayer,
      payer: relayer,
      nonce: hash(90),
      route: 'execute',
      chainId: 'eip155:1',
      intentHash: hash(41),
      amount: '1',
      payTo: relayer,
      paymentId: undefined,
      payloadHash: hash(91),
      validBefore: 0n,
    })
    assert.equal(payment.kind, 'reserved')
    await journal.payments.markSettled(payment.payment.id, hash(92))
    await journal.payments.markConsumed(payment.payment.id)

    assert.deepEqual(
      await journal.prune(new Date(Date.now() - 60_000)),
      { executions: 0, payments: 0, webhooks: 0 },
      'nothing is that old',
    )
    assert.deepEqual(await journal.prune(new Date(Date.now() + 1_000)), { executions: 2, payments: 1, webhooks: 0 })
    assert.equal(await journal.get(hash(41)), undefined, 'executed and final: pruned')
    assert.equal(await journal.get(hash(42)), undefined, 'reverted and final: pruned')
    assert.equal((await journal.get(hash(43)))?.state, 'mined', 'not final: kept')
    assert.equal(
      (await journal.attempt('eip155:1', hash(44), 1))?.state,
      'dropped',
      'the attempt an open one replaced: kept',
    )
    assert.equal((await journal.get(hash(44)))?.state, 'pending')
    assert.deepEqual(await journal.payments.forIntent('eip155:1', hash(41)), [])
    // A pruned reverted intent is no longer held: its outcome is forgotten.
    assert.ok((await journal.claim(claimOf(42))).ok)
    await journal.close()
  })

  it("keys a Solana payment by its base58 payer exactly, keeps a settlement id known at reservation, and a pending settlement's request for one taker", async () => {
    const journal = await open()
    const solana = {
      network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      asset: 'So11111111111111111111111111111111111111112',
      nonce: hash(95),
      route: 'execute',
      chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      amount: '10000',
      payTo: '9cAFihkyRRfWvpr1LiXCzgx4Y9brKpYDtzyUMCaLpvba',
      paymentId: undefined,
      payloadHash: hash(96),
      validBefore: 2n ** 40n,
    }
    const payer = '78Y9a59Dxts8ceD2ihJFuu4zMzz5jFt9zUsaYGhEn5mL'
    const kept = JSON.stringify({ solanaBlockhash: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1' })
    const first = await journal.payments.reserve({
      ...solana,
      payer,
      intentHash: hash(51),
      transaction: 'NsGZa9o5ze7QCDb2r6i1Uo2UWRd21bRQUeSCo8T4exzuAn6eTVad9AyUBFYQFeWmTpYx1Pop3xdL3tfPiLrrv8h',
      settlementPayload: kept,
    })
    assert.equal(first.kind, 'reserved')
    assert.equal(
      await journal.payments.settlementPayloadOf(first.payment.id),
      kept,
      'what finds the settlement after a crash is written with the reservation itself',
    )
    assert.equal(first.payment.payer, payer, 'base58 kept as spelt')
    assert.equal(
      first.payment.transaction,
      'NsGZa9o5ze7QCDb2r6i1Uo2UWRd21bRQUeSCo8T4exzuAn6eTVad9AyUBFYQFeWmTpYx1Pop3xdL3tfPiLrrv8h',
    )
    assert.equal(first.payment.state, 'reserved')
    assert.equal(
      (await journal.payments.reserve({ ...solana, payer, intentHash: hash(52) })).kind,
      'authorization-used',
      'the same transaction pays once',
    )
    const other = await journal.payments.reserve({
      ...solana,
      payer: payer.toLowerCase(),
      intentHash: hash(53),
      settlementPayload: 'first',
    })
    assert.equal(other.kind, 'reserved', 'another base58 key is another payer')
    // Released and reserved again: the payload is the new reservation's, not the released one's.
    await journal.payments.markReleased(other.payment.id, 'unused')
    const again = await journal.payments.reserve({ ...solana, payer: payer.toLowerCase(), intentHash: hash(54) })
    assert.equal(again.kind, 'reserved')
    assert.equal(await journal.payments.settlementPayloadOf(again.payment.id), undefined)
    const request = {
      method: 'POST' as const,
      url: '/intents/execute',
      headers: { 'x-chain-id': 'solana:x' },
      body: { nonce: '1' },
    }
    await journal.payments.markSettlementPending(first.payment.id, 'pendingTx', 'settlement_pending: waiting', request)
    const pending = (await journal.payments.forIntent(solana.chainId, hash(51)))[0]!
    assert.deepEqual(
      {
        state: pending.state,
        transaction: pending.transaction,
        reason: pending.reason,
        pendingRequest: pending.pendingRequest,
      },
      { state: 'reserved', transaction: 'pendingTx', reason: 'settlement_pending: waiting', pendingRequest: request },
    )
    await journal.payments.markSettled(first.payment.id, 'pendingTx')
    assert.deepEqual(
      (await journal.payments.credits()).map((c) => c.pendingRequest),
      [request],
    )
    assert.deepEqual(
      await Promise.all([
        journal.payments.takePendingRequest(first.payment.id),
        journal.payments.takePendingRequest(first.payment.id),
      ]).then((r) => r.sort()),
      [false, true],
      'taken once',
    )
    assert.equal((await journal.payments.credits())[0]!.pendingRequest, undefined)
    await journal.close()
  })

  it('settles only a pending record, and only from its own transaction', async () => {
    const journal = await open()
    const a = await claimed(journal, claimOf(1))
    assert.equal(await journal.settle(a, mined), false, 'nothing signed yet')
    await journal.recordSigned(a, signedTx(0))
    const stale = { ...a, transaction: { ...a.transaction!, id: hash(5) } }
    assert.equal(await journal.settle(stale, mined), false, 'another transaction id')
    assert.ok(await journal.settle(a, mined))
    assert.equal(await journal.settle(a, { ...mined, state: 'reverted' }), false, 'already settled')
    assert.equal((await journal.get(hash(1)))?.state, 'mined')
    await journal.close()
  })

  it('keeps chains apart', async () => {
    const journal = await open()
    assert.ok((await journal.claim(claimOf(1, 1n, 'eip155:1'))).ok)
    assert.ok((await journal.claim(claimOf(1, 1n, 'eip155:10'))).ok)
    assert.equal((await journal.get(hash(1), 'eip155:10'))?.chainId, 'eip155:10')
    await journal.close()
  })

  it('lists the unsettled transactions of one relayer on one chain, in the order they were signed', async () => {
    const journal = await open()
    const other = '0x00000000000000000000000000000000000000bB'
    const [r1, r2, r3, r4] = [
      await claimed(journal, claimOf(1)),
      await claimed(journal, claimOf(2)),
      await claimed(journal, claimOf(3)),
      await claimed(journal, claimOf(4)),
    ]
    // Signed in another order than claimed: the relayer hands out nonces in signing order.
    await journal.recordSigned(r3!, signedTx(10))
    await journal.recordSigned(r1!, signedTx(11))
    await journal.recordSigned(r4!, signedTx(0, other))
    await journal.recordSigned(r2!, signedTx(12))
    const of = async (chainId: string, who: string) =>
      (await journal.pending({ chainId, relayer: who })).map((r) => r.transaction!.details.txNonce)
    assert.deepEqual(await of('eip155:1', relayer), [10, 11, 12])
    assert.deepEqual(await of('eip155:1', other), [0])
    assert.deepEqual(await of('eip155:10', relayer), [])
    assert.deepEqual(
      (await journal.pending()).map((r) => r.intentHash),
      [hash(3), hash(1), hash(4), hash(2)],
    )
    await journal.settle(r1!, mined)
    assert.deepEqual(await of('eip155:1', relayer), [10, 12])
    // Signed again (a new transaction for the same attempt): it moves to the end.
    await journal.recordSigned(r3!, signedTx(13))
    assert.deepEqual(await of('eip155:1', relayer), [12, 13])
    assert.equal(await journal.pendingCount(), 3)
    await journal.close()
  })

  it('journals a replacement as a new attempt before it is broadcast; whichever attempt is mined settles the intent', async () => {
    const journal = await open()
    const first = await claimed(journal, claimOf(40))
    await journal.recordSigned(first, signedTx(8))
    const repriced = { ...signedTx(8), id: hash(2008) }
    const second = await journal.replace(first, repriced, 'replaced by attempt 2: fees raised')
    assert.deepEqual(
      [first.state, first.status, second.state, second.attempt, second.transaction?.id],
      ['dropped', 0xf0, 'pending', 2, hash(2008)],
    )
    assert.deepEqual(
      (await journal.pending()).map((r) => r.id),
      [second.id],
      'only the live attempt is pending',
    )
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
    assert.deepEqual(
      [(await journal.get(hash(41)))?.id, (await journal.get(hash(41)))?.state, a.state],
      [b.id, 'mined', 'dropped'],
    )
    await journal.close()
  })

  it("keeps a bundle's bytes once for all its calls, reads them only when asked, and lets retention take them with its last record", async () => {
    const journal = await open()
    // A bundle of 64 KiB (large enough that a copy per call would show), signed for three executions.
    const bytes = Buffer.alloc(64 * 1024, 0xab).toString('base64')
    const bundle = (index: number): SignedExecution => ({
      id: hash(3000),
      bytes,
      relayer,
      details: { txNonce: 20 },
      bundle: { index },
    })
    const calls = await Promise.all([50, 51, 52].map((n) => claimed(journal, claimOf(n))))
    // Two calls recorded in one turn (one statement), the third after them: the bundle is kept once either way.
    await Promise.all([journal.recordSigned(calls[0]!, bundle(0)), journal.recordSigned(calls[1]!, bundle(1))])
    await journal.recordSigned(calls[2]!, bundle(2))
    const single = await claimed(journal, claimOf(53))
    await journal.recordSigned(single, signedTx(21))

    for (const [i, r] of calls.entries())
      assert.deepEqual(r.transaction, {
        id: hash(3000),
        bytes: '',
        relayer,
        details: { txNonce: 20 },
        bundle: { index: i },
      })
    const pending = await journal.pending({ chainId: 'eip155:1', relayer })
    assert.deepEqual(
      pending.map((r) => [r.intentHash, r.transaction?.id, r.transaction?.bundle?.index, r.transaction?.bytes]),
      [
        [hash(50), hash(3000), 0, ''],
        [hash(51), hash(3000), 1, ''],
        [hash(52), hash(3000), 2, ''],
        [hash(53), hash(1021), undefined, signedTx(21).bytes],
      ],
      "read back, a call names its bundle and its index, without the bundle's bytes; a transaction of its own keeps its bytes",
    )
    assert.equal(await journal.transactionBytes('eip155:1', hash(3000)), bytes, 'the bundle, read when asked')
    assert.equal(await journal.transactionBytes('eip155:2', hash(3000)), undefined, 'on its own chain only')
    assert.equal(await journal.transactionBytes('eip155:1', hash(1021)), undefined, 'not a bundle')

    // A call replaced (the whole bundle re-signed with higher fees): the new attempt is a call of the new bundle.
    const repriced = { ...bundle(2), id: hash(3001), bytes: Buffer.alloc(100, 0xcd).toString('base64') }
    const second = await journal.replace(calls[2]!, repriced, 'replaced by attempt 2: fees raised')
    assert.deepEqual(
      [second.transaction?.id, second.transaction?.bundle, second.transaction?.bytes],
      [hash(3001), { index: 2 }, ''],
    )
    assert.equal(await journal.transactionBytes('eip155:1', hash(3001)), repriced.bytes)
    assert.deepEqual(await journal.replaced(second), [calls[2]!.transaction])

    // Retention: the bundle stays while any of its records does.
    for (const r of [calls[0]!, calls[1]!, single]) assert.equal(await journal.settle(r, mined), true)
    assert.equal(await journal.settle(second, { ...mined, transactionId: hash(3000) }), true)
    await journal.prune(new Date(Date.now() + 1_000))
    assert.equal(await journal.get(hash(50)), undefined, 'its records pruned')
    assert.equal(await journal.transactionBytes('eip155:1', hash(3000)), undefined, 'and the bundle with them')
    assert.equal(
      await journal.transactionBytes('eip155:1', hash(3001)),
      undefined,
      'and the replacement, whose record was pruned too',
    )
    await journal.close()
  })

  it('keeps a settlement unconfirmed until confirmed, reopens it after a reorg, and retires a live record of a reset chain', async () => {
    const journal = await open()
    const r = await claimed(journal, { ...claimOf(50), chainInstance: 'genesis-a' })
    assert.equal(r.chainInstance, 'genesis-a')
    await journal.recordSigned(r, signedTx(10))
    await journal.settle(r, { ...mined, blockHash: '0xb1', final: false })
    assert.deepEqual(
      (await journal.unconfirmed()).map((x) => [x.id, x.blockHash, x.final]),
      [[r.id, '0xb1', false]],
    )
    assert.equal(await journal.reopen(r, 'reopened: reorg'), true)
    assert.deepEqual([r.state, r.blockNumber, r.blockHash, r.status], ['pending', undefined, undefined, 0xf3])
    assert.deepEqual(
      (await journal.pending()).map((x) => x.id),
      [r.id],
    )
    await journal.settle(r, { ...mined, blockHash: '0xb2', final: false })
    assert.equal(await journal.confirm(r), true)
    assert.deepEqual(await journal.unconfirmed(), [])
    // Final, then found gone from the same chain instance (a deeper reorg): reopened too, not final again.
    assert.equal(await journal.reopen(r, 'reopened: deep reorg'), true)
    assert.deepEqual([r.state, r.final, r.status], ['pending', false, 0xf3])
    await journal.settle(r, { ...mined, blockHash: '0xb3', final: false })
    assert.equal(await journal.confirm(r), true)
    const dropped = await claimed(journal, { ...claimOf(51), chainInstance: 'genesis-a' })
    await journal.recordSigned(dropped, signedTx(11))
    await journal.settle(dropped, {
      state: 'dropped',
      status: 0xf0,
      blockNumber: undefined,
      gasUsed: undefined,
      returnData: undefined,
      detail: 'replaced',
    })
    assert.equal(await journal.reopen(dropped, 'not settled by a block'), false, 'a dropped record is not reopened')
    // Another instance of the chain: the mined record is listed, and retired frees the intent.
    assert.deepEqual(
      (await journal.otherInstances('eip155:1', 'genesis-a')).map((x) => x.id),
      [],
    )
    assert.deepEqual(
      (await journal.otherInstances('eip155:1', 'genesis-b')).map((x) => x.id),
      [r.id],
    )
    // Instances on both sides of this one (the index is read in two ranges), in the order signed;
    // a record bound to no instance is in neither.
    const later = await claimed(journal, { ...claimOf(52), chainInstance: 'genesis-c' })
    await journal.recordSigned(later, signedTx(12))
    const unbound = await claimed(journal, claimOf(53))
    await journal.recordSigned(unbound, signedTx(13))
    assert.deepEqual(
      (await journal.otherInstances('eip155:1', 'genesis-b')).map((x) => x.id),
      [r.id, later.id],
    )
    assert.deepEqual(
      (await journal.otherInstances('eip155:1', 'genesis-0')).map((x) => x.id),
      [r.id, later.id],
    )
    assert.deepEqual(
      (await journal.otherInstances('eip155:1', 'genesis-c')).map((x) => x.id),
      [r.id],
    )
    assert.deepEqual(await journal.otherInstances('eip155:2', 'genesis-b'), [], 'another chain')
    assert.equal(await journal.retire(r, 'the chain was reset'), true)
    assert.deepEqual([r.state, r.status, r.detail], ['dropped', 0xf0, 'the chain was reset'])
    assert.ok((await journal.claim(claimOf(50))).ok)
    await journal.close()
  })
}
