// The Sui relayer key in a real PKCS#11 token (SoftHSM2): an Ed25519 key generated inside it,
// configured as an operator would (RELAYER_PKCS11_*, SUI_RELAYER_PKCS11_KEY_LABEL), signs the
// execute transaction the Sui stand-in verifies as a node would (verifyTransactionSignature, the
// sender's address from the signature's public key); nobody can read the private key out; /chains
// shows the backend and the address, never the PIN; a token that refuses to sign answers 503 0x40
// with Retry-After and leaves no journal record and nothing broadcast. The same with a key in KMS
// (SUI_RELAYER_KMS_KEY_ID, against the KMS stand-in). What is not verified: the Move module (the
// stand-in scripts its answers; docs/sui.md), real AWS.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Ed25519PublicKey } from '@mysten/sui/keypairs/ed25519'
import { encodeSuiIntent } from '../../src/chains/sui/encodeSuiIntent.ts'
import { suiRuntime } from '../../src/chains/sui/suiRuntime.ts'
import { createGateway, type Gateway } from '../../src/createGateway.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { loadConfig } from '../../src/runtimes.ts'
import { createLocalEd25519Signer } from '../../src/signers/createLocalEd25519Signer.ts'
import { createPkcs11EdDsaSigner } from '../../src/signers/createPkcs11EdDsaSigner.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { type KmsStandIn, startKmsStandIn } from '../support/kmsStandIn.ts'
import {
  createSoftHsmToken,
  logOutOfToken,
  pkcs11Binding,
  readPrivateValue,
  type SoftHsmToken,
  softHsmModule,
} from '../support/softHsm.ts'
import { suiSender } from '../support/suiGateway.ts'
import { type SuiStandIn, startSuiStandIn } from '../support/suiStandIn.ts'
import { post, request } from '../support/testGateway.ts'

const skip = !softHsmModule
  ? 'SoftHSM2 is not installed (scripts/ensureTestTools.sh installs it)'
  : !pkcs11Binding
    ? 'the optional pkcs11js binding did not build at install (it needs a C++ compiler)'
    : false

