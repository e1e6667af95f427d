// The x402 facilitator's EVM key outside the process: the gateway settles a real EIP-3009 payment
// on anvil with the facilitator's secp256k1 key generated inside a PKCS#11 token (SoftHSM2; nobody
// can read it out) and, in a second gateway, held by the KMS stand-in. A facilitator key that
// refuses or does not answer answers 503 FACILITATOR_SIGNER_UNAVAILABLE with Retry-After: nothing
// is paid, the intent is not run. And the relayer's own token made slow (a wrapper around the real
// token's signing) answers 503 SIGNER_UNAVAILABLE, no journal record, nothing sent.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { after, before, describe, it } from 'node:test'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, type Hex, keccak256, parseEther, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import type { PaymentsConfig } from '../../src/config/paymentsConfig.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { createPkcs11Signer } from '../../src/signers/createPkcs11Signer.ts'
import { type KmsStandIn, startKmsStandIn } from '../support/kmsStandIn.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { tokenKeys } from '../support/relayerKeys.ts'
import {
  createSoftHsmToken,
  pkcs11Binding,
  readPrivateValue,
  type SoftHsmToken,
  softHsmModule,
} from '../support/softHsm.ts'
import { post, request, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const skip = !softHsmModule
  ? 'SoftHSM2 is not installed (scripts/ensureTestTools.sh installs it)'
  : !pkcs11Binding
    ? 'the optional pkcs11js binding did not build at install (it needs a C++ compiler)'
    : false

const apiKey = 'operator-key-0123456789abcdef'
const price = 10_000n
/** The KMS stand-in's facilitator key: made from a label (not a devnet account, funded only on this test's anvil). */
const kmsFacilitatorKey: Hex = keccak256(stringToHex('intent-gateway test: the KMS stand-in facilitator key'))

/** How long the token's signatures take from now on (0: as fast as the token is). */
let tokenDelayMs = 0

/**
 * The real token's signing, made slow on demand: pkcs11js's PKCS11 class wrapped before the
 * gateway loads the module, so every signature the gateway asks of SoftHSM2 waits first.
 */
function slowDownTheToken(): void {
  const lib = createRequire(import.meta.url)('pkcs11js') as {
    PKCS11: new () => Record<string, (...args: unknown[]) => Promise<unknown>>
  }
  const Original = lib.PKCS11
  lib.PKCS11 = class extends (Original as new () => object) {
    constructor() {
      super()
      const self = this as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
      const sign = self.C_SignAsync!
      self.C_SignAsync = async (...args: unknown[]) => {
        if (tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, tokenDelayMs))
        return sign.apply(self, args)
      }
    }
  } as never
}

