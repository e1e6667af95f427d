// x402's settlement_pending (api-contract.md §17) on the Solana devnet: a settlement broadcast
// whose confirmation the facilitator could not read in time (a proxy holds the node's answers on
// it) answers 202 0xF3 with Location, never 402; the intent is not sent until the settlement is
// confirmed, and then the periodic resolver sends it, once. A settlement that never lands is
// released once it no longer can, and nothing is charged.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { type SolanaDevnet, startSolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { eventually } from '../support/eventually.ts'
import { type RpcHoldProxy, startRpcHoldProxy } from '../support/rpcHoldProxy.ts'
import { signedSolanaIntent, solanaPayingClient, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import { post, request, type TestGateway } from '../support/testGateway.ts'

describe('x402 settlement_pending (Solana, in-process facilitator)', () => {
  let devnet: SolanaDevnet
  let proxy: RpcHoldProxy
  let gateway: TestGateway
  const price = 10_000n
  const payerBalance = () => devnet.payment.balanceOf(devnet.payment.payer)
  const recipientLamports = async () => (await devnet.rpc.getBalance(devnet.demo.recipient).send()).value
  const execute = (body: unknown, headers: Record<string, string> = {}) =>
    post(gateway.baseUrl, '/intents/execute', body, { 'x-chain-id': devnet.chainId, ...headers })
  const state = (intentHash: string) =>
    request(gateway.baseUrl, `/intents/${intentHash}`, { headers: { 'x-chain-id': devnet.chainId } })
  async function paymentHeader(body: unknown): Promise<string> {
    const unpaid = await execute(body)
    assert.equal(unpaid.status, 402, unpaid.text)
    const { client } = await solanaPayingClient(devnet)
    return encodePaymentSignatureHeader(
      await client.createPaymentPayload(decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!)),
    )
  }

  before(async () => {
    devnet = await startSolanaDevnet()
    proxy = await startRpcHoldProxy(devnet.rpcUrl)
    // The gateway (its facilitator and its relayer) reaches the chain through the proxy; settlements wait 1.5 s for their confirmation.
    gateway = await startSolanaPaidGateway(devnet, {
      rpcUrl: proxy.url,
      receiptTimeoutMs: 1_500,
      reconcileIntervalMs: 200,
    })
  })
  after(async () => {
    await gateway?.close()
    await proxy?.close()
    await devnet?.stop()
  })

  it('answers 202 0xF3 with Location while the settlement is unconfirmed (never 402, even to a retry), and sends the intent once, when it confirms', async () => {
    const { body, intentHash } = signedSolanaIntent(devnet)
    const header = await paymentHeader(body)
    const [payerBefore, lamportsBefore] = [await payerBalance(), await recipientLamports()]

    proxy.holdStatuses(true)
    const pending = await execute(body, { 'payment-signature': header })
    proxy.holdStatuses(false)
    assert.equal(pending.status, 202, pending.text)
    assert.equal(pending.headers.get('x-erc1066-status'), '0xF3')
    assert.equal(pending.headers.get('location'), `/intents/${intentHash}`)
    const settlementTx = proxy.sentSignatures().at(-1)!
    assert.deepEqual(
      {
        status: pending.body.payment.status,
        transaction: pending.body.payment.transaction,
        payer: pending.body.payment.payer,
      },
      { status: 'settlement_pending', transaction: settlementTx, payer: devnet.payment.payer },
    )
    assert.equal(pending.body.transactionHash, undefined, 'no execution was sent')
    const response = decodePaymentResponseHeader(pending.headers.get('payment-response')!)
    assert.deepEqual(
      { success: response.success, errorReason: response.errorReason, transaction: response.transaction },
      { success: false, errorReason: 'settlement_pending', transaction: settlementTx },
    )

    // The transfer landed (the node just could not say so): the payer paid, the intent has not run.
    assert.equal(await payerBalance(), payerBefore - price)
    assert.equal(await recipientLamports(), lamportsBefore)
    const waiting = await state(intentHash)
    assert.equal(waiting.status, 202, waiting.text)
    assert.equal(waiting.headers.get('location'), `/intents/${intentHash}`)
    assert.deepEqual(
      waiting.body.payments.map((p: Record<string, unknown>) => [p.state, p.transaction]),
      [['settlement_pending', settlementTx]],
    )
    // Its events stream waits for the execution (not a 404: the intent will be sent).
    const events = new AbortController()
    const stream = await fetch(`${gateway.baseUrl}/intents/${intentHash}/events`, {
      headers: { 'x-chain-id': devnet.chainId },
      signal: events.signal,
    })
    assert.equal(stream.status, 200)
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/)
    events.abort()
    // A retry without a payment is told to wait, not asked to pay again.
    const retry = await execute(body)
    assert.equal(retry.status, 202, retry.text)
    assert.equal(retry.body.payment.status, 'settlement_pending')
    assert.equal(await recipientLamports(), lamportsBefore)

    // The node answers again: the resolver sees the settlement confirmed and sends the intent.
    proxy.releaseStatuses()
    const done = await eventually('the intent sent and its payment used', 20_000, async () => {
      const s = await state(intentHash)
      return s.status === 200 && s.body.payments[0].state === 'consumed' ? s : undefined
    })
    assert.equal(done.body.status, '0x11')
    assert.equal(done.body.state, 'mined')
    assert.deepEqual(
      done.body.payments.map((p: Record<string, unknown>) => [p.state, p.transaction]),
      [['consumed', settlementTx]],
    )
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'the intent ran once')
    assert.equal(await payerBalance(), payerBefore - price, 'the payer paid exactly the price, once')
    // And the client's own retry now gets the outcome, replayed, for nothing.
    const replay = await execute(body)
    assert.equal(replay.status, 200)
    assert.equal(replay.body.replayed, true)
    assert.equal(await payerBalance(), payerBefore - price)
  })

  it('releases a pending settlement that never lands once it no longer can: nothing charged, nothing sent, and the intent can be paid again', async () => {
    const { body, intentHash } = signedSolanaIntent(devnet)
    const header = await paymentHeader(body)
    const [payerBefore, lamportsBefore] = [await payerBalance(), await recipientLamports()]
    // A congested node: the settlement (1 micro-lamport per unit, x402's client's bid) is accepted and never lands.
    await devnet.control('litesvm_setMinimumPriorityFee', [2])
    let pending
    try {
      pending = await execute(body, { 'payment-signature': header })
    } finally {
      await devnet.control('litesvm_setMinimumPriorityFee', [0])
    }
    assert.equal(pending.status, 202, pending.text)
    assert.equal(pending.body.payment.status, 'settlement_pending')
    assert.equal(await payerBalance(), payerBefore)

    // The chain's time passes the payment's bound (its blockhash long expired): the resolver releases it.
    await devnet.control('litesvm_setClock', [Math.floor(Date.now() / 1000) + 1_000])
    try {
      const released = await eventually('the pending payment released', 20_000, async () => {
        const s = await state(intentHash)
        return s.status === 404 && s.body.payments[0].state === 'released' ? s : undefined
      })
      assert.match(released.body.payments[0].reason, /never landed/)
    } finally {
      await devnet.control('litesvm_setClock', [Math.floor(Date.now() / 1000)])
    }
    assert.equal(await payerBalance(), payerBefore, 'nothing charged')
    assert.equal(await recipientLamports(), lamportsBefore, 'nothing sent')

    // Not pending any more: a new payment pays for it, once.
    const paid = await execute(body, { 'payment-signature': await paymentHeader(body) })
    assert.equal(paid.status, 200, paid.text)
    assert.equal(await payerBalance(), payerBefore - price)
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n)
  })
})
