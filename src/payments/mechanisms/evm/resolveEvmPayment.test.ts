import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import pino from 'pino'
import type { Hex, PublicClient } from 'viem'
import type { PaymentLedger, PaymentRecord } from '../../../ports/paymentLedger.ts'
import type { EvmChainReads } from './createEvmChainReads.ts'
import { resolveEvmPayment } from './resolveEvmPayment.ts'

const payment = {
  id: 7,
  network: 'eip155:31337',
  asset: '0xCba6b9A951749B8735C603e7fFC5151849248772',
  payer: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  nonce: `0x${'01'.repeat(32)}` as Hex,
  validBefore: 10_000n,
  state: 'reserved',
} as unknown as PaymentRecord

/**
 * A chain whose settlement of the payment is mined at block 6: the pass read block 5, and the
 * settlement was mined before the pool was asked (`minedBeforePoolRead`), so neither that block
 * nor the pool shows it.
 */
function world({ minedBeforePoolRead }: { minedBeforePoolRead: boolean }) {
  let head = 5n
  const ended: string[] = []
  const client = {
    getBlock: async () => ({ number: 5n, timestamp: 1_000n }),
    readContract: async ({ blockNumber }: { blockNumber?: bigint }) => (blockNumber ?? head) >= 6n,
    getLogs: async () => [],
  } as unknown as PublicClient
  const reads: EvmChainReads = {
    clientFor: () => client,
    settlementMayBePending: async () => {
      if (minedBeforePoolRead) head = 6n
      return false
    },
    forgetSettlerNonces: () => {},
  }
  const ledger = {
    markReleased: async (_id: number, why: string) => void ended.push(`released: ${why}`),
    markSettled: async (_id: number, _tx: string | undefined, why: string) => void ended.push(`settled: ${why}`),
  } as unknown as PaymentLedger
  const context = {
    ledger,
    log: pino({ level: 'silent' }),
    when: 'start-up' as const,
    reads,
    settler: '0x0000000000000000000000000000000000000F00',
    once: <T>(_key: string, read: () => T) => read(),
    leftReserved: () => {},
  }
  return { ended, resolve: () => resolveEvmPayment(payment, context) }
}

describe('a reserved EVM payment resolved at start-up', () => {
  it('mined after the pass read its block and before the pool was asked: not released as never used', async () => {
    const { ended, resolve } = world({ minedBeforePoolRead: true })
    const resolved = await resolve()
    assert.notEqual(resolved?.outcome, 'released')
    assert.ok(!ended.some((e) => e.startsWith('released')), ended.join('; '))
  })

  it('unused, nothing in the node, still unused after the pool was asked: released', async () => {
    const { ended, resolve } = world({ minedBeforePoolRead: false })
    const resolved = await resolve()
    assert.equal(resolved?.outcome, 'released')
    assert.equal(ended.length, 1)
  })
})
