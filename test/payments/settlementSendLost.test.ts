// A Solana settlement broadcast whose answer is lost (issue 43: a payer charged 105 × for 104
// intents in the fault campaign). x402's SVM facilitator answers any failed send as a failed
// settlement; taken at its word, the reservation is released and the client pays again with a new
// transaction, while the first one, which the node had, lands too. Here a proxy closes the
// facilitator's connection without an answer: after the node got the settlement (settled: 200,
// charged once); before it (the same bytes are sent again while the confirmation is awaited, and
// land: 200, charged once); and every time while it is awaited (settlement_pending until it can no
// longer land, then released and paid again, once).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { type SolanaDevnet, startSolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { eventually } from '../support/eventually.ts'
import { type RpcHoldProxy, startRpcHoldProxy } from '../support/rpcHoldProxy.ts'
import { signedSolanaIntent, solanaPayingClient, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import { post, request, type TestGateway } from '../support/testGateway.ts'

describe('a Solana settlement whose broadcast answer is lost (in-process facilitator)', () => {
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
    gateway = await startSolanaPaidGateway(devnet, {
      rpcUrl: proxy.url,
      receiptTimeoutMs: 3_000,
      reconcileIntervalMs: 200,
    })
  })
  after(async () => {
    await gateway?.close()
    await proxy?.close()
    await devnet?.stop()
  })

  it('the node got the settlement, its answer was reset: settled and the intent run, the payer charged once (never 402, never asked to pay again)', async () => {
    const { body, intentHash } = signedSolanaIntent(devnet)
    const header = await paymentHeader(body)
    const [payerBefore, lamportsBefore] = [await payerBalance(), await recipientLamports()]

    // A paid execute's first broadcast is its settlement.
    proxy.loseSendAnswers(1, true)
    const paid = await execute(body, { 'payment-signature': header })
    const settlementTx = proxy.sentSignatures().at(-2)!
    assert.equal(paid.status, 200, paid.text)
    assert.equal(paid.headers.get('x-erc1066-status'), '0x11')
    const response = decodePaymentResponseHeader(paid.headers.get('payment-response')!)
    assert.deepEqual(
      { success: response.success, transaction: response.transaction },
      { success: true, transaction: settlementTx },
    )
    assert.equal(await payerBalance(), payerBefore - price, 'charged once')
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'the intent ran once')

    // The client's retry (it never trusted the first answer) costs nothing.
    const replay = await execute(body, { 'payment-signature': header })
    assert.equal(replay.status, 200, replay.text)
    assert.equal(replay.body.replayed, true)
    assert.equal(await payerBalance(), payerBefore - price)
    const done = await state(intentHash)
    assert.deepEqual(
      done.body.payments.map((p: Record<string, unknown>) => p.transaction),
      [settlementTx],
    )
  })

  it('the settlement was lost on its way to the node: sent again while awaited, it lands (200, charged once)', async () => {
    const { body } = signedSolanaIntent(devnet)
    const header = await paymentHeader(body)
    const [payerBefore, lamportsBefore] = [await payerBalance(), await recipientLamports()]

    proxy.loseSendAnswers(1, false)
    const paid = await execute(body, { 'payment-signature': header })
    assert.equal(paid.status, 200, paid.text)
    assert.equal(await payerBalance(), payerBefore - price, 'charged once')
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'the intent ran once')
  })

  it('the settlement never reached the node while awaited: settlement_pending (202); sent again in the background, it lands and the resolver runs the intent, charged once', async () => {
    const { body, intentHash } = signedSolanaIntent(devnet)
    const header = await paymentHeader(body)
    const [payerBefore, lamportsBefore] = [await payerBalance(), await recipientLamports()]

    proxy.loseSendAnswers(100, false)
    let pending
    try {
      pending = await execute(body, { 'payment-signature': header })
      assert.equal(pending.status, 202, pending.text)
      assert.equal(pending.headers.get('x-erc1066-status'), '0xF3')
      assert.equal(pending.body.payment.status, 'settlement_pending')
      assert.equal(await payerBalance(), payerBefore, 'nothing charged yet: the node never had it')
      // The same payment again is told to wait: it is not settled a second time.
      const again = await execute(body, { 'payment-signature': header })
      assert.equal(again.status, 202, again.text)
    } finally {
      proxy.loseSendAnswers(0, false)
    }
    const done = await eventually('the settlement landed and the intent sent', 20_000, async () => {
      const s = await state(intentHash)
      return s.status === 200 && s.body.payments[0].state === 'consumed' ? s : undefined
    })
    assert.equal(done.body.status, '0x11')
    assert.equal(await payerBalance(), payerBefore - price, 'charged once')
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'the intent ran once')
  })

  it('a settlement that never reaches the node is released once no blockhash can land it, and paid again once', async () => {
    const { body, intentHash } = signedSolanaIntent(devnet)
    const header = await paymentHeader(body)
    const [payerBefore, lamportsBefore] = [await payerBalance(), await recipientLamports()]

    proxy.loseSendAnswers(1_000, false)
    try {
      const pending = await execute(body, { 'payment-signature': header })
      assert.equal(pending.status, 202, pending.text)
      // Its blockhash expires and the chain's time passes the payment's bound: the resolver releases it.
      await devnet.control('litesvm_expireBlockhash', [])
      await devnet.control('litesvm_setClock', [Math.floor(Date.now() / 1000) + 1_000])
      try {
        await eventually('the pending payment released', 20_000, async () => {
          const s = await state(intentHash)
          return s.status === 404 && s.body.payments[0].state === 'released' ? s : undefined
        })
      } finally {
        await devnet.control('litesvm_setClock', [Math.floor(Date.now() / 1000)])
      }
    } finally {
      proxy.loseSendAnswers(0, false)
    }
    assert.equal(await payerBalance(), payerBefore)

    const paid = await execute(body, { 'payment-signature': await paymentHeader(body) })
    assert.equal(paid.status, 200, paid.text)
    // The first settlement, still sent again in the background, can no longer land.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    assert.equal(await payerBalance(), payerBefore - price, 'charged once in all')
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n)
  })
})
