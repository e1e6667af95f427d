// Relayer keys in a real PKCS#11 token (SoftHSM2): the gateway executes on anvil with a secp256k1
// key generated inside the token, whose private half nobody can read out; /chains shows the
// signer, never a key or the PIN; a wrong PIN or label stops the start-up naming the setting.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { parseEther } from 'viem'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { createPkcs11Signer } from '../../src/signers/createPkcs11Signer.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { chainEnv } from '../support/gatewayProcess.ts'
import { tokenKeys } from '../support/relayerKeys.ts'
import { runGateway } from '../support/runGateway.ts'
import {
  createSoftHsmToken,
  pkcs11Binding,
  readPrivateValue,
  type SoftHsmToken,
  softHsmModule,
} from '../support/softHsm.ts'
import {
  post,
  request,
  signedIntent,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

describe('relayer keys in a PKCS#11 token (SoftHSM2)', {
  skip: !softHsmModule
    ? 'SoftHSM2 is not installed (scripts/ensureTestTools.sh installs it)'
    : !pkcs11Binding
      ? 'the optional pkcs11js binding did not build at install (it needs a C++ compiler)'
      : false,
}, () => {
  let world: World
  let token: SoftHsmToken
  let gateway: TestGateway
  const chain = { 'x-chain-id': '31337' }

  before(async () => {
    token = createSoftHsmToken(['relayer-1'])
    world = await startWorld()
    const account = createPkcs11Signer({ ...token, keyLabel: 'relayer-1' })
    const wallet = world.clients.walletFor(devnetAccounts.deployer)
    const fund = await wallet.sendTransaction({
      to: account.address,
      value: parseEther('5'),
      account: wallet.account!,
      chain: wallet.chain,
    })
    await world.clients.publicClient.waitForTransactionReceipt({ hash: fund })
    gateway = await startTestGateway({
      chains: [world.devnet.chain],
      relayerPrivateKey: undefined,
      heldRelayerKeys: tokenKeys(token, ['relayer-1']),
    })
  })
  after(async () => {
    await gateway?.close()
    await world?.stop()
    token?.remove()
  })

  it('keeps the private key in the token: reading it out is refused', () => {
    assert.throws(() => readPrivateValue(token, 'relayer-1'), /CKR_ATTRIBUTE_SENSITIVE/)
  })

  it('signs what verifies for its address, and executes through the gateway with it; /chains shows pkcs11, never the PIN', async () => {
    const account = createPkcs11Signer({ ...token, keyLabel: 'relayer-1' })
    const message = 'a relayer key that never leaves its token'
    const { verifyMessage } = await import('viem')
    assert.equal(
      await verifyMessage({ address: account.address, message, signature: await account.signMessage({ message }) }),
      true,
    )

    const res = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(world.devnet, { nonce: '850' }),
      chain,
    )
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11' })
    const sent = await world.clients.publicClient.getTransaction({ hash: res.body.transactionHash })
    assert.equal(sent.from.toLowerCase(), account.address.toLowerCase())
    const chains = await request(gateway.baseUrl, '/chains/31337')
    assert.deepEqual(
      chains.body.relayers.map((r: Record<string, unknown>) => ({ address: r.address, signer: r.signer })),
      [{ address: account.address, signer: 'pkcs11' }],
    )
    assert.ok(!chains.text.includes(`"${token.pin}"`), 'the PIN is never shown')
    assert.ok(!gateway.logs.join('').includes(`"${token.pin}"`), 'the PIN is never logged')
  })

  it('refuses to start with a label the token does not hold, or (in a process of its own) a wrong PIN, naming the setting', async () => {
    const heldRelayerKeys = tokenKeys(token, ['nope'])
    await assert.rejects(
      startTestGateway({
        chains: [world.devnet.chain],
        relayerPrivateKey: undefined,
        heldRelayerKeys,
      }),
      (err: Error & { problems?: string[] }) => {
        assert.match(
          (err.problems ?? [err.message]).join('\n'),
          /RELAYER_PKCS11_KEY_LABELS: the token "relayers" holds 0 private keys labelled "nope" \(one is needed\)/,
        )
        return true
      },
    )
    // A PKCS#11 login lasts as long as the application: a wrong PIN shows in a fresh process, as at a real start-up.
    const { RELAYER_PRIVATE_KEY: _, ...env } = chainEnv(world.devnet)
    const gw = runGateway({
      env: {
        ...env,
        SOFTHSM2_CONF: process.env.SOFTHSM2_CONF!,
        RELAYER_PKCS11_MODULE: token.modulePath,
        RELAYER_PKCS11_TOKEN: token.tokenLabel,
        RELAYER_PKCS11_KEY_LABELS: 'relayer-1',
        RELAYER_PKCS11_PIN: '0000',
      },
    })
    assert.equal(await gw.exit, 1)
    assert.match(
      gw.stderr() + gw.stdout(),
      /RELAYER_PKCS11_KEY_LABELS: the token \\?"relayers\\?" refused the PIN \(CKR_PIN_INCORRECT\)/,
    )
    assert.ok(!(gw.stderr() + gw.stdout()).includes('0000'), 'the PIN is not shown')
  })
})
