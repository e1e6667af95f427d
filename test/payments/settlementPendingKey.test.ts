// Idempotency-Key through a pending x402 settlement (EVM, anvil, the in-process facilitator): the
// settlement's receipt is held past RECEIPT_TIMEOUT_MS, so the execute answers 202 and gives its
// claim back; the resolver sends the request again once the settlement confirms, and that resend
// must carry the request's Idempotency-Key so its claim records it. Then the key answers for that
// request: the same body is replayed, another body under the key is 422 idempotency-key-reused
// (was: the key was never recorded, and another body under it was priced and could run).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { Hex } from 'viem'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { type RpcHoldProxy, startRpcHoldProxy } from '../support/rpcHoldProxy.ts'
import { post, request, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

describe('Idempotency-Key through a pending x402 settlement (EVM)', () => {
  let devnet: Devnet
  let proxy: RpcHoldProxy
  let gateway: TestGateway
  let clients: ReturnType<typeof createDevClients>
  const executions = async (intentHash: Hex) => {
    const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
    return (
      await clients.publicClient.getLogs({
        address: devnet.contracts.executor,
        event,
        args: { intentHash },
        fromBlock: 0n,
      })
    ).length
  }

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    proxy = await startRpcHoldProxy(devnet.anvil.rpcUrl)
    gateway = await startTestGateway({
      chains: [{ ...devnet.chain, rpcUrls: [proxy.url] }],
      payments: devnet.payments,
      receiptTimeoutMs: 1_500,
      reconcileIntervalMs: 200,
    })
  })
  after(async () => {
    await gateway?.close()
    await proxy?.close()
    await devnet?.stop()
  })

  it("the resolver's resend records the request's key: the same body is replayed, another body under it is 422 0xA8, nothing more sent or charged", async () => {
    const key = 'order-pending-7'
    const intent = await signedIntent(devnet, { nonce: '910' })
    const unpaid = await post(gateway.baseUrl, '/intents/execute', intent, { 'idempotency-key': key })
    assert.equal(unpaid.status, 402, unpaid.text)
    const intentHash = unpaid.headers.get('x-intent-hash') as Hex
    const payload = await payingClient(devnet).client.createPaymentPayload(
      decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!),
    )

    proxy.holdStatuses(true)
    const pending = await post(gateway.baseUrl, '/intents/execute', intent, {
      'payment-signature': encodePaymentSignatureHeader(payload),
      'idempotency-key': key,
    })
    proxy.holdStatuses(false)
    assert.equal(pending.status, 202, pending.text)
    assert.equal(pending.body.payment.status, 'settlement_pending', pending.text)
    assert.equal(await executions(intentHash), 0)

    proxy.releaseStatuses()
    await eventually('the intent sent once its settlement is read', 20_000, async () => {
      const s = await request(gateway.baseUrl, `/intents/${intentHash}`)
      return s.status === 200 && s.body.status === '0x11' && s.body.payments[0].state === 'consumed' ? s : undefined
    })
    assert.equal(await executions(intentHash), 1)

    // The key answers for the request the resend ran.
    const again = await post(gateway.baseUrl, '/intents/execute', intent, { 'idempotency-key': key })
    assert.equal(again.status, 200, again.text)
    assert.equal(again.body.replayed, true, again.text)
    const other = await signedIntent(devnet, { nonce: '911' })
    const reused = await post(gateway.baseUrl, '/intents/execute', other, { 'idempotency-key': key })
    assert.equal(reused.status, 422, reused.text)
    assert.equal(reused.body.type, 'urn:intent-gateway:problem:idempotency-key-reused', reused.text)
    assert.equal(reused.headers.get('payment-required'), null, 'no price offered for a reused key')
    assert.equal(await executions(intentHash), 1, 'the intent ran once')
  })
})
