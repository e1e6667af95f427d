// The pending-settlement resolver holds its sends on a paused chain: a request whose x402
// settlement confirmed stays on its payment (not taken, not sent) while its chain is paused, and
// is sent once the chain resumes; another chain's is sent at once.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import pino from 'pino'
import { deliverPendingRequests } from '../../src/payments/deliverPendingRequests.ts'
import type { PaymentLedger, PendingRequest } from '../../src/ports/paymentLedger.ts'

describe('pending settlements on a paused chain', () => {
  it('are held, still on their payments, until the chain resumes', async () => {
    const request = (url: string): PendingRequest =>
      ({ method: 'POST', url, headers: {}, body: {} }) as unknown as PendingRequest
    const credits = [
      { id: 1, chainId: 'eip155:1', intentHash: '0x01', pendingRequest: request('/intents/execute?a') },
      { id: 2, chainId: 'eip155:2', intentHash: '0x02', pendingRequest: request('/intents/execute?b') },
    ]
    const taken = new Set<number>()
    const ledger = {
      credits: async () => credits.filter((c) => !taken.has(c.id)),
      takePendingRequest: async (id: number) => (taken.has(id) ? false : (taken.add(id), true)),
    } as unknown as PaymentLedger
    const sent: string[] = []
    const deliver = async (r: PendingRequest) => (sent.push(r.url), { httpStatus: 200 })
    let paused = new Set(['eip155:1'])
    const held = (chainId: string) => paused.has(chainId)
    const logger = pino({ level: 'silent' })
    assert.equal(await deliverPendingRequests({ ledger, deliver, logger, held }), 1)
    assert.deepEqual(sent, ['/intents/execute?b'])
    assert.deepEqual([...taken], [2])
    paused = new Set()
    assert.equal(await deliverPendingRequests({ ledger, deliver, logger, held }), 1)
    assert.deepEqual(sent, ['/intents/execute?b', '/intents/execute?a'])
  })
})
