// The Solana relayer key in a real PKCS#11 token (SoftHSM2): an Ed25519 key generated inside it,
// configured as an operator would (RELAYER_PKCS11_*, SOLANA_RELAYER_PKCS11_KEY_LABEL), pays for and
// signs a real execute on LiteSVM (the program deployed through the loader); nobody can read the
// private key out; /chains shows the backend and the address, never the PIN; a token that refuses
// to sign answers 503 0x40 with Retry-After and leaves no journal record and no fee paid, and the
// next execute signs again; a wrong PIN stops the start-up naming the setting.
import assert from 'node:assert/strict'
import { createPublicKey, verify } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { type Address, getBase58Decoder, getBase58Encoder, getBase64Encoder, getTransactionDecoder } from '@solana/kit'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { ed25519Seed } from '../../src/chains/solana/ed25519Seed.ts'
import { createSolanaRuntime } from '../../src/chains/solana/solanaRuntime.ts'
import { createGateway, type Gateway } from '../../src/createGateway.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { loadConfig } from '../../src/runtimes.ts'
import { createPkcs11EdDsaSigner } from '../../src/signers/createPkcs11EdDsaSigner.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { runGateway } from '../support/runGateway.ts'
import {
  createSoftHsmToken,
  logOutOfToken,
  pkcs11Binding,
  readPrivateValue,
  type SoftHsmToken,
  softHsmModule,
} from '../support/softHsm.ts'
import { startSolanaDevnet } from '../support/solanaGateway.ts'
import { post, request } from '../support/testGateway.ts'

const skip = !softHsmModule
  ? 'SoftHSM2 is not installed (scripts/ensureTestTools.sh installs it)'
  : !pkcs11Binding
    ? 'the optional pkcs11js binding did not build at install (it needs a C++ compiler)'
    : false

