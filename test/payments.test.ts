// x402 payments end to end: a real anvil, the real DemoDollar, the payments core with the
// in-process facilitator, the Fastify adapter on a minimal priced route, and the unmodified
// @x402/fetch client paying.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import { privateKeyToAccount } from 'viem/accounts'
import { demoDollarArtifact } from '../src/contracts/demoDollarArtifact.ts'
import { devnetAccounts } from '../src/devnet/devnetAccounts.ts'
import { intentHashOf, payingClient, postJson, price, startPaymentsWorld, type PaymentsWorld } from './support/paymentsWorld.ts'

describe('x402 payments with the unmodified @x402/fetch client', () => {
  let world: PaymentsWorld
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  before(async () => {
    world = await startPaymentsWorld()
  })
  after(async () => {
    await world?.stop()
  })

  const payTo = () => world.devnet.demo.payment.payTo
  const requiredOf = async (res: Response) => decodePaymentRequiredHeader(res.headers.get('payment-required')!)
  /** A signed payment for the route's 402, made by the unmodified client, as a PAYMENT-SIGNATURE header. */
  async function paymentFor(id: string, key = devnetAccounts.payer): Promise<{ header: string; payload: PaymentPayload; required: PaymentRequired }> {
    const unpaid = await fetch(world.paid.url, postJson({ id }))
    assert.equal(unpaid.status, 402)
    const { client, http } = payingClient(world.devnet, key)
    const required = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json())
    const payload = await client.createPaymentPayload(required)
    return { header: encodePaymentSignatureHeader(payload), payload, required }
  }

  it('answers an unpaid request 402 0x55 with PAYMENT-REQUIRED, the same object in the body, no-store', async () => {
    const res = await fetch(world.paid.url, postJson({ id: 'unpaid' }))
    assert.equal(res.status, 402)
    assert.equal(res.headers.get('x-payment-required'), 'true')
    assert.equal(res.headers.get('x-erc1066-status'), '0x55')
    assert.equal(res.headers.get('cache-control'), 'no-store')
    assert.match(res.headers.get('content-type')!, /^application\/problem\+json/)
    const header = await requiredOf(res)
    const body = (await res.json()) as { paymentRequired: PaymentRequired; status: number; erc1066Status: string; intentHash: string }
    assert.deepEqual(body.paymentRequired, header)
    assert.equal(body.erc1066Status, '0x55')
    assert.equal(body.intentHash, intentHashOf('unpaid'))
    assert.equal(header.x402Version, 2)
    assert.equal(header.error, 'Payment required')
    assert.equal(header.resource.url, world.paid.url)
    assert.equal(header.accepts.length, 1)
    assert.deepEqual({ ...header.accepts[0], extra: undefined }, {
      scheme: 'exact',
      network: 'eip155:31337',
      asset: world.devnet.contracts.dollar,
      amount: String(price),
      payTo: payTo(),
      maxTimeoutSeconds: 300,
      extra: undefined,
    })
    assert.equal(header.accepts[0]!.extra.name, 'Demo Dollar')
    assert.equal(header.accepts[0]!.extra.version, '1')
    assert.deepEqual(world.paid.effects, [])
  })

  it('serves a request paid by wrapFetchWithPayment: the payer pays exactly the price, pay-to gets it, PAYMENT-RESPONSE says success', async () => {
    const [payerBefore, payToBefore] = [await world.balanceOf(payer), await world.balanceOf(payTo())]
    const res = await payingClient(world.devnet).fetch(world.paid.url, postJson({ id: 'paid-1' }))
    assert.equal(res.status, 200)
    assert.deepEqual(await res.json(), { id: 'paid-1', done: true })
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    assert.equal(settlement.success, true)
    assert.equal(settlement.network, 'eip155:31337')
    assert.equal(settlement.payer?.toLowerCase(), payer.toLowerCase())
    const receipt = await world.clients.publicClient.getTransactionReceipt({ hash: settlement.transaction as `0x${string}` })
    assert.equal(receipt.status, 'success')
    assert.equal(receipt.from.toLowerCase(), privateKeyToAccount(devnetAccounts.facilitator).address.toLowerCase(), 'settled by the facilitator key, not the relayer')
    assert.equal(await world.balanceOf(payer), payerBefore - price)
    assert.equal(await world.balanceOf(payTo()), payToBefore + price)
    assert.deepEqual(world.paid.effects, ['paid-1'])
    const [record] = await world.ledger.forIntent('eip155:31337', intentHashOf('paid-1'))
    assert.equal(record?.state, 'consumed')
    assert.equal(record?.transaction, settlement.transaction)
  })
})
