import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import pino from 'pino'
import type { Hex } from 'viem'
import { settlementPendingReason } from '../../settlementPending.ts'
import { type EvmSettlementReader, outcomeOfSignedSettlement } from './outcomeOfSignedSettlement.ts'

const hash = `0x${'ab'.repeat(32)}` as Hex
const payer = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'
const payload = {
  x402Version: 2,
  payload: { authorization: { from: payer, nonce: `0x${'01'.repeat(32)}` }, signature: '0x' },
} as unknown as PaymentPayload
const requirements = {
  scheme: 'exact',
  network: 'eip155:31337',
  asset: '0xCba6b9A951749B8735C603e7fFC5151849248772',
  amount: '10000',
  payTo: '0x976EA74026E726554dB657fA54763abd0C3a0aa9',
} as unknown as PaymentRequirements
const failed: SettleResponse = {
  success: false,
  errorReason: 'invalid_exact_evm_transaction_failed',
  transaction: '',
  network: 'eip155:31337',
}

type Chain = { transaction: 'unknown' | 'pool' | 'success' | 'reverted'; used: boolean }

/**
 * A node whose state `step` changes after each read, in the order the reads reach it: what a read
 * sees is the chain as it stands then.
 */
function node(chain: Chain, step: (chain: Chain, reads: number) => void = () => {}): EvmSettlementReader {
  let reads = 0
  const seen = <T>(read: () => T): Promise<T> => {
    const answer = read()
    step(chain, ++reads)
    return Promise.resolve(answer)
  }
  const notFound = (name: string) => Object.assign(new Error(name), { name })
  return {
    getTransactionReceipt: () =>
      seen(() => chain.transaction).then((t) =>
        t === 'success' || t === 'reverted'
          ? { gasUsed: 50_000n, effectiveGasPrice: 1n, status: t, transactionHash: hash }
          : Promise.reject(notFound('TransactionReceiptNotFoundError')),
      ),
    getTransaction: () =>
      seen(() => chain.transaction).then((t) =>
        t === 'unknown'
          ? Promise.reject(notFound('TransactionNotFoundError'))
          : { blockNumber: t === 'pool' ? null : 1n },
      ),
    readContract: () => seen(() => chain.used),
  }
}

const outcome = (client: EvmSettlementReader) =>
  outcomeOfSignedSettlement({
    client,
    payload,
    requirements,
    signed: [hash],
    answer: failed,
    logger: pino({ level: 'silent' }),
  })

describe('what became of an EVM settlement answered as failed after it was signed', () => {
  it('mined between two of its reads (anvil under load, CI run 47): never the failure, which would make the client pay again', async () => {
    // In the pool at the first read, mined (its authorization used) from the second on.
    const result = await outcome(
      node({ transaction: 'pool', used: false }, (chain, reads) => {
        if (reads === 1) Object.assign(chain, { transaction: 'success', used: true })
      }),
    )
    assert.ok(result.success || result.errorReason === settlementPendingReason, JSON.stringify(result))
  })

  it('mined and its authorization used: settled, with its transaction', async () => {
    const result = await outcome(node({ transaction: 'success', used: true }))
    assert.deepEqual(result, { success: true, transaction: hash, network: 'eip155:31337', payer, amount: '10000' })
  })

  it('mined and successful while its authorization reads unused (an endpoint behind): pending, never a failure', async () => {
    const result = await outcome(node({ transaction: 'success', used: false }))
    assert.equal(result.errorReason, settlementPendingReason)
    assert.equal(result.transaction, hash)
  })

  it('mined and reverted: the failure stands, naming its transaction', async () => {
    const result = await outcome(node({ transaction: 'reverted', used: false }))
    assert.equal(result.success, false)
    assert.equal(result.errorReason, 'invalid_exact_evm_transaction_failed')
    assert.equal(result.transaction, hash)
  })

  it('in the node, not mined: pending', async () => {
    const result = await outcome(node({ transaction: 'pool', used: false }))
    assert.equal(result.errorReason, settlementPendingReason)
  })

  it('its authorization used by a transaction not found: pending', async () => {
    const result = await outcome(node({ transaction: 'unknown', used: true }))
    assert.equal(result.errorReason, settlementPendingReason)
  })

  it('unknown to the node and its authorization unused: the failure stands (nothing was taken)', async () => {
    assert.deepEqual(await outcome(node({ transaction: 'unknown', used: false })), failed)
  })

  it('the chain cannot be read: pending, never "nothing sent"', async () => {
    const client = node({ transaction: 'unknown', used: false })
    const result = await outcome({ ...client, readContract: () => Promise.reject(new Error('HTTP request failed')) })
    assert.equal(result.errorReason, settlementPendingReason)
  })
})