describe("the x402 facilitator's EVM key in a PKCS#11 token (SoftHSM2) or KMS", { skip }, () => {
  let devnet: Devnet
  let clients: ReturnType<typeof createDevClients>
  let token: SoftHsmToken
  let kms: KmsStandIn
  /** Relayer and facilitator both in the token. */
  let hsmGateway: TestGateway
  /** The devnet's relayer, the facilitator in KMS. */
  let kmsGateway: TestGateway
  let hsmFacilitator: Address
  let hsmRelayer: Address
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const treasury = () => devnet.demo.payment.payTo
  const balanceOf = (who: Address) =>
    clients.publicClient.readContract({
      address: devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  // The PAYMENT-SIGNATURE headers the x402 client sent, newest last.
  const sentSignatures: string[] = []
  const recordingFetch: typeof fetch = async (input, init) => {
    const signature = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get(
      'payment-signature',
    )
    if (signature) sentSignatures.push(signature)
    return fetch(input, init)
  }
  const paidPost = async (gateway: TestGateway, body: unknown) => {
    const res = await wrapFetchWithPayment(recordingFetch, payingClient(devnet).client)(
      `${gateway.baseUrl}/intents/execute`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
    )
    return { status: res.status, headers: res.headers, body: (await res.json()) as any }
  }
  const fund = async (to: Address) => {
    const wallet = clients.walletFor(devnetAccounts.deployer)
    await clients.publicClient.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to, value: parseEther('5'), account: wallet.account!, chain: wallet.chain }),
    })
  }
  const paymentsWith = (facilitator: PaymentsConfig['facilitator']): PaymentsConfig => ({
    ...devnet.payments,
    facilitator,
  })

  before(async () => {
    slowDownTheToken()
    process.env.AWS_ACCESS_KEY_ID = 'AKIASTANDIN'
    process.env.AWS_SECRET_ACCESS_KEY = 'stand-in-secret'
    token = createSoftHsmToken(['relayer-1', 'facilitator'])
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    kms = await startKmsStandIn({ 'alias/facilitator': kmsFacilitatorKey })
    hsmFacilitator = createPkcs11Signer({ ...token, keyLabel: 'facilitator' }).address
    hsmRelayer = createPkcs11Signer({ ...token, keyLabel: 'relayer-1' }).address
    for (const address of [hsmFacilitator, hsmRelayer, kms.addressOf('alias/facilitator')]) await fund(address)
    const auth = { keyHashes: [hashApiKey(apiKey)], requireForValidate: false }
    hsmGateway = await startTestGateway({
      chains: [devnet.chain],
      relayerPrivateKey: undefined,
      auth,
      heldRelayerKeys: tokenKeys(token, ['relayer-1']),
      payments: paymentsWith({
        kind: 'local',
        evmKey: { backend: 'pkcs11', ...token, keyLabel: 'facilitator', setting: 'FACILITATOR_PKCS11_KEY_LABEL' },
      }),
    })
    kmsGateway = await startTestGateway({
      chains: [devnet.chain],
      auth,
      payments: paymentsWith({
        kind: 'local',
        evmKey: {
          backend: 'kms',
          keyId: 'alias/facilitator',
          region: 'us-east-1',
          endpoint: kms.endpoint,
          setting: 'FACILITATOR_KMS_KEY_ID',
        },
      }),
    })
  })
  after(async () => {
    tokenDelayMs = 0
    await hsmGateway?.close()
    await kmsGateway?.close()
    await kms?.close()
    await devnet?.stop()
    token?.remove()
  })

  it('keeps the facilitator key in the token: reading it out is refused', () => {
    assert.throws(() => readPrivateValue(token, 'facilitator'), /CKR_ATTRIBUTE_SENSITIVE/)
  })

  it("settles a paid execute from the token's facilitator key: the payer pays the price once, the settlement is sent from its address, the logs show pkcs11 and the address, never the PIN", async () => {
    const [payerBefore, treasuryBefore] = [await balanceOf(payer), await balanceOf(treasury())]
    const res = await paidPost(hsmGateway, await signedIntent(devnet, { nonce: '9100' }))
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    assert.equal(settlement.success, true)
    const sent = await clients.publicClient.getTransaction({ hash: settlement.transaction as Hex })
    assert.equal(sent.from.toLowerCase(), hsmFacilitator.toLowerCase())
    const executed = await clients.publicClient.getTransaction({ hash: res.body.transactionHash })
    assert.equal(executed.from.toLowerCase(), hsmRelayer.toLowerCase())
    assert.equal(await balanceOf(payer), payerBefore - price)
    assert.equal(await balanceOf(treasury()), treasuryBefore + price)
    const line = hsmGateway.logs.find((l) => l.includes('x402 facilitator keys'))
    assert.ok(line, 'the facilitator keys are logged at start-up')
    assert.deepEqual(JSON.parse(line).facilitator, [{ key: 'evm', address: hsmFacilitator, signer: 'pkcs11' }])
    assert.ok(!hsmGateway.logs.join('').includes(`"${token.pin}"`), 'the PIN is never logged')
  })

  it("settles a paid execute from the facilitator's key in KMS", async () => {
    const payerBefore = await balanceOf(payer)
    const signsBefore = kms.signs
    const res = await paidPost(kmsGateway, await signedIntent(devnet, { nonce: '9101' }))
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    const sent = await clients.publicClient.getTransaction({ hash: settlement.transaction as Hex })
    assert.equal(sent.from.toLowerCase(), kms.addressOf('alias/facilitator').toLowerCase())
    assert.equal(await balanceOf(payer), payerBefore - price)
    assert.ok(kms.signs > signsBefore, 'KMS signed the settlement')
  })

  for (const mode of ['refuse', 'hang'] as const) {
    it(`answers 503 FACILITATOR_SIGNER_UNAVAILABLE with Retry-After when KMS ${mode === 'refuse' ? 'refuses to sign' : 'does not answer in time'}: nothing paid, the intent not run; a new payment settles once KMS is back`, async () => {
      const payerBefore = await balanceOf(payer)
      const settlerNonce = await clients.publicClient.getTransactionCount({
        address: kms.addressOf('alias/facilitator'),
        blockTag: 'pending',
      })
      const body = await signedIntent(devnet, { nonce: mode === 'refuse' ? '9102' : '9103' })
      kms.mode = mode
      let res: Awaited<ReturnType<typeof paidPost>>
      try {
        res = await paidPost(kmsGateway, body)
      } finally {
        kms.mode = 'normal'
      }
      assert.equal(res.status, 503, JSON.stringify(res.body))
      // The problem names the facilitator's key (its code, FACILITATOR_SIGNER_UNAVAILABLE, is logged), not a refused payment.
      assert.equal(res.body.title, "The payment facilitator's signer is unavailable")
      assert.match(
        res.body.detail,
        /^x402 settle was not done: the facilitator's key could not sign \(KMS Sign failed: .+\); nothing was sent, retry later$/,
      )
      assert.ok(kmsGateway.logs.some((l) => l.includes('"code":"FACILITATOR_SIGNER_UNAVAILABLE"')))
      assert.equal(res.headers.get('retry-after'), '5')
      assert.equal(res.headers.get('x-erc1066-status'), '0x40')
      assert.equal(res.headers.get('payment-response'), null)
      assert.equal(await balanceOf(payer), payerBefore, 'nothing paid')
      assert.equal(
        await clients.publicClient.getTransactionCount({
          address: kms.addressOf('alias/facilitator'),
          blockTag: 'pending',
        }),
        settlerNonce,
        'no settlement sent',
      )
      const state = await request(kmsGateway.baseUrl, `/intents/${res.headers.get('x-intent-hash')}`)
      assert.notEqual(state.body.state, 'mined', JSON.stringify(state.body))
      assert.notEqual(state.body.state, 'submitted', JSON.stringify(state.body))
      // Nothing was sent, so the authorization was released: the same payment, sent again, runs once the key signs again.
      const again = await fetch(`${kmsGateway.baseUrl}/intents/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'payment-signature': sentSignatures.at(-1)! },
        body: JSON.stringify(body),
      })
      assert.equal(again.status, 200, await again.text())
      assert.equal(await balanceOf(payer), payerBefore - price)
    })
  }

  it("answers 503 SIGNER_UNAVAILABLE with Retry-After when the relayer's token does not sign in time: no journal record, nothing sent; the next execute signs", async () => {
    const nonceBefore = await clients.publicClient.getTransactionCount({ address: hsmRelayer, blockTag: 'pending' })
    const body = await signedIntent(devnet, { nonce: '9104' })
    tokenDelayMs = 6_000
    let res: Awaited<ReturnType<typeof post>>
    const started = Date.now()
    try {
      res = await post(hsmGateway.baseUrl, '/intents/execute', body, { authorization: `Bearer ${apiKey}` })
    } finally {
      tokenDelayMs = 0
    }
    assert.equal(res.status, 503, res.text)
    assert.equal(res.body.title, "The relayer's signer is unavailable")
    assert.match(res.body.detail, /did not sign with key "relayer-1" within 5000 ms/)
    assert.equal(res.headers.get('retry-after'), '5')
    assert.equal(res.headers.get('x-erc1066-status'), '0x40')
    assert.ok(Date.now() - started < 6_000, 'answered at the timeout, not when the token finished')
    assert.equal(
      (await request(hsmGateway.baseUrl, `/intents/${res.headers.get('x-intent-hash')}`)).status,
      404,
      'no journal record claims an unsigned transaction',
    )
    assert.equal(await hsmGateway.journal.pendingCount(), 0)
    assert.equal(
      await clients.publicClient.getTransactionCount({ address: hsmRelayer, blockTag: 'pending' }),
      nonceBefore,
      'nothing sent',
    )
    const next = await post(hsmGateway.baseUrl, '/intents/execute', body, { authorization: `Bearer ${apiKey}` })
    assert.equal(next.status, 200, next.text)
    assert.equal(
      (await clients.publicClient.getTransaction({ hash: next.body.transactionHash })).from.toLowerCase(),
      hsmRelayer.toLowerCase(),
    )
  })
})
