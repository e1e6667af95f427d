// MCP 2026-07-28's input required pattern on execute_intent: an unsigned execute answers
// `input_required` with a form elicitation for the signature (the EIP-712 typed data to sign in
// its `_meta`), an unpaid priced one with an elicitation for the x402 payment (the offer in its
// `_meta`); the client completes each by calling the tool again with `inputResponses`. A client
// without the elicitation capability gets the tool result as before; a wrong signature given that
// way is refused as over HTTP; a malformed response is refused naming it, nothing run.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { demoIntent, request, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const modern = '2026-07-28'

function call(
  baseUrl: string,
  id: number,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = { elicitation: { form: {} } },
) {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': modern,
    'io.modelcontextprotocol/clientInfo': { name: 'input-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  }
  return request(baseUrl, '/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': modern,
      'mcp-method': 'tools/call',
      'mcp-name': String(params.name),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { ...params, _meta: { ...envelope, ...(params._meta as object) } },
    }),
  })
}

describe('MCP input required (2026-07-28)', () => {
  let devnet: Devnet
  let signed: TestGateway
  let priced: TestGateway

  before(async () => {
    devnet = await startDevnet()
    signed = await startTestGateway({ chains: [devnet.chain], requireSignedIntents: true })
    priced = await startTestGateway({ chains: [devnet.chain], payments: devnet.payments })
  })
  after(async () => {
    await signed?.close()
    await priced?.close()
    await devnet?.stop()
  })

  it('asks an unsigned execute for the signature, with the typed data to sign; the retry with it executes', async () => {
    const intent = demoIntent(devnet, { nonce: '9501' })
    const asked = await call(signed.baseUrl, 1, { name: 'execute_intent', arguments: { intent } })
    assert.equal(asked.status, 200, asked.text)
    const result = asked.body.result
    assert.equal(result.resultType, 'input_required', asked.text)
    const elicitation = result.inputRequests.signature
    assert.equal(elicitation.method, 'elicitation/create')
    assert.equal(elicitation.params.mode, 'form')
    assert.deepEqual(elicitation.params.requestedSchema.required, ['signature'])
    const signing = elicitation.params._meta['intent-gateway/signing']
    assert.equal(signing.primaryType, 'Intent', JSON.stringify(signing))
    assert.equal(result._meta['intent-gateway/result'].erc1066Status, '0xE5')
    assert.equal(typeof result.requestState, 'string')

    // What an agent's wallet does with it: sign the typed data as given.
    const { EIP712Domain: _domain, ...types } = signing.types
    const signature = await privateKeyToAccount(devnetAccounts.sender).signTypedData({
      domain: signing.domain,
      types,
      primaryType: signing.primaryType,
      message: Object.fromEntries(
        Object.entries(signing.message as Record<string, unknown>).map(([k, v]) => [
          k,
          typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : v,
        ]),
      ),
    })
    const done = await call(signed.baseUrl, 2, {
      name: 'execute_intent',
      arguments: { intent },
      inputResponses: { signature: { action: 'accept', content: { signature } } },
      requestState: result.requestState,
    })
    assert.equal(done.body.result?.resultType, 'complete', done.text)
    assert.equal(done.body.result.structuredContent.erc1066Status, '0x11', done.text)
  })

  it('refuses a signature from another key given that way, as over HTTP; and a malformed response naming it, nothing run', async () => {
    const intent = demoIntent(devnet, { nonce: '9502' })
    const stranger = await privateKeyToAccount(devnetAccounts.other).signMessage({ message: 'not the typed data' })
    const wrong = await call(signed.baseUrl, 3, {
      name: 'execute_intent',
      arguments: { intent },
      inputResponses: { signature: { action: 'accept', content: { signature: stranger } } },
    })
    assert.equal(wrong.body.result.resultType, 'complete', wrong.text)
    assert.equal(wrong.body.result.isError, true)
    assert.equal(wrong.body.result.structuredContent.httpStatus, 401)
    assert.equal(wrong.body.result.structuredContent.erc1066Status, '0xE4')
    for (const [params, field] of [
      [
        { inputResponses: { signature: { action: 'accept', content: { signature: 7 } } } },
        'inputResponses.signature.content.signature',
      ],
      [{ inputResponses: { wallet: { action: 'accept', content: {} } } }, 'inputResponses.wallet'],
      [
        { inputResponses: { signature: { method: 'elicitation/create', result: { action: 'accept' } } } },
        'inputResponses.signature',
      ],
      [{ requestState: 'tampered' }, 'requestState'],
      [
        { inputResponses: { payment: { action: 'accept', content: { payment: 'not a payload' } } } },
        'inputResponses.payment.content.payment',
      ],
    ] as const) {
      const res = await call(signed.baseUrl, 4, { name: 'execute_intent', arguments: { intent }, ...params })
      assert.equal(res.body.result.isError, true, res.text)
      assert.equal(res.body.result.structuredContent.httpStatus, 400)
      assert.ok(
        res.body.result.structuredContent.body.errors.some((e: { field: string }) => e.field === field),
        res.text,
      )
    }
    // Declined: nothing given, the same question again.
    const declined = await call(signed.baseUrl, 5, {
      name: 'execute_intent',
      arguments: { intent },
      inputResponses: { signature: { action: 'decline' } },
    })
    assert.equal(declined.body.result.resultType, 'input_required', declined.text)
    const hash = declined.body.result._meta['intent-gateway/result'].headers['x-intent-hash']
    assert.equal((await request(signed.baseUrl, `/intents/${hash}`)).status, 404, 'nothing ran')
  })

  it('answers a client without the elicitation capability with the tool result, as before', async () => {
    const plain = await call(
      signed.baseUrl,
      6,
      { name: 'execute_intent', arguments: { intent: demoIntent(devnet, { nonce: '9503' }) } },
      {},
    )
    assert.equal(plain.body.result.resultType, 'complete', plain.text)
    assert.equal(plain.body.result.structuredContent.httpStatus, 401)
    assert.ok(plain.body.result.structuredContent.body.signing)
  })

  it('asks an unpaid priced execute for the x402 payment, with the offer; the retry with the payload executes', async () => {
    const intent = await signedIntent(devnet, { nonce: '9504' })
    const asked = await call(priced.baseUrl, 7, { name: 'execute_intent', arguments: { intent } })
    const result = asked.body.result
    assert.equal(result.resultType, 'input_required', asked.text)
    const offer = result.inputRequests.payment.params._meta['x402/payment-required']
    assert.equal(offer.x402Version, 2)
    assert.ok(offer.accepts.length > 0)
    const payload = await payingClient(devnet).client.createPaymentPayload(offer)
    const paid = await call(priced.baseUrl, 8, {
      name: 'execute_intent',
      arguments: { intent },
      inputResponses: { payment: { action: 'accept', content: { payment: JSON.stringify(payload) } } },
      requestState: result.requestState,
    })
    assert.equal(paid.body.result?.resultType, 'complete', paid.text)
    assert.equal(paid.body.result.structuredContent.erc1066Status, '0x11', paid.text)
    assert.equal(paid.body.result._meta['x402/payment-response'].success, true)
  })
})