describe('the Sui relayer key in a PKCS#11 token (SoftHSM2, Sui stand-in)', { skip }, () => {
  let token: SoftHsmToken
  let standIn: SuiStandIn
  let gateway: Gateway
  let baseUrl: string
  let relayer: string
  const logs: string[] = []
  const sui = { 'x-chain-id': 'sui:localnet' }

  before(async () => {
    token = createSoftHsmToken([], 'sui-relayers', '4321', { ed25519Labels: ['sui-relayer'] })
    relayer = new Ed25519PublicKey(
      createPkcs11EdDsaSigner({ ...token, keyLabel: 'sui-relayer' }).publicKey,
    ).toSuiAddress()
    standIn = await startSuiStandIn({ relayer })
    const config = loadConfig({
      EXECUTOR_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.packageId }),
      VALIDATOR_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.packageId }),
      REGISTRY_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.hubId }),
      RPC_URLS: JSON.stringify({ 'sui:localnet': standIn.url }),
      RELAYER_PKCS11_MODULE: token.modulePath,
      RELAYER_PKCS11_TOKEN: token.tokenLabel,
      RELAYER_PKCS11_PIN: token.pin,
      SUI_RELAYER_PKCS11_KEY_LABEL: 'sui-relayer',
      PORT: '0',
      JOURNAL_PATH: ':memory:',
    })
    assert.deepEqual(
      config.keys.sui?.map((k) => k.backend),
      ['pkcs11'],
      'no key in the process',
    )
    gateway = await createGateway({
      config: { ...config, rpc: { ...config.rpc, timeoutMs: 2_000 } },
      logger: createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } }),
    })
    baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 })
  })
  after(async () => {
    await gateway?.close()
    await standIn?.close()
    token?.remove()
  })

  const signedBody = async (nonce: number) => {
    const body = {
      sender: suiSender.toSuiAddress(),
      target: `0x${'22'.repeat(32)}`,
      data: '0x',
      value: '1000',
      nonce: String(nonce),
      policyId: standIn.policyId,
    }
    const { signature } = await suiSender.signPersonalMessage(encodeSuiIntent(parseIntent(body as never, suiRuntime)))
    return { ...body, signature: `0x${Buffer.from(signature, 'base64').toString('hex')}` }
  }

  it('keeps the private key in the token: reading it out is refused', () => {
    assert.throws(() => readPrivateValue(token, 'sui-relayer'), /CKR_ATTRIBUTE_SENSITIVE/)
  })

  it("executes with the token's key as the transaction's sender and signer (the stand-in verifies the signature); /chains shows pkcs11, never the PIN", async () => {
    const res = await post(baseUrl, '/intents/execute', await signedBody(1), sui)
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11', chainId: 'sui:localnet', chainType: 'sui' })
    const sent = standIn.calls.filter((c) => c.method === 'ExecuteTransaction')
    assert.equal(sent.length, 1)
    assert.equal(sent[0]!.transaction?.sender, relayer)
    assert.equal((await request(baseUrl, `/intents/${res.headers.get('x-intent-hash')}`)).body.state, 'mined')

    const chains = await request(baseUrl, '/chains/sui:localnet')
    assert.equal(chains.body.relayer, relayer)
    assert.equal(chains.body.relayerSigner, 'pkcs11')
    assert.ok(!chains.text.includes(`"${token.pin}"`), 'the PIN is never shown')
    assert.ok(!logs.join('').includes(`"${token.pin}"`), 'the PIN is never logged')
  })

  it('answers 503 (0x40) with Retry-After when the token refuses to sign, with no journal record and nothing broadcast; the next execute signs again', async () => {
    const body = await signedBody(2)
    const broadcasts = standIn.calls.filter((c) => c.method === 'ExecuteTransaction').length
    logOutOfToken(token)
    const res = await post(baseUrl, '/intents/execute', body, sui)
    assert.equal(res.status, 503, res.text)
    assertCommonHeaders(res, { status: '0x40', chainId: 'sui:localnet', chainType: 'sui' })
    assert.equal(res.headers.get('retry-after'), '5')
    assert.match(
      res.body.detail,
      /^the PKCS#11 token "sui-relayers" did not sign with key "sui-relayer": CKR_OBJECT_HANDLE_INVALID/,
    )
    assert.equal(
      (await request(baseUrl, `/intents/${res.headers.get('x-intent-hash')}`)).status,
      404,
      'no record claims an unsigned transaction',
    )
    assert.equal(
      standIn.calls.filter((c) => c.method === 'ExecuteTransaction').length,
      broadcasts,
      'nothing was broadcast',
    )
    const again = await post(baseUrl, '/intents/execute', body, sui)
    assert.equal(again.status, 200, again.text)
    assertCommonHeaders(again, { status: '0x11', chainId: 'sui:localnet', chainType: 'sui' })
  })

  it('counts a key in the token as a relayer: in production it needs API keys, so that no stranger spends its gas', () => {
    assert.throws(
      () =>
        loadConfig({
          NODE_ENV: 'production',
          EXECUTOR_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.packageId }),
          VALIDATOR_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.packageId }),
          REGISTRY_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.hubId }),
          RPC_URLS: JSON.stringify({ 'sui:localnet': 'https://sui.example' }),
          RELAYER_PKCS11_MODULE: token.modulePath,
          RELAYER_PKCS11_TOKEN: token.tokenLabel,
          RELAYER_PKCS11_PIN: token.pin,
          SUI_RELAYER_PKCS11_KEY_LABEL: 'sui-relayer',
          PORT: '0',
        }),
      (err: Error & { problems?: string[] }) => {
        assert.ok(
          err.problems?.some((p) => p.startsWith('API_KEYS: required in production')),
          String(err.problems),
        )
        assert.ok(!err.problems!.join('\n').includes(token.pin), 'the PIN is not shown')
        return true
      },
    )
  })

  it('refuses to start with a key label the token does not hold, naming the setting', async () => {
    const config = loadConfig({
      EXECUTOR_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.packageId }),
      VALIDATOR_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.packageId }),
      REGISTRY_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.hubId }),
      RPC_URLS: JSON.stringify({ 'sui:localnet': standIn.url }),
      RELAYER_PKCS11_MODULE: token.modulePath,
      RELAYER_PKCS11_TOKEN: token.tokenLabel,
      RELAYER_PKCS11_PIN: token.pin,
      SUI_RELAYER_PKCS11_KEY_LABEL: 'nope',
      PORT: '0',
      JOURNAL_PATH: ':memory:',
    })
    await assert.rejects(
      createGateway({ config, logger: createLogger({ level: 'silent' }) }),
      (err: Error & { problems?: string[] }) => {
        assert.deepEqual(err.problems, [
          'SUI_RELAYER_PKCS11_KEY_LABEL: the token "sui-relayers" holds 0 private keys labelled "nope" (one is needed)',
        ])
        return true
      },
    )
  })
})