describe('the Solana relayer key in a PKCS#11 token (SoftHSM2, LiteSVM)', { skip }, () => {
  let token: SoftHsmToken
  let devnet: SolanaDevnet
  let gateway: Gateway
  let baseUrl: string
  let relayer: Address
  const logs: string[] = []
  let nonce = 7_000n

  const envFor = (token: SoftHsmToken, pin: string): Record<string, string> => ({
    EXECUTOR_ADDRESSES: JSON.stringify({ [devnet.chainId]: devnet.programId }),
    VALIDATOR_ADDRESSES: JSON.stringify({ [devnet.chainId]: devnet.programId }),
    REGISTRY_ADDRESSES: JSON.stringify({ [devnet.chainId]: devnet.config }),
    RPC_URLS: JSON.stringify({ [devnet.chainId]: devnet.rpcUrl }),
    SOLANA_SIMULATION_FEE_PAYER: devnet.simulationFeePayer,
    RELAYER_PKCS11_MODULE: token.modulePath,
    RELAYER_PKCS11_TOKEN: token.tokenLabel,
    RELAYER_PKCS11_PIN: pin,
    SOLANA_RELAYER_PKCS11_KEY_LABEL: 'solana-relayer',
    PORT: '0',
    JOURNAL_PATH: ':memory:',
  })

  before(async () => {
    token = createSoftHsmToken([], 'relayers', '1234', { ed25519Labels: ['solana-relayer'] })
    devnet = await startSolanaDevnet()
    relayer = getBase58Decoder().decode(
      createPkcs11EdDsaSigner({ ...token, keyLabel: 'solana-relayer' }).publicKey,
    ) as Address
    await devnet.rpc.requestAirdrop(relayer, 10_000_000_000n as never).send()
    const config = loadConfig(envFor(token, token.pin))
    assert.deepEqual(
      config.keys.solana?.map((k) => k.backend),
      ['pkcs11'],
      'no key in the process',
    )
    gateway = await createGateway({
      config: { ...config, rpc: { ...config.rpc, timeoutMs: 5_000 } },
      logger: createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } }),
    })
    baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
    token?.remove()
  })

  const intent = (): Intent => ({
    sender: devnet.demo.sender,
    target: devnet.demo.target,
    data: '0x00cafe',
    value: 1_000n,
    nonce: nonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId: devnet.demo.policies.open,
    accounts: [{ address: devnet.demo.recipient, signer: false, writable: true }],
  })
  const signedBody = (i: Intent) => {
    const hash = createSolanaRuntime({ programId: devnet.programId, config: devnet.config }).hashIntent(i)
    const signature = Buffer.from(
      ed25519Seed.sign(devnet.demo.senderSecretKey, Buffer.from(hash.slice(2), 'hex')),
    ).toString('hex')
    return {
      ...i,
      value: i.value.toString(),
      nonce: i.nonce.toString(),
      validAfter: i.validAfter.toString(),
      validBefore: i.validBefore.toString(),
      signature: `0x${signature}`,
    }
  }
  const execute = (body: unknown) => post(baseUrl, '/intents/execute', body, { 'x-chain-id': devnet.chainId })
  const balance = async (address: Address) => (await devnet.rpc.getBalance(address).send()).value

  it('keeps the private key in the token: reading it out is refused', () => {
    assert.throws(() => readPrivateValue(token, 'solana-relayer'), /CKR_ATTRIBUTE_SENSITIVE/)
  })

  it("executes on LiteSVM with the token's key as fee payer and signer; /chains shows pkcs11 and the address, never the PIN", async () => {
    const before = await balance(relayer)
    const res = await execute(signedBody(intent()))
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11', chainId: devnet.chainId, chainType: 'solana' })
    // The transaction sent (as journaled; LiteSVM verified its signatures before it landed): its
    // fee payer (first account, first signature) is the token's key, and the signature verifies.
    const {
      value: [status],
    } = await devnet.rpc.getSignatureStatuses([res.body.transactionHash]).send()
    assert.equal(status?.err, null, 'landed without error')
    const record = await gateway.journal.get(res.headers.get('x-intent-hash') as never, devnet.chainId)
    const wire = getTransactionDecoder().decode(getBase64Encoder().encode(record!.transaction!.bytes))
    const [payer, signature] = Object.entries(wire.signatures)[0]!
    assert.equal(payer, relayer)
    const publicKey = createPublicKey({
      key: Buffer.concat([
        Buffer.from('302a300506032b6570032100', 'hex'),
        Buffer.from(getBase58Encoder().encode(relayer)),
      ]),
      format: 'der',
      type: 'spki',
    })
    assert.equal(verify(null, Buffer.from(wire.messageBytes), publicKey, Buffer.from(signature!)), true)
    assert.equal(getBase58Decoder().decode(signature!), res.body.transactionHash)
    assert.ok((await balance(relayer)) < before, 'the relayer paid the fee')

    const chains = await request(baseUrl, `/chains/${devnet.chainId}`)
    assert.equal(chains.body.relayer, relayer)
    assert.equal(chains.body.relayerSigner, 'pkcs11')
    assert.ok(!chains.text.includes(`"${token.pin}"`), 'the PIN is never shown')
    assert.ok(!logs.join('').includes(`"${token.pin}"`), 'the PIN is never logged')
  })

  it('answers 503 (0x40) with Retry-After when the token refuses to sign, with no journal record and no fee paid; the next execute signs again', async () => {
    const body = signedBody(intent())
    const before = await balance(relayer)
    logOutOfToken(token)
    const res = await execute(body)
    assert.equal(res.status, 503, res.text)
    assertCommonHeaders(res, { status: '0x40', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(res.headers.get('retry-after'), '5')
    assert.match(
      res.body.detail,
      /^the PKCS#11 token "relayers" did not sign with key "solana-relayer": CKR_OBJECT_HANDLE_INVALID/,
      'logged out, the private key is not visible',
    )
    assert.equal(
      (await request(baseUrl, `/intents/${res.headers.get('x-intent-hash')}`)).status,
      404,
      'no record claims an unsigned transaction',
    )
    assert.equal(await balance(relayer), before, 'nothing was sent')
    // The session the token dropped is opened and logged in again: the same intent runs.
    const again = await execute(body)
    assert.equal(again.status, 200, again.text)
    assertCommonHeaders(again, { status: '0x11', chainId: devnet.chainId, chainType: 'solana' })
  })

  it("refuses to start with a wrong PIN (in a process of its own: a PKCS#11 login is the application's), naming the setting, never the PIN", async () => {
    const gw = runGateway({ env: { ...envFor(token, '0000'), SOFTHSM2_CONF: process.env.SOFTHSM2_CONF! } })
    assert.equal(await gw.exit, 1)
    const output = gw.stderr() + gw.stdout()
    assert.match(
      output,
      /SOLANA_RELAYER_PKCS11_KEY_LABEL: the token \\?"relayers\\?" refused the PIN \(CKR_PIN_INCORRECT\)/,
    )
    assert.ok(!output.includes('0000'), 'the PIN is not shown')
  })
})
