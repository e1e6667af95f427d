import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import Database from 'better-sqlite3'
import type { NewReservation } from '../../ports/paymentLedger.ts'
import { createSqlitePaymentLedger } from './createSqlitePaymentLedger.ts'

const payer = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'
const reservation = (overrides: Partial<NewReservation> = {}): NewReservation => ({
  network: 'eip155:31337',
  asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  payer,
  nonce: `0x${'11'.repeat(32)}`,
  amount: '10000',
  payTo: '0x976EA74026E726554dB657fA54763abd0C3a0aa9',
  paymentId: undefined,
  payloadHash: `0x${'aa'.repeat(32)}`,
  validBefore: 2n ** 40n,
  route: 'execute',
  chainId: 'eip155:31337',
  intentHash: `0x${'01'.repeat(32)}`,
  ...overrides,
})

describe('createSqlitePaymentLedger', () => {
  it('lets one authorization be reserved once, whatever its spelling, even by calls started together', async () => {
    const ledger = createSqlitePaymentLedger({ db: new Database(':memory:') })
    const results = await Promise.all([
      ledger.reserve(reservation()),
      ledger.reserve(reservation({ payer: payer.toLowerCase() as never, intentHash: `0x${'02'.repeat(32)}` })),
    ])
    assert.deepEqual(
      results.map((r) => r.kind),
      ['reserved', 'authorization-used'],
    )
    assert.equal(results[1]!.payment.intentHash, `0x${'01'.repeat(32)}`, 'the holder is bound to the first intent')
  })

  it('moves reserved → settled (a credit for its intent only) → consumed, and reserved → released (reservable again)', async () => {
    const ledger = createSqlitePaymentLedger({ db: new Database(':memory:') })
    const first = await ledger.reserve(reservation())
    assert.equal(first.kind, 'reserved')
    const id = first.payment.id
    assert.equal((await ledger.unresolved()).length, 1)
    await ledger.markSettled(id, '0xfeed')
    assert.deepEqual(await ledger.unresolved(), [])
    const binding = { route: 'execute', chainId: 'eip155:31337', intentHash: `0x${'01'.repeat(32)}` as const }
    assert.equal((await ledger.creditFor(binding))?.transaction, '0xfeed')
    assert.equal(await ledger.creditFor({ ...binding, route: 'validate' }), undefined)
    assert.equal(await ledger.creditFor({ ...binding, intentHash: `0x${'02'.repeat(32)}` }), undefined)
    assert.equal(
      (await ledger.reserve(reservation())).kind,
      'authorization-used',
      'a settled authorization never pays twice',
    )
    await ledger.markConsumed(id)
    assert.equal(await ledger.creditFor(binding), undefined)
    assert.deepEqual(
      (await ledger.forIntent('eip155:31337', binding.intentHash)).map((p) => [p.state, p.transaction]),
      [['consumed', '0xfeed']],
    )

    const other = await ledger.reserve(reservation({ nonce: `0x${'22'.repeat(32)}` }))
    await ledger.markReleased(other.payment.id, 'handler refused: 403')
    const again = await ledger.reserve(
      reservation({ nonce: `0x${'22'.repeat(32)}`, intentHash: `0x${'03'.repeat(32)}` }),
    )
    assert.equal(again.kind, 'reserved')
    assert.equal(again.payment.id, other.payment.id)
    assert.equal(again.payment.intentHash, `0x${'03'.repeat(32)}`)
  })

  it('holds a payment-identifier id for one payload: a retry is told apart from a conflicting reuse', async () => {
    const ledger = createSqlitePaymentLedger({ db: new Database(':memory:') })
    const first = await ledger.reserve(reservation({ paymentId: 'pay_0123456789abcdef' }))
    await ledger.saveAnswer(first.payment.id, {
      httpStatus: 200,
      headers: { 'payment-response': 'x' },
      body: { ok: true },
    })
    const retry = await ledger.reserve(reservation({ paymentId: 'pay_0123456789abcdef' }))
    assert.equal(retry.kind, 'payment-id-taken')
    assert.equal(retry.kind === 'payment-id-taken' && retry.samePayload, true)
    assert.deepEqual(retry.payment.answer, {
      httpStatus: 200,
      headers: { 'payment-response': 'x' },
      body: { ok: true },
    })
    const reuse = await ledger.reserve(
      reservation({
        paymentId: 'pay_0123456789abcdef',
        nonce: `0x${'33'.repeat(32)}`,
        payloadHash: `0x${'bb'.repeat(32)}`,
      }),
    )
    assert.equal(reuse.kind === 'payment-id-taken' && reuse.samePayload, false)
  })

  it('keeps its records in the file across reopenings, and creates its table idempotently', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'))
    try {
      const path = join(dir, 'journal.db')
      const db1 = new Database(path)
      await createSqlitePaymentLedger({ db: db1 }).reserve(reservation())
      db1.close()
      const db2 = new Database(path)
      const ledger = createSqlitePaymentLedger({ db: db2 })
      assert.equal((await ledger.unresolved()).length, 1)
      assert.equal((await ledger.reserve(reservation())).kind, 'authorization-used')
      db2.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