describe('the Sui relayer key in KMS (KMS stand-in, Sui stand-in)', () => {
  const seed = randomBytes(32)
  let kms: KmsStandIn
  let standIn: SuiStandIn
  let gateway: Gateway
  let baseUrl: string
  const relayer = new Ed25519PublicKey(createLocalEd25519Signer(seed).publicKey).toSuiAddress()
  const sui = { 'x-chain-id': 'sui:localnet' }

  before(async () => {
    // The SDK reads credentials from the environment, as it would on a host.
    process.env.AWS_ACCESS_KEY_ID = 'AKIASTANDIN'
    process.env.AWS_SECRET_ACCESS_KEY = 'stand-in-secret'
    kms = await startKmsStandIn({}, { 'alias/sui-relayer': { ed25519: seed } })
    standIn = await startSuiStandIn({ relayer })
    const config = loadConfig({
      EXECUTOR_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.packageId }),
      VALIDATOR_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.packageId }),
      REGISTRY_ADDRESSES: JSON.stringify({ 'sui:localnet': standIn.hubId }),
      RPC_URLS: JSON.stringify({ 'sui:localnet': standIn.url }),
      SUI_RELAYER_KMS_KEY_ID: 'alias/sui-relayer',
      KMS_REGION: 'us-east-1',
      KMS_ENDPOINT: kms.endpoint,
      PORT: '0',
      JOURNAL_PATH: ':memory:',
    })
    gateway = await createGateway({
      config: { ...config, rpc: { ...config.rpc, timeoutMs: 2_000 } },
      logger: createLogger({ level: 'silent' }),
    })
    baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 })
  })
  after(async () => {
    await gateway?.close()
    await standIn?.close()
    await kms?.close()
  })

  const signedBody = async (nonce: number) => {
    const body = {
      sender: suiSender.toSuiAddress(),
      target: `0x${'22'.repeat(32)}`,
      data: '0x',
      value: '1000',
      nonce: String(nonce),
      policyId: standIn.policyId,
    }
    const { signature } = await suiSender.signPersonalMessage(encodeSuiIntent(parseIntent(body as never, suiRuntime)))
    return { ...body, signature: `0x${Buffer.from(signature, 'base64').toString('hex')}` }
  }

  it('executes with the KMS key as sender and signer; /chains shows kms; a refusal answers 503 0x40 with no record and nothing broadcast', async () => {
    const signsBefore = kms.signs
    const res = await post(baseUrl, '/intents/execute', await signedBody(1), sui)
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11', chainId: 'sui:localnet', chainType: 'sui' })
    assert.equal(standIn.calls.find((c) => c.method === 'ExecuteTransaction')?.transaction?.sender, relayer)
    assert.ok(kms.signs > signsBefore, 'KMS signed it')
    const chains = await request(baseUrl, '/chains/sui:localnet')
    assert.deepEqual([chains.body.relayer, chains.body.relayerSigner], [relayer, 'kms'])
    assert.ok(!chains.text.includes(seed.toString('hex')))

    const broadcasts = standIn.calls.filter((c) => c.method === 'ExecuteTransaction').length
    kms.mode = 'refuse'
    let refused
    try {
      refused = await post(baseUrl, '/intents/execute', await signedBody(2), sui)
    } finally {
      kms.mode = 'normal'
    }
    assert.equal(refused.status, 503, refused.text)
    assertCommonHeaders(refused, { status: '0x40', chainId: 'sui:localnet', chainType: 'sui' })
    assert.equal(refused.headers.get('retry-after'), '5')
    assert.match(refused.body.detail, /^KMS Sign failed: KMSInvalidStateException/)
    assert.equal(
      (await request(baseUrl, `/intents/${refused.headers.get('x-intent-hash')}`)).status,
      404,
      'no record claims an unsigned transaction',
    )
    assert.equal(
      standIn.calls.filter((c) => c.method === 'ExecuteTransaction').length,
      broadcasts,
      'nothing was broadcast',
    )
  })
})
