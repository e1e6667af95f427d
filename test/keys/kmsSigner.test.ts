// Relayer keys in AWS KMS, against a local stand-in that speaks KMS's JSON protocol as
// @aws-sdk/client-kms sends it (test/support/kmsStandIn.ts): the gateway executes on anvil with a
// key it never holds, normalises high-s signatures, shows the key's backend (never the key) in
// /chains, and a signer that refuses leaves nothing half-done: 503 0x40 with Retry-After, no
// journal record, no nonce used, and the key id only in the logs. What is not verified here: real AWS (IAM, SigV4 checked by the
// server, KMS's own non-deterministic signatures, quotas).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { createKmsSigner } from '../../src/signers/createKmsSigner.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { type KmsStandIn, startKmsStandIn } from '../support/kmsStandIn.ts'
import { kmsKeys } from '../support/relayerKeys.ts'
import {
  post,
  request,
  signedIntent,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

// A key only the stand-in holds, made for this run: the gateway never sees it.
const kmsKey = generatePrivateKey()
const credentials = { accessKeyId: 'AKIASTANDIN', secretAccessKey: 'stand-in-secret' }

describe('relayer keys in KMS (against a KMS stand-in)', () => {
  let world: World
  let kms: KmsStandIn
  let gateway: TestGateway
  const chain = { 'x-chain-id': '31337' }

  before(async () => {
    // The SDK reads credentials from the environment, as it would on a host.
    process.env.AWS_ACCESS_KEY_ID = credentials.accessKeyId
    process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey
    world = await startWorld()
    kms = await startKmsStandIn({ 'alias/relayer': kmsKey })
    const wallet = world.clients.walletFor(devnetAccounts.deployer)
    const fund = await wallet.sendTransaction({
      to: kms.addressOf('alias/relayer'),
      value: parseEther('5'),
      account: wallet.account!,
      chain: wallet.chain,
    })
    await world.clients.publicClient.waitForTransactionReceipt({ hash: fund })
    gateway = await startTestGateway({
      chains: [world.devnet.chain],
      relayerPrivateKey: undefined,
      heldRelayerKeys: kmsKeys(['alias/relayer'], 'us-east-1', kms.endpoint),
    })
  })
  after(async () => {
    await gateway?.close()
    await kms?.close()
    await world?.stop()
  })

  it('signs exactly what the key would sign itself, and normalises a high-s answer to low s', async () => {
    const account = await createKmsSigner({
      keyId: 'alias/relayer',
      region: 'us-east-1',
      endpoint: kms.endpoint,
      credentials,
    })
    assert.equal(account.address, privateKeyToAccount(kmsKey).address)
    const tx = {
      chainId: 31337,
      type: 'eip1559' as const,
      to: account.address,
      value: 1n,
      gas: 21_000n,
      nonce: 7,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    }
    const local = await privateKeyToAccount(kmsKey).signTransaction(tx)
    assert.equal(await account.signTransaction(tx), local)
    kms.mode = 'high-s'
    try {
      assert.equal(await account.signTransaction(tx), local, 'the high-s form is flipped to the low-s one')
      assert.equal(
        await account.signMessage({ message: 'hello' }),
        await privateKeyToAccount(kmsKey).signMessage({ message: 'hello' }),
      )
    } finally {
      kms.mode = 'normal'
    }
  })

  it('executes through the gateway with the KMS key, which /chains shows as kms, never the key', async () => {
    const before = kms.signs
    const res = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(world.devnet, { nonce: '800' }),
      chain,
    )
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11' })
    const sent = await world.clients.publicClient.getTransaction({ hash: res.body.transactionHash })
    assert.equal(sent.from.toLowerCase(), kms.addressOf('alias/relayer').toLowerCase())
    assert.ok(kms.signs > before, 'KMS signed it')
    const chains = await request(gateway.baseUrl, '/chains/31337')
    assert.deepEqual(
      chains.body.relayers.map((r: Record<string, unknown>) => ({ address: r.address, signer: r.signer })),
      [{ address: kms.addressOf('alias/relayer'), signer: 'kms' }],
    )
    assert.ok(!chains.text.toLowerCase().includes(kmsKey.slice(2)))
  })

  it('answers 503 (0x40) with Retry-After when KMS refuses to sign, with no journal record and no nonce used', async () => {
    const address = kms.addressOf('alias/relayer')
    const nonceBefore = await world.clients.publicClient.getTransactionCount({ address, blockTag: 'pending' })
    kms.mode = 'refuse'
    let res
    try {
      res = await post(gateway.baseUrl, '/intents/execute', await signedIntent(world.devnet, { nonce: '801' }), chain)
    } finally {
      kms.mode = 'normal'
    }
    assert.equal(res.status, 503, res.text)
    assertCommonHeaders(res, { status: '0x40' })
    assert.equal(res.headers.get('retry-after'), '5')
    // Which call failed and why, never the key id or ARN (it names the operator's account and key): that is logged only.
    assert.match(res.body.detail, /^KMS Sign failed: KMSInvalidStateException/)
    assert.ok(!res.text.includes('alias/relayer'), res.text)
    assert.ok(
      gateway.logs.some((l) => l.includes('KMS Sign for key alias/relayer failed: KMSInvalidStateException')),
      'the key id is in the log line',
    )
    assert.equal(
      (await request(gateway.baseUrl, `/intents/${res.headers.get('x-intent-hash')}`)).status,
      404,
      'no record claims an unsigned transaction',
    )
    assert.equal(await world.clients.publicClient.getTransactionCount({ address, blockTag: 'pending' }), nonceBefore)
    // The signer back: the same intent runs, with the nonce the refusal did not use.
    const again = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(world.devnet, { nonce: '801' }),
      chain,
    )
    assert.equal(again.status, 200, again.text)
    assert.equal(
      (await world.clients.publicClient.getTransaction({ hash: again.body.transactionHash })).nonce,
      nonceBefore,
    )
  })

  it('refuses to start with a key KMS does not have, naming RELAYER_KMS_KEY_IDS', async () => {
    await assert.rejects(
      startTestGateway({
        chains: [world.devnet.chain],
        relayerPrivateKey: undefined,
        heldRelayerKeys: kmsKeys(['alias/missing'], 'us-east-1', kms.endpoint),
      }),
      (err: Error & { problems?: string[] }) => {
        assert.match(
          (err.problems ?? [err.message]).join('\n'),
          /RELAYER_KMS_KEY_IDS: The relayer's signer is unavailable \(KMS GetPublicKey for key alias\/missing failed: NotFoundException\)/,
        )
        return true
      },
    )
  })
})
