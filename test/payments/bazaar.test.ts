// Being found: the gateway describes what it sells with x402's `bazaar` extension — on every 402
// (HTTP and MCP) and at GET /discovery/resources — and @x402/extensions' own helpers read it back.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader, HTTPFacilitatorClient } from '@x402/core/http'
import { type DiscoveryExtension, extractDiscoveryInfo, validateAndExtract, withBazaar } from '@x402/extensions/bazaar'
import type { Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { post, request, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const price = 10_000n // the devnet's price of execute

describe('x402 bazaar discovery', () => {
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

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    gateway = await startTestGateway({ chains: [devnet.chain], payments: devnet.payments })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  it('declares execute in every 402 (a POST taking the intent as JSON), and the paying client carries the declaration to the facilitator: the payer pays the price once, the intent runs once', async () => {
    const intent = await signedIntent(devnet, { nonce: '700' })
    const unpaid = await post(gateway.baseUrl, '/intents/execute', intent)
    assert.equal(unpaid.status, 402)
    const offer = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!)
    const checked = validateAndExtract(offer.extensions!.bazaar as DiscoveryExtension)
    assert.equal(checked.valid, true, JSON.stringify(checked.errors))
    const input = checked.info!.input as {
      type: string
      method: string
      bodyType: string
      body: Record<string, unknown>
    }
    assert.deepEqual(
      { type: input.type, method: input.method, bodyType: input.bodyType },
      { type: 'http', method: 'POST', bodyType: 'json' },
    )
    assert.equal(typeof input.body.sender, 'string', 'the example body is an intent')
    assert.deepEqual(Object.keys(offer.extensions!).sort(), ['bazaar', 'payment-identifier'])

    // What the unmodified client sends back is what a facilitator catalogues.
    const [payerBefore, treasuryBefore] = [await balanceOf(payer), await balanceOf(treasury)]
    const payload = await payingClient(devnet).client.createPaymentPayload(offer)
    const discovered = extractDiscoveryInfo(payload, payload.accepted)
    assert.ok(discovered, 'the payload carries the bazaar declaration')
    assert.equal(discovered.resourceUrl, `${gateway.baseUrl}/intents/execute`)
    assert.equal((discovered as { method?: string }).method, 'POST')
    assert.equal(discovered.x402Version, 2)

    const paid = await post(gateway.baseUrl, '/intents/execute', intent, {
      'payment-signature': encodePaymentSignatureHeader(payload),
    })
    assert.equal(paid.status, 200, paid.text)
    assert.equal(paid.body.status, '0x11')
    assert.equal(await balanceOf(payer), payerBefore - price, 'the payer paid exactly the price')
    assert.equal(await balanceOf(treasury), treasuryBefore + price)
    const state = await request(gateway.baseUrl, `/intents/${paid.headers.get('x-intent-hash')}`)
    assert.deepEqual(
      state.body.payments.map((p: { state: string }) => p.state),
      ['consumed'],
      'one payment, used once',
    )
    assert.equal(state.body.attempts ?? 1, 1)
    // The intent ran once: the same payment again is refused, nothing more is charged.
    const again = await post(gateway.baseUrl, '/intents/execute', intent, {
      'payment-signature': encodePaymentSignatureHeader(payload),
    })
    assert.equal(again.body.replayed, true)
    assert.equal(await balanceOf(payer), payerBefore - price)
  })

  it('lists what the gateway sells at GET /discovery/resources, read with @x402/extensions withBazaar(...).listResources()', async () => {
    const bazaar = withBazaar(new HTTPFacilitatorClient({ url: gateway.baseUrl })).extensions.bazaar
    const all = await bazaar.listResources()
    assert.equal(all.x402Version, 2)
    const chainId = devnet.chain.chainId
    const execute = all.items.find((i) => i.type === 'http' && i.resource === `${gateway.baseUrl}/intents/execute`)
    assert.ok(execute, JSON.stringify(all.items.map((i) => [i.type, i.resource])))
    assert.deepEqual(
      execute.accepts.map((a) => ({
        scheme: a.scheme,
        network: a.network,
        asset: a.asset.toLowerCase(),
        amount: a.amount,
        payTo: a.payTo,
      })),
      [
        {
          scheme: 'exact',
          network: chainId,
          asset: devnet.contracts.dollar.toLowerCase(),
          amount: price.toString(),
          payTo: treasury,
        },
      ],
    )
    assert.equal(validateAndExtract(execute.extensions!.bazaar as DiscoveryExtension).valid, true)
    const tool = all.items.find(
      (i) =>
        i.type === 'mcp' &&
        (i.extensions!.bazaar as { info: { input: { toolName: string } } }).info.input.toolName === 'execute_intent',
    )
    assert.ok(tool, 'the MCP tool is listed too')
    assert.equal(tool.resource, `${gateway.baseUrl}/mcp`)
    const mcpInfo = validateAndExtract(tool.extensions!.bazaar as DiscoveryExtension)
    assert.equal(mcpInfo.valid, true, JSON.stringify(mcpInfo.errors))
    assert.equal(all.pagination.total, all.items.length)

    // The client's filters are honoured.
    assert.deepEqual(
      (await bazaar.listResources({ type: 'mcp' })).items.map((i) => i.type),
      all.items.filter((i) => i.type === 'mcp').map(() => 'mcp'),
    )
    assert.equal((await bazaar.listResources({ network: 'eip155:1' })).items.length, 0)
    assert.equal((await bazaar.listResources({ limit: 1 })).items.length, 1)
  })

  it('declares the MCP tool, not the HTTP route, in a tool result demanding payment', async () => {
    const mcp = new Client({ name: 'bazaar-test', version: '1.0.0' })
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${gateway.baseUrl}/mcp`)))
    try {
      const intent = await signedIntent(devnet, { nonce: '701' })
      const unpaid = (await mcp.callTool({
        name: 'execute_intent',
        arguments: { intent, chainId: devnet.chain.chainId },
      })) as { structuredContent?: any }
      assert.equal(unpaid.structuredContent.httpStatus, 402)
      const checked = validateAndExtract(unpaid.structuredContent.extensions.bazaar)
      assert.equal(checked.valid, true, JSON.stringify(checked.errors))
      assert.deepEqual(
        { type: checked.info!.input.type, toolName: (checked.info!.input as { toolName: string }).toolName },
        { type: 'mcp', toolName: 'execute_intent' },
      )
      // Nothing was charged or run for the unpaid call.
      assert.equal(
        (await request(gateway.baseUrl, `/intents/${unpaid.structuredContent.headers['x-intent-hash']}`)).status,
        404,
      )
    } finally {
      await mcp.close()
    }
  })
})
