// x402's settlement_pending on EVM (anvil, the in-process facilitator): the settlement's receipt is
// held by a proxy past RECEIPT_TIMEOUT_MS, so x402's EVM facilitator answers settlement_pending;
// the gateway answers 202 0xF3 with Location (never 402), sends nothing, and once the receipt can
// be read the resolver (the token's authorizationState) settles the payment and sends the intent, once.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { type RpcHoldProxy, startRpcHoldProxy } from '../support/rpcHoldProxy.ts'
import { post, request, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

describe('x402 settlement_pending (EVM, in-process facilitator)', () => {
  let devnet: Devnet
  let proxy: RpcHoldProxy
  let gateway: TestGateway
  let clients: ReturnType<typeof createDevClients>
  const price = 10_000n
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const balanceOf = (who: Address) =>
    clients.publicClient.readContract({
      address: devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
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

  it('answers 202 0xF3 while the settlement receipt is unread, and sends the intent once after it is', async () => {
    const intent = await signedIntent(devnet, { nonce: '900' })
    const unpaid = await post(gateway.baseUrl, '/intents/execute', intent)
    assert.equal(unpaid.status, 402)
    const payload = await payingClient(devnet).client.createPaymentPayload(
      decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!),
    )
    const intentHash = unpaid.headers.get('x-intent-hash') as Hex
    const payerBefore = await balanceOf(payer)

    proxy.holdStatuses(true)
    const pending = await post(gateway.baseUrl, '/intents/execute', intent, {
      'payment-signature': encodePaymentSignatureHeader(payload),
    })
    proxy.holdStatuses(false)
    assert.equal(pending.status, 202, pending.text)
    assert.equal(pending.headers.get('x-erc1066-status'), '0xF3')
    assert.equal(pending.headers.get('location'), `/intents/${intentHash}`)
    assert.equal(pending.body.payment.status, 'settlement_pending')
    assert.match(pending.body.payment.transaction, /^0x[0-9a-f]{64}$/)
    assert.equal(
      decodePaymentResponseHeader(pending.headers.get('payment-response')!).errorReason,
      'settlement_pending',
    )
    assert.equal(await executions(intentHash), 0, 'nothing sent while the settlement is unconfirmed')
    const retry = await post(gateway.baseUrl, '/intents/execute', intent)
    assert.equal(retry.status, 202, 'a retry waits: never a 402')

    proxy.releaseStatuses()
    const done = await eventually('the intent sent once its settlement is read', 20_000, async () => {
      const s = await request(gateway.baseUrl, `/intents/${intentHash}`)
      return s.status === 200 && s.body.payments[0].state === 'consumed' ? s : undefined
    })
    assert.equal(done.body.status, '0x11')
    assert.equal(done.body.payments[0].transaction, pending.body.payment.transaction)
    assert.equal(await executions(intentHash), 1, 'the intent ran once')
    assert.equal(await balanceOf(payer), payerBefore - price, 'the payer paid exactly the price, once')
  })
})
