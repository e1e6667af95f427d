import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import pino from 'pino'
import type { PaymentLedger, PaymentRecord } from '../ports/paymentLedger.ts'
import { resolveUnresolvedPayments } from './resolveUnresolvedPayments.ts'

describe('resolveUnresolvedPayments: a reservation left reserved', () => {
  it('is said once at its level, then at debug at every pass after, and again once it was gone and came back', async () => {
    const lines: { level: number; msg: string; paymentId?: number }[] = []
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
    // A reservation on a network no mechanism reads here: left unresolved at every pass.
    let reserved: PaymentRecord[] = [{ id: 3, network: 'eip155:424242', state: 'reserved' } as unknown as PaymentRecord]
    const ledger = { unresolved: async () => reserved } as unknown as PaymentLedger
    const told = new Set<number>()
    const pass = () => resolveUnresolvedPayments({ ledger, reads: new Map(), logger, when: 'periodic', told })
    const said = () => lines.filter((l) => l.paymentId === 3).map((l) => pino.levels.labels[l.level])

    for (let i = 0; i < 4; i++) await pass()
    assert.deepEqual(said(), ['warn', 'debug', 'debug', 'debug'])
    assert.match(lines[0]!.msg, /left unresolved: no client for its network/)

    reserved = []
    await pass()
    assert.equal(told.size, 0, 'a payment no longer reserved is forgotten')
    reserved = [{ id: 3, network: 'eip155:424242', state: 'reserved' } as unknown as PaymentRecord]
    await pass()
    assert.deepEqual(said(), ['warn', 'debug', 'debug', 'debug', 'warn'])
  })
})
