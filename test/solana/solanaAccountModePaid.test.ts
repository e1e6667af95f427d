// Solana account mode (the agent signs as itself, the relayer is only the fee payer) with what an
// operator runs beside it (issue 46, item 1's last point): an x402 SVM payment, the budgets, signed
// webhooks and the event stream. The whole gateway as production builds it (createGateway), the
// LiteSVM devnet through its JSON-RPC front, the unmodified @x402/fetch with @x402/svm's exact
// scheme. Every case asserts balances on chain: the payer pays the price once and only for an
// intent that ran; the relayer the fee and its priority fee; the agent the record's rent and value.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { type Address, getBase58Decoder } from '@solana/kit'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { ed25519Seed } from '../../src/chains/solana/ed25519Seed.ts'
import { limitsConfig } from '../../src/config/limitsConfig.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { eventually } from '../support/eventually.ts'
import { accountModeFeeOf, demoIntents, startSolanaDevnet } from '../support/solanaGateway.ts'
import { solanaPayingClient, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import { post, request, type TestGateway } from '../support/testGateway.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.ts'

const secret = `whsec_${randomBytes(32).toString('base64')}`

describe('Solana account mode, paid, budgeted, with webhooks and events', () => {
  let devnet: SolanaDevnet
  let gateway: TestGateway
  let receiver: WebhookReceiver
  let relayer: Address
  const cleanup: Array<() => Promise<unknown>> = []

  before(async () => {
    devnet = await startSolanaDevnet()
    receiver = await startWebhookReceiver(secret)
    cleanup.push(() => receiver.close())
    gateway = await startSolanaPaidGateway(devnet, {
      webhooks: { urls: [receiver.url], secret, maxAttempts: 6, retryBaseMs: 20 },
    })
    cleanup.push(() => gateway.close())
    relayer = getBase58Decoder().decode(ed25519Seed.publicKey(devnet.relayerSecretKey)) as Address
  })
  after(async () => {
    for (const c of cleanup.reverse()) await c()
    await devnet?.stop()
  })

  const { intent, hashOf } = demoIntents(() => devnet, BigInt(Date.now()) * 1000n)
  const body = (i: Intent, extra: Record<string, unknown> = {}) => ({
    ...i,
    value: i.value.toString(),
    nonce: i.nonce.toString(),
    validAfter: i.validAfter.toString(),
    validBefore: i.validBefore.toString(),
    mode: 'account',
    ...extra,
  })
  const execute = (on: TestGateway, b: unknown, headers: Record<string, string> = {}) =>
    post(on.baseUrl, '/intents/execute', b, { 'x-chain-id': devnet.chainId, ...headers })
  const sign = (message: string, seed = devnet.demo.senderSecretKey) =>
    `0x${Buffer.from(ed25519Seed.sign(seed, Buffer.from(message, 'base64'))).toString('hex')}`
  const lamportsOf = async (address: Address) => (await devnet.rpc.getBalance(address).send()).value
  const balances = async () => ({
    relayer: await lamportsOf(relayer),
    agent: await lamportsOf(devnet.demo.sender as Address),
    recipient: await lamportsOf(devnet.demo.recipient as Address),
    payer: await devnet.payment.balanceOf(devnet.payment.payer),
    treasury: await devnet.payment.balanceOf(devnet.payment.payTo),
  })
  /** The 402's offer paid by the unmodified client: the payment-signature header. */
  async function paymentFor(on: TestGateway, b: unknown): Promise<string> {
    const unpaid = await execute(on, b)
    assert.equal(unpaid.status, 402, unpaid.text)
    const { client } = await solanaPayingClient(devnet)
    return encodePaymentSignatureHeader(
      await client.createPaymentPayload(decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!)),
    )
  }

  /**
   * What a paid account-mode agent goes through before it can sign: the price (402 0x55), then, with
   * a payment, the message (401 0xE5; the payment only verified, not settled): the message and the
   * payment header that goes back with the signature.
   */
  async function askToSign(on: TestGateway, i: Intent): Promise<{ message: string; header: string }> {
    const header = await paymentFor(on, body(i))
    const asked = await execute(on, body(i), { 'payment-signature': header })
    assert.equal(asked.status, 401, asked.text)
    assertCommonHeaders(asked, { status: '0xE5', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(asked.body.signing.mode, 'account')
    assert.equal(asked.headers.get('payment-response'), null, 'nothing settled for an unsigned intent')
    return { message: asked.body.signing.message, header }
  }

  it('prices first (402 0x55: nothing is built for an unpaid caller), then asks for the signature (401 0xE5, the payment not settled); the payment goes with the signature, is charged once, and the intent runs once, as the agent', async () => {
    const i = intent({ value: 2_000n })
    const before = await balances()
    const unpaid = await execute(gateway, body(i))
    assert.equal(unpaid.status, 402, unpaid.text)
    assert.equal(unpaid.headers.get('x-erc1066-status'), '0x55')
    assert.equal(unpaid.body.signing, undefined, 'no transaction message is built for a caller that has not paid')
    const { message, header } = await askToSign(gateway, i)
    assert.deepEqual(await balances(), before, 'pricing and asking moved nothing')
    const signed = body(i, { signature: sign(message) })
    const res = await execute(gateway, signed, { 'payment-signature': header })
    const answer = res.body as Record<string, any>
    assert.equal(res.status, 200, res.text)
    assert.equal(answer.status, '0x11')
    assert.equal(answer.intentHash, hashOf(i))
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    assert.equal(settlement.success, true)
    assert.equal(settlement.payer, devnet.payment.payer)

    const after = await balances()
    const rent = await devnet.rpc.getMinimumBalanceForRentExemption(48n).send()
    const row = await gateway.journal.get(hashOf(i), devnet.chainId)
    assert.equal(row?.state, 'mined')
    assert.equal(
      before.relayer - after.relayer,
      await accountModeFeeOf(gateway.journal, hashOf(i), devnet.chainId),
      'the relayer paid two signatures and its priority fee, nothing else',
    )
    assert.equal(before.agent - after.agent, rent + 2_000n, "the agent paid the nonce record's rent and the value")
    assert.equal(after.recipient - before.recipient, 2_000n, 'the intent ran once')
    assert.equal(before.payer - after.payer, devnet.payment.amount, 'the payer paid exactly the price')
    assert.equal(after.treasury - before.treasury, devnet.payment.amount)

    // The same signed intent again, through the unmodified @x402/fetch: the outcome, replayed; nothing charged, nothing sent.
    const { fetch: pay } = await solanaPayingClient(devnet)
    const again = await pay(`${gateway.baseUrl}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-chain-id': devnet.chainId },
      body: JSON.stringify(signed),
    })
    const replay = (await again.json()) as Record<string, any>
    assert.equal(again.status, 200, JSON.stringify(replay))
    assert.equal(replay.replayed, true)
    assert.deepEqual(await balances(), after)
    const state = await request(gateway.baseUrl, `/intents/${hashOf(i)}`, { headers: { 'x-chain-id': devnet.chainId } })
    assert.deepEqual(
      state.body.payments.map((p: Record<string, unknown>) => ({
        state: p.state,
        amount: p.amount,
        transaction: p.transaction,
      })),
      [{ state: 'consumed', amount: devnet.payment.amount.toString(), transaction: settlement.transaction }],
    )
  })

  it("charges nothing for an intent that did not run: a payment with the agent's signature of another message is refused 401 0xE4 and the payer keeps its tokens", async () => {
    const i = intent()
    const { header } = await askToSign(gateway, i)
    const forged = body(i, { signature: sign(Buffer.from('not the issued message').toString('base64')) })
    const before = await balances()
    const res = await execute(gateway, forged, { 'payment-signature': header })
    assert.equal(res.status, 401, res.text)
    assert.equal(res.headers.get('x-erc1066-status'), '0xE4')
    assert.equal(res.headers.get('payment-response'), null)
    assert.deepEqual(await balances(), before, 'nobody paid anything')
    assert.equal((await gateway.journal.get(hashOf(i), devnet.chainId))?.state ?? 'none', 'none')
  })

  it('delivers the signed webhooks and the event stream of an account-mode execution as of a vault-mode one (submitted, mined, final)', async () => {
    const i = intent()
    const { message, header } = await askToSign(gateway, i)
    const res = await execute(gateway, body(i, { signature: sign(message) }), { 'payment-signature': header })
    assert.equal(res.status, 200, res.text)
    const intentHash = hashOf(i)
    // Events of one intent may arrive out of order (docs/webhooks.md): a `mined` still on its way when `final` came.
    await eventually('the submitted, mined and final webhooks', 15_000, async () =>
      ['submitted', 'mined', 'final'].every((type) =>
        receiver.deliveries.some((d) => d.intentHash === intentHash && d.type === type),
      )
        ? true
        : undefined,
    )
    const delivered = receiver.deliveries.filter((d) => d.intentHash === intentHash)
    assert.deepEqual(delivered.map((d) => d.type).sort(), ['final', 'mined', 'submitted'])
    assert.deepEqual(receiver.badSignatures, [])
    const stream = await fetch(`${gateway.baseUrl}/intents/${intentHash}/events`, {
      headers: { accept: 'text/event-stream', 'x-chain-id': devnet.chainId },
    })
    assert.equal(stream.status, 200)
    const events = (await stream.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>)
    assert.deepEqual(
      events.map((e) => e.type),
      ['submitted', 'mined', 'final'],
    )
    assert.ok(events.every((e) => e.intentHash === intentHash))
    assert.equal(events.find((e) => e.type === 'mined')?.transactionHash, res.body.transactionHash)
  })

  it("counts account-mode fees in the relayer's spend budget: once spent, an unpaid account-mode execute is refused 503 0x40 before anything is signed or sent", async () => {
    const breaker = await startSolanaPaidGateway(devnet, {
      payments: { ...devnet.payments, prices: {} },
      limits: {
        ...limitsConfig({}).value,
        maxRevertsPerSender: 0,
        maxRevertsPerClient: 0,
        targetMaxRevertShare: 0,
        relayerSpendBudget: 1,
      },
    })
    cleanup.push(() => breaker.close())
    const first = intent()
    const asked = await execute(breaker, body(first))
    assert.equal(asked.status, 401, asked.text)
    const ran = await execute(breaker, body(first, { signature: sign(asked.body.signing.message) }))
    assert.equal(ran.status, 200, ran.text)
    const second = intent()
    const before = await balances()
    const refused = await execute(breaker, body(second))
    assert.equal(refused.status, 503, refused.text)
    assertCommonHeaders(refused, { status: '0x40', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(refused.body.type, 'urn:intent-gateway:problem:relayer-budget-spent')
    assert.deepEqual(await balances(), before, 'nothing sent')
  })

  it("counts account-mode fees in the client's gas budget: once spent, an unpaid account-mode execute is refused 429 0xF6 before any message is issued", async () => {
    const budgeted = await startSolanaPaidGateway(devnet, {
      payments: { ...devnet.payments, prices: {} },
      limits: {
        ...limitsConfig({}).value,
        maxRevertsPerSender: 0,
        maxRevertsPerClient: 0,
        targetMaxRevertShare: 0,
        gasBudgetPerClient: 1,
      },
    })
    cleanup.push(() => budgeted.close())
    const first = intent()
    const asked = await execute(budgeted, body(first))
    assert.equal(asked.status, 401, asked.text)
    const ran = await execute(budgeted, body(first, { signature: sign(asked.body.signing.message) }))
    assert.equal(ran.status, 200, ran.text)
    const second = intent()
    const before = await balances()
    const refused = await execute(budgeted, body(second))
    assert.equal(refused.status, 429, refused.text)
    assertCommonHeaders(refused, { status: '0xF6', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(refused.body.type, 'urn:intent-gateway:problem:gas-budget-spent')
    assert.equal(refused.body.signing, undefined, 'no message issued past the budget')
    assert.deepEqual(await balances(), before, 'nothing sent')
  })

  it("describes Solana account mode in /openapi.json as the gateway answers it: the body's `mode`, `signature`, and the 0xE5 `signing` fields", async () => {
    const res = await request(gateway.baseUrl, '/openapi.json')
    assert.equal(res.status, 200, res.text)
    const op = res.body.paths['/intents/execute'].post
    const properties = op.requestBody.content['application/json'].schema.properties
    assert.match(
      properties.mode.description,
      /Solana: `account` has the agent's own wallet sign the transaction and the relayer only pay its fee/,
    )
    assert.match(
      properties.mode.description,
      /401 0xE5 with `signing\.message` \(the base64 transaction message, fee payer the relayer\) and `signing\.lastValidBlockHeight`/,
    )
    const problem = op.responses['401'].content['application/problem+json'].schema
    const problemSchema = problem.$ref
      ? res.body.components.schemas[problem.$ref.replace('#/components/schemas/', '')]
      : problem
    const documented = /Solana account mode: `\{ ([^}]*) \}`/.exec(problemSchema.properties.signing.description)?.[1]
    assert.ok(documented, 'the signing description names the Solana account-mode fields')
    const fields = documented.split(', ').map((f) => f.split(/[: ]/)[0]!)
    // The fields a real 0xE5 answer carries, for an unpaid gateway (the paid one asks for the price first).
    const free = await startSolanaPaidGateway(devnet, { payments: { ...devnet.payments, prices: {} } })
    cleanup.push(() => free.close())
    const asked = await execute(free, body(intent()))
    assert.equal(asked.status, 401, asked.text)
    assert.deepEqual(Object.keys(asked.body.signing).sort(), [...fields].sort())
    assert.equal(asked.body.signing.scheme, 'ed25519')
    assert.equal(asked.body.signing.encoding, 'base64')
    assert.equal(asked.body.signing.feePayer, relayer)
  })
})
