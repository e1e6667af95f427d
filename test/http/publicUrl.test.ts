// The gateway names its own address from PUBLIC_URL, never from the Host header a caller writes:
// x402's PaymentRequired `resource.url` and /discovery/resources' items, against real anvil with
// the devnet's price on execute. Without PUBLIC_URL (outside production): the loopback address
// and the port it listens on.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { rawRequest } from '../support/rawRequest.ts'
import { demoIntent, type HttpResult, startTestGateway, type TestGateway } from '../support/testGateway.ts'

/** A request written byte for byte, naming a foreign Host. */
function withHost(
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  host: string,
  body?: unknown,
): Promise<HttpResult> {
  const text = body === undefined ? '' : JSON.stringify(body)
  return rawRequest(
    baseUrl,
    [
      `${method} ${path} HTTP/1.1`,
      `Host: ${host}`,
      ...(body === undefined ? [] : ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(text)}`]),
      'Connection: close',
      '',
      text,
    ].join('\r\n'),
  )
}

describe('PUBLIC_URL: the address the gateway gives for itself', () => {
  let devnet: Devnet
  let configured: TestGateway
  let unconfigured: TestGateway
  before(async () => {
    devnet = await startDevnet()
    configured = await startTestGateway({
      chains: [devnet.chain],
      payments: devnet.payments,
      publicUrl: 'https://gateway.example',
    })
    unconfigured = await startTestGateway({ chains: [devnet.chain], payments: devnet.payments })
  })
  after(async () => {
    await configured?.close()
    await unconfigured?.close()
    await devnet?.stop()
  })

  it("puts PUBLIC_URL in x402's resource.url, not the caller's Host", async () => {
    const res = await withHost(configured.baseUrl, 'POST', '/intents/execute', 'attacker.example', demoIntent(devnet))
    assert.equal(res.status, 402, res.text)
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!)
    assert.equal(required.resource.url, 'https://gateway.example/intents/execute')
    assert.ok(!res.text.includes('attacker.example'))

    const local = await withHost(
      unconfigured.baseUrl,
      'POST',
      '/intents/execute',
      'attacker.example',
      demoIntent(devnet),
    )
    assert.equal(
      decodePaymentRequiredHeader(local.headers.get('payment-required')!).resource.url,
      `${unconfigured.baseUrl}/intents/execute`,
    )
  })

  it("lists /discovery/resources on PUBLIC_URL, not the caller's Host", async () => {
    const res = await withHost(configured.baseUrl, 'GET', '/discovery/resources', 'attacker.example')
    assert.equal(res.status, 200, res.text)
    const resources = res.body.items.map((i: { resource: string }) => i.resource).sort()
    assert.deepEqual(resources, ['https://gateway.example/intents/execute', 'https://gateway.example/mcp'])
    const local = await withHost(unconfigured.baseUrl, 'GET', '/discovery/resources', 'attacker.example')
    assert.deepEqual(local.body.items.map((i: { resource: string }) => i.resource).sort(), [
      `${unconfigured.baseUrl}/intents/execute`,
      `${unconfigured.baseUrl}/mcp`,
    ])
  })
})
