// x402 through the whole gateway: execute priced on the devnet chain, paid by the unmodified
// @x402/fetch client, against real anvil, the real executor and the real EIP-3009 token.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import type { Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import {
  demoIntent,
  post,
  request,
  rpc,
  signedIntent,
  startTestGateway,
  type TestGateway,
} from '../support/testGateway.ts'

const apiKey = 'operator-key-0123456789abcdef'
const price = 10_000n // 0.01 DemoDollar, the devnet's price of execute

describe('x402 payments on execute, end to end', () => {
  let devnet: Devnet
  let gateway: TestGateway
  let clients: ReturnType<typeof createDevClients>
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const treasury = privateKeyToAccount(devnetAccounts.treasury).address
  const balanceOf = (who: Address) =>
    clients.publicClient.readContract({
      address: devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  const payingFetch = () => payingClient(devnet).fetch
  const paidPost = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await payingFetch()(`${gateway.baseUrl}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
    return { status: res.status, headers: res.headers, body: (await res.json()) as any }
  }

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    gateway = await startTestGateway({
      chains: [devnet.chain],
      payments: devnet.payments,
      auth: { keyHashes: [hashApiKey(apiKey)], requireForValidate: false },
    })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  it('answers a keyless execute with 402 0x55 and an x402 offer the client can pay: PAYMENT-REQUIRED, the same object in the body, no-store', async () => {
    const body = await signedIntent(devnet, { nonce: '100' })
    const res = await post(gateway.baseUrl, '/intents/execute', body)
    assert.equal(res.status, 402)
    assert.equal(res.headers.get('x-erc1066-status'), '0x55')
    assert.equal(res.headers.get('x-payment-required'), 'true')
    assert.equal(res.headers.get('cache-control'), 'no-store')
    const offer = decodePaymentRequiredHeader(res.headers.get('payment-required')!)
    assert.deepEqual(res.body.paymentRequired, offer)
    assert.equal(offer.x402Version, 2)
    assert.equal(offer.resource.url, `${gateway.baseUrl}/intents/execute`)
    assert.equal(offer.accepts.length, 1)
    assert.deepEqual(
      {
        scheme: offer.accepts[0]!.scheme,
        network: offer.accepts[0]!.network,
        asset: offer.accepts[0]!.asset.toLowerCase(),
        amount: offer.accepts[0]!.amount,
        payTo: offer.accepts[0]!.payTo,
      },
      {
        scheme: 'exact',
        network: devnet.chain.chainId,
        asset: devnet.contracts.dollar.toLowerCase(),
        amount: price.toString(),
        payTo: treasury,
      },
    )
    // Nothing ran: the intent is unknown to the journal.
    assert.equal((await request(gateway.baseUrl, `/intents/${res.headers.get('x-intent-hash')}`)).status, 404)
  })

  it('executes a paid intent once: the payer pays exactly the price to pay-to, PAYMENT-RESPONSE names the settlement, GET /intents shows the payment', async () => {
    const [payerBefore, treasuryBefore] = [await balanceOf(payer), await balanceOf(treasury)]
    const res = await paidPost(await signedIntent(devnet, { nonce: '101' }))
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.equal(res.body.status, '0x11')
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    assert.equal(settlement.success, true)
    assert.equal(settlement.network, devnet.chain.chainId)
    assert.match(settlement.transaction, /^0x[0-9a-f]{64}$/)
    assert.equal(await balanceOf(payer), payerBefore - price)
    assert.equal(await balanceOf(treasury), treasuryBefore + price)
    const state = await request(gateway.baseUrl, `/intents/${res.headers.get('x-intent-hash')}`)
    assert.equal(state.body.state, 'mined')
    assert.deepEqual(
      state.body.payments.map((p: Record<string, unknown>) => ({
        state: p.state,
        amount: p.amount,
        transaction: p.transaction,
      })),
      [{ state: 'consumed', amount: price.toString(), transaction: settlement.transaction }],
    )
  })

  it('charges nothing for an intent the gateway or the chain refuses: unsigned (401), expired (410), too early (202 0x20), already executed (replayed, no 402)', async () => {
    const executed = await signedIntent(devnet, { nonce: '102' })
    assert.equal(
      (await post(gateway.baseUrl, '/intents/execute', executed, { authorization: `Bearer ${apiKey}` })).status,
      200,
    )
    const payerBefore = await balanceOf(payer)
    const cases: Array<[unknown, number, string]> = [
      [demoIntent(devnet, { nonce: '103' }), 401, '0xE5'],
      [await signedIntent(devnet, { nonce: '104', validBefore: '1' }), 410, '0x21'],
      [await signedIntent(devnet, { nonce: '105', validAfter: '4102444800' }), 202, '0x20'],
      [executed, 200, '0x11'],
    ]
    for (const [body, status, code] of cases) {
      const res = await paidPost(body)
      assert.equal(res.status, status, JSON.stringify(res.body))
      assert.equal(res.headers.get('x-erc1066-status'), code)
      assert.equal(res.headers.get('payment-response'), null)
    }
    assert.equal(await balanceOf(payer), payerBefore)
  })

  it('does not price a client with a valid API key (PRICE_API_KEY_CLIENTS unset), and still refuses a wrong key', async () => {
    const payerBefore = await balanceOf(payer)
    const res = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '106' }), {
      authorization: `Bearer ${apiKey}`,
    })
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('payment-response'), null)
    const wrong = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '107' }), {
      authorization: 'Bearer not-the-key-0123456789',
    })
    assert.equal(wrong.status, 401)
    assert.equal(await balanceOf(payer), payerBefore)
  })

  it("leaves validate free and keeps the chain's own 402 0x54 apart: empty accepts, the deposit named", async () => {
    const res = await post(
      gateway.baseUrl,
      '/intents/validate',
      demoIntent(devnet, { value: (5n * 10n ** 18n).toString() }),
    )
    assert.equal(res.status, 402)
    assert.equal(res.headers.get('x-erc1066-status'), '0x54')
    assert.deepEqual(res.body.paymentRequired.accepts, [])
    assert.equal(res.body.paymentRequired.extensions.deposit.limit, 'policy', 'above the policy cap: no deposit helps')
  })

  it('serves 50 concurrent paid executes once each and charges each once, with no nonce error between settlements and executions', async () => {
    const payerBefore = await balanceOf(payer)
    const bodies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => signedIntent(devnet, { nonce: String(200 + i) })),
    )
    const results = await Promise.all(bodies.map((b) => paidPost(b)))
    assert.deepEqual(
      results.map((r) => r.status),
      bodies.map(() => 200),
      JSON.stringify(results.filter((r) => r.status !== 200).map((r) => r.body)),
    )
    assert.equal(await balanceOf(payer), payerBefore - 50n * price)
    const settlements = results.map((r) => decodePaymentResponseHeader(r.headers.get('payment-response')!).transaction)
    assert.equal(new Set(settlements).size, 50, 'one settlement each')
    for (const r of results) {
      const state = await request(gateway.baseUrl, `/intents/${r.headers.get('x-intent-hash')}`)
      assert.deepEqual(
        state.body.payments.map((p: { state: string }) => p.state),
        ['consumed'],
      )
    }
  })

  it('with CONFIRMATIONS above 1, keeps the payment of an execution answered before it is final as a credit, and uses it up once the execution is final', async () => {
    const deep = await startTestGateway({
      chains: [devnet.chain],
      payments: devnet.payments,
      confirmations: 3,
      reconcileIntervalMs: 100,
    })
    try {
      const payerBefore = await balanceOf(payer)
      const res = await payingFetch()(`${deep.baseUrl}/intents/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(await signedIntent(devnet, { nonce: '400' })),
      })
      const body = (await res.json()) as any
      assert.equal(res.status, 202, JSON.stringify(body))
      assert.equal(body.status, '0xF3')
      assert.equal(body.final, false)
      assert.equal(await balanceOf(payer), payerBefore - price, 'settled before the broadcast')
      const path = `/intents/${res.headers.get('x-intent-hash')}`
      assert.deepEqual(
        (await request(deep.baseUrl, path)).body.payments.map((p: { state: string }) => p.state),
        ['settled'],
        'a reorg could still undo it: a credit',
      )
      await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x3'])
      const final = await eventually('the execution final and its payment used up', 10_000, async () => {
        const state = await request(deep.baseUrl, path)
        return state.status === 200 && state.body.payments[0].state === 'consumed' ? state : undefined
      })
      assert.equal(final.body.status, '0x11')
      assert.equal(await balanceOf(payer), payerBefore - price, 'charged once')
    } finally {
      await deep.close()
    }
  })

  it('answers a paid execute that prefers respond-async 202 0xF3 once sent, with PAYMENT-RESPONSE; the payer is charged once, and the payment, a credit until then, is used up as it is mined', async () => {
    // No recovery pass within the test: what uses the payment up is the execution's own receipt.
    const quiet = await startTestGateway({
      chains: [devnet.chain],
      payments: devnet.payments,
      reconcileIntervalMs: 600_000,
    })
    try {
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
      const payerBefore = await balanceOf(payer)
      const body = await signedIntent(devnet, { nonce: '401' })
      const paid = payingClient(devnet).fetch
      const post = async () => {
        const res = await paid(`${quiet.baseUrl}/intents/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', prefer: 'respond-async' },
          body: JSON.stringify(body),
        })
        return { status: res.status, headers: res.headers, body: (await res.json()) as any }
      }
      // The settlement is mined by hand while automine is off; the execution stays in the pool.
      const answer = post()
      const settledAt = await eventually('the settlement in the pool', 10_000, async () => {
        const pool = await rpc(devnet.anvil.rpcUrl, 'txpool_status', [])
        return Number(pool.pending) > 0 ? true : undefined
      })
      assert.ok(settledAt)
      await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
      const res = await answer
      assert.equal(res.status, 202, JSON.stringify(res.body))
      assert.equal(res.headers.get('x-erc1066-status'), '0xF3')
      assert.equal(res.headers.get('preference-applied'), 'respond-async')
      const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
      assert.equal(settlement.success, true)
      assert.equal(await balanceOf(payer), payerBefore - price, 'settled before the broadcast')
      const path = res.headers.get('location')!
      const pendingState = await request(quiet.baseUrl, path)
      assert.equal(pendingState.body.state, 'pending')
      assert.deepEqual(
        pendingState.body.payments.map((p: { state: string }) => p.state),
        ['settled'],
        'sent, not mined: a credit',
      )
      await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
      const done = await eventually('the execution mined and its payment used up', 10_000, async () => {
        const state = await request(quiet.baseUrl, path)
        return state.status === 200 && state.body.payments[0]?.state === 'consumed' ? state : undefined
      })
      assert.equal(done.body.status, '0x11')
      assert.equal(done.body.payments[0].transaction, settlement.transaction)
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      // A repeat answers the outcome without a payment: nothing is charged again.
      const again = await post()
      assert.equal(again.status, 200, JSON.stringify(again.body))
      assert.equal(again.body.replayed, true)
      assert.equal(again.headers.get('payment-response'), null)
      assert.equal(await balanceOf(payer), payerBefore - price, 'charged once')
    } finally {
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await quiet.close()
    }
  })

  it('demands and takes the same price the MCP way: PaymentRequired in the tool result, the payment in _meta["x402/payment"]', async () => {
    const mcp = new Client({ name: 'paid-mcp-test', version: '1.0.0' })
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${gateway.baseUrl}/mcp`)))
    try {
      const intent = await signedIntent(devnet, { nonce: '300' })
      const unpaid = (await mcp.callTool({
        name: 'execute_intent',
        arguments: { intent, chainId: devnet.chain.chainId },
      })) as { isError?: boolean; structuredContent?: any }
      assert.equal(unpaid.isError, true)
      assert.equal(unpaid.structuredContent.httpStatus, 402)
      assert.equal(unpaid.structuredContent.erc1066Status, '0x55')
      assert.equal(unpaid.structuredContent.x402Version, 2)
      assert.equal(unpaid.structuredContent.accepts[0].amount, price.toString())

      const payerBefore = await balanceOf(payer)
      const payment = await payingClient(devnet).client.createPaymentPayload(unpaid.structuredContent)
      const paid = (await mcp.callTool({
        name: 'execute_intent',
        arguments: { intent, chainId: devnet.chain.chainId },
        _meta: { 'x402/payment': payment },
      })) as {
        isError?: boolean
        structuredContent?: any
        _meta?: any
      }
      assert.ok(!paid.isError, JSON.stringify(paid.structuredContent))
      assert.equal(paid.structuredContent.erc1066Status, '0x11')
      assert.equal(paid._meta['x402/payment-response'].success, true)
      assert.equal(await balanceOf(payer), payerBefore - price)
    } finally {
      await mcp.close()
    }
  })
})
