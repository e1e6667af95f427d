// The x402 facilitator's Solana key (the settlements' fee payer) in a real PKCS#11 token
// (SoftHSM2): an Ed25519 key generated inside it, never read out, co-signs and pays for a real
// SPL settlement on LiteSVM; the 402's offer names it as the fee payer. A token that refuses to
// sign answers 503 with Retry-After before anything is reserved or paid, and the next payment
// settles.
import assert from 'node:assert/strict'
import { createPublicKey, verify } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { type Address, getBase58Decoder, getBase58Encoder, getBase64Encoder, getTransactionDecoder } from '@solana/kit'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { createPkcs11EdDsaSigner } from '../../src/signers/createPkcs11EdDsaSigner.ts'
import {
  createSoftHsmToken,
  logOutOfToken,
  pkcs11Binding,
  readPrivateValue,
  type SoftHsmToken,
  softHsmModule,
} from '../support/softHsm.ts'
import { startSolanaDevnet } from '../support/solanaGateway.ts'
import { signedSolanaIntent, solanaPayingClient, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import { post, type TestGateway } from '../support/testGateway.ts'

const skip = !softHsmModule
  ? 'SoftHSM2 is not installed (scripts/ensureTestTools.sh installs it)'
  : !pkcs11Binding
    ? 'the optional pkcs11js binding did not build at install (it needs a C++ compiler)'
    : false

describe("the x402 facilitator's Solana key in a PKCS#11 token (SoftHSM2, LiteSVM)", { skip }, () => {
  let token: SoftHsmToken
  let devnet: SolanaDevnet
  let gateway: TestGateway
  let feePayer: Address
  let publicKey: Uint8Array
  const price = 10_000n
  const execute = (body: unknown, headers: Record<string, string> = {}) =>
    post(gateway.baseUrl, '/intents/execute', body, { 'x-chain-id': devnet.chainId, ...headers })
  const lamportsOf = async (who: Address) => (await devnet.rpc.getBalance(who).send()).value
  const pay = async (body: unknown) => {
    const { fetch: paying } = await solanaPayingClient(devnet)
    const res = await paying(`${gateway.baseUrl}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-chain-id': devnet.chainId },
      body: JSON.stringify(body),
    })
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> }
  }

  before(async () => {
    token = createSoftHsmToken([], 'relayers', '1234', { ed25519Labels: ['facilitator-solana'] })
    devnet = await startSolanaDevnet()
    publicKey = createPkcs11EdDsaSigner({ ...token, keyLabel: 'facilitator-solana' }).publicKey
    feePayer = getBase58Decoder().decode(publicKey) as Address
    await devnet.rpc.requestAirdrop(feePayer, 10_000_000_000n as never).send()
    gateway = await startSolanaPaidGateway(devnet, {
      payments: {
        ...devnet.payments,
        facilitator: {
          kind: 'local',
          solanaKey: {
            backend: 'pkcs11',
            ...token,
            keyLabel: 'facilitator-solana',
            setting: 'FACILITATOR_SOLANA_PKCS11_KEY_LABEL',
          },
        },
      },
    })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
    token?.remove()
  })

  it('keeps the fee payer key in the token: reading it out is refused', () => {
    assert.throws(() => readPrivateValue(token, 'facilitator-solana'), /CKR_ATTRIBUTE_SENSITIVE/)
  })

  it("offers the token's key as the fee payer, and settles a paid execute with it: the payer pays the price, the settlement is the token's signature, the fee paid from its account", async () => {
    const { body } = signedSolanaIntent(devnet)
    const unpaid = await execute(body)
    assert.equal(unpaid.status, 402)
    assert.equal(
      decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!).accepts[0]!.extra?.feePayer,
      feePayer,
    )

    const [payerBefore, feesBefore] = [await devnet.payment.balanceOf(devnet.payment.payer), await lamportsOf(feePayer)]
    const { client } = await solanaPayingClient(devnet)
    const payload = await client.createPaymentPayload(
      decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!),
    )
    const res = await execute(body, { 'payment-signature': encodePaymentSignatureHeader(payload) })
    assert.equal(res.status, 200, res.text)
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    assert.equal(settlement.success, true)
    assert.equal(await devnet.payment.balanceOf(devnet.payment.payer), payerBefore - price)
    assert.ok((await lamportsOf(feePayer)) < feesBefore, "the settlement's fee came from the token's key")
    // The settlement's id is the fee payer's signature: made by the token's key over the payer's transaction message.
    const wire = getTransactionDecoder().decode(
      getBase64Encoder().encode((payload.payload as { transaction: string }).transaction),
    )
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey])
    assert.ok(
      verify(
        null,
        Uint8Array.from(wire.messageBytes),
        createPublicKey({ key: spki, format: 'der', type: 'spki' }),
        Uint8Array.from(getBase58Encoder().encode(settlement.transaction)),
      ),
    )
    const line = gateway.logs.find((l) => l.includes('x402 facilitator keys'))
    assert.deepEqual(JSON.parse(line!).facilitator, [{ key: 'solana', address: feePayer, signer: 'pkcs11' }])
    assert.ok(!gateway.logs.join('').includes(`"${token.pin}"`), 'the PIN is never logged')
  })

  it('answers 503 FACILITATOR_SIGNER_UNAVAILABLE with Retry-After when the token refuses to sign: nothing reserved or paid; the next payment settles', async () => {
    const { body } = signedSolanaIntent(devnet)
    const payerBefore = await devnet.payment.balanceOf(devnet.payment.payer)
    logOutOfToken(token)
    const res = await pay(body)
    assert.equal(res.status, 503, JSON.stringify(res.body))
    assert.equal(res.headers.get('retry-after'), '5')
    assert.equal(res.headers.get('x-erc1066-status'), '0x40')
    assert.equal(res.body.title, "The payment facilitator's signer is unavailable")
    assert.match(
      res.body.detail,
      /could not sign \(the PKCS#11 token "relayers" did not sign with key "facilitator-solana": CKR_\w+\)/,
    )
    assert.equal(await devnet.payment.balanceOf(devnet.payment.payer), payerBefore, 'nothing paid')
    // The token's session is opened and logged in again: the same intent, paid again, runs.
    const again = await pay(body)
    assert.equal(again.status, 200, JSON.stringify(again.body))
    assert.equal(await devnet.payment.balanceOf(devnet.payment.payer), payerBefore - price)
  })
})
