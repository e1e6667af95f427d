import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { claimedPayer, readPaymentHeader } from '../claimedPayer.ts'
import { paymentKeyOf } from '../paymentKeyOf.ts'
import { exactEvm } from './evm/exactEvm.ts'
import { mechanismOf, paymentMechanisms } from './mechanisms.ts'
import { paymentFamilies } from './paymentFamilies.ts'
import { exactSvm } from './svm/exactSvm.ts'

const from = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'
const nonce = `0x${'ab'.repeat(32)}`
const evmPayload = {
  x402Version: 2,
  payload: {
    signature: '0x',
    authorization: { from, to: from, value: '1', validAfter: '0', validBefore: '1900000000', nonce },
  },
} as unknown as PaymentPayload
const requirements = (network: string) =>
  ({
    scheme: 'exact',
    network,
    asset: '0x0000000000000000000000000000000000000001',
    amount: '1',
    payTo: from,
    maxTimeoutSeconds: 60,
    extra: {},
  }) as unknown as PaymentRequirements
const header = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64')

describe('payment mechanisms (payments/mechanisms/<family>)', () => {
  it("finds a network's mechanism by its CAIP-2 namespace only", () => {
    assert.equal(mechanismOf('eip155:8453'), exactEvm)
    assert.equal(mechanismOf('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'), exactSvm)
    assert.equal(mechanismOf('sui:mainnet'), undefined)
    assert.equal(mechanismOf('eip155'), undefined)
    assert.equal(mechanismOf('eip1550:1'), undefined)
  })

  it("keys an EIP-3009 payment by (token, payer, nonce), its bound the authorization's validBefore", () => {
    const key = paymentKeyOf(evmPayload, requirements('eip155:31337'))
    assert.ok(key.ok)
    assert.deepEqual(key.key, {
      network: 'eip155:31337',
      asset: '0x0000000000000000000000000000000000000001',
      payer: from,
      nonce,
    })
    assert.equal(key.validBefore, 1_900_000_000n)
  })

  it('refuses a payment on a network no mechanism pays on, naming it, and an EVM payload without an authorization', () => {
    assert.deepEqual(paymentKeyOf(evmPayload, requirements('sui:mainnet')), {
      ok: false,
      reason: 'invalid_payment_payload: no payment scheme is taken on sui:mainnet',
    })
    const bare = { x402Version: 2, payload: { transaction: 'AAAA' } } as unknown as PaymentPayload
    assert.deepEqual(paymentKeyOf(bare, requirements('eip155:1')), {
      ok: false,
      reason: 'invalid_payment_payload: only EIP-3009 authorizations are accepted',
    })
    const notSolana = paymentKeyOf(bare, requirements('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'))
    assert.equal(notSolana.ok, false)
  })

  it('reads the payer a header names before verification, and nothing from a header it cannot read', () => {
    const read = (raw: string) => claimedPayer(readPaymentHeader(raw))
    assert.equal(read(header(evmPayload)), from)
    assert.equal(read(header({ payload: { authorization: { from: 'not an address' } } })), undefined)
    assert.equal(read(header({ payload: { transaction: 'not base64 of a transaction' } })), undefined)
    assert.equal(read('%%% not base64 json'), undefined)
    assert.equal(read(Buffer.from('null').toString('base64')), undefined)
    assert.equal(read('A'.repeat(16_385)), undefined)
  })

  it('says a reserved payment may still land: always on EVM (the token tells), on Solana only with its settlement id', () => {
    const payment = { network: 'solana:x', transaction: undefined } as never
    assert.equal(exactEvm.mayStillLand(payment), true)
    assert.equal(exactSvm.mayStillLand(payment), false)
    assert.equal(exactSvm.mayStillLand({ network: 'solana:x', transaction: '5ig' } as never), true)
  })

  it('loads one mechanism per family of paymentFamilies.ts, in its order, each knowing its own networks only', async () => {
    assert.deepEqual(
      paymentMechanisms.map((m) => m.namespace),
      ['eip155', 'solana'],
    )
    assert.deepEqual(await Promise.all(paymentFamilies.map((f) => f.loadMechanism())), paymentMechanisms)
    // A network is one family's, and that family's mechanism pays on its namespace.
    assert.deepEqual(
      ['eip155:8453', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'sui:mainnet'].map((network) =>
        paymentFamilies.flatMap((f, i) => (f.isNetwork(network) ? [paymentMechanisms[i]!.namespace] : [])),
      ),
      [['eip155'], ['solana'], []],
    )
  })
})
