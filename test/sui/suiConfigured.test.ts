// A Sui chain configured as an operator would (the address maps, RPC_URLS, SUI_RELAYER_PRIVATE_KEY)
// validates and executes through the gateway built from that configuration, over real HTTP, with
// the real @mysten/sui client against the local stand-in. Not verified here: the Move code itself
// (it cannot be compiled or run on these machines; the stand-in scripts its answers).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { encodeSuiIntent } from '../../src/chains/sui/encodeSuiIntent.ts'
import { suiRuntime } from '../../src/chains/sui/suiRuntime.ts'
import { createGateway, type Gateway } from '../../src/createGateway.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { loadConfig } from '../../src/runtimes.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { localKey } from '../support/relayerKeys.ts'
import { suiRelayer, suiSender } from '../support/suiGateway.ts'
import { type SuiStandIn, startSuiStandIn } from '../support/suiStandIn.ts'
import { post, request } from '../support/testGateway.ts'

describe('a Sui chain from the configuration (stand-in node; Move not compiled or run here)', () => {
  let standIn: SuiStandIn
  let gateway: Gateway
  let baseUrl: string
  const sui = { 'x-chain-id': 'sui:localnet' }

  before(async () => {
    standIn = await startSuiStandIn({ relayer: suiRelayer.toSuiAddress() })
    const config = loadConfig({
      EXECUTOR_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.packageId }),
      VALIDATOR_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.packageId }),
      REGISTRY_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.hubId }),
      RPC_URLS: JSON.stringify({ 'sui:localnet': standIn.url }),
      SUI_RELAYER_PRIVATE_KEY: suiRelayer.getSecretKey(),
      PORT: '0',
      JOURNAL_PATH: ':memory:',
    })
    assert.deepEqual(config.keys.sui, [localKey(suiRelayer.getSecretKey(), 'SUI_RELAYER_PRIVATE_KEY')])
    gateway = await createGateway({
      config: { ...config, rpc: { ...config.rpc, timeoutMs: 2_000 } },
      logger: createLogger({ level: 'silent' }),
    })
    baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 })
  })
  after(async () => {
    await gateway?.close()
    await standIn?.close()
  })

  const intent = (nonce: number) => ({
    sender: suiSender.toSuiAddress(),
    target: `0x${'22'.repeat(32)}`,
    data: '0x',
    value: '1000',
    nonce: String(nonce),
    policyId: standIn.policyId,
  })

  it('validates: 200 (0x01) with the Sui headers, the intent hash over the BCS bytes', async () => {
    const body = intent(1)
    const res = await post(baseUrl, '/intents/validate', body, sui)
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, {
      status: '0x01',
      chainId: 'sui:localnet',
      chainType: 'sui',
      intentHash: suiRuntime.hashIntent(parseIntent(body as never, suiRuntime)),
    })
  })

  it('executes an intent the sender signed with signPersonalMessage, sent as 0x hex, through the relayer', async () => {
    const body = intent(2)
    const { signature } = await suiSender.signPersonalMessage(encodeSuiIntent(parseIntent(body as never, suiRuntime)))
    const res = await post(
      baseUrl,
      '/intents/execute',
      { ...body, signature: `0x${Buffer.from(signature, 'base64').toString('hex')}` },
      sui,
    )
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11', chainId: 'sui:localnet', chainType: 'sui' })
    const sent = standIn.calls.find((c) => c.method === 'ExecuteTransaction')!
    assert.equal(sent.transaction?.sender, suiRelayer.toSuiAddress())
    // The module receives the wallet's signature bytes as they were signed.
    const signatureArgument = sent.transaction!.inputs.find(
      (i) => i.Pure && Buffer.from(i.Pure.bytes, 'base64').subarray(1).equals(Buffer.from(signature, 'base64')),
    )
    assert.ok(signatureArgument, 'the signature is an argument of the execute call')
    assert.equal((await request(baseUrl, `/intents/${res.headers.get('x-intent-hash')}`)).body.state, 'mined')
  })

  it('asks for a signature in the Sui way when the module refuses an unsigned intent (401, 0xE5)', async () => {
    standIn.answers.simulateExecute = { abort: 0xe5, form: 'structured' }
    try {
      const res = await post(baseUrl, '/intents/execute', intent(3), sui)
      assert.equal(res.status, 401, res.text)
      assertCommonHeaders(res, { status: '0xE5', chainId: 'sui:localnet', chainType: 'sui' })
      assert.equal(res.body.signing.scheme, 'sui-personal-message')
      assert.equal(
        res.body.signing.message,
        Buffer.from(encodeSuiIntent(parseIntent(intent(3) as never, suiRuntime))).toString('base64'),
      )
    } finally {
      standIn.answers.simulateExecute = { success: true }
    }
  })

  it('lists the chain at /chains with its package and hub', async () => {
    const res = await request(baseUrl, '/chains/sui:localnet')
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.contracts, {
      validator: standIn.packageId,
      executor: standIn.packageId,
      registry: standIn.hubId,
    })
    assert.equal(res.body.relayer, suiRelayer.toSuiAddress())
  })
})
