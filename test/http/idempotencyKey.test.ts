// Idempotency-Key on POST /intents/execute (issue 42, item 3), through the whole gateway against a
// real anvil, the real executor and x402 paid by the unmodified @x402/fetch client: the same key
// and body answer the first answer (replayed), another body under a recorded key is 422 0xA8 and
// runs nothing, keys are per caller, only a request that claims the intent records its key (a
// refusal or a 402 offer does not), and one retry never runs or charges twice by the key, the
// intent hash or the payment.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { type Address, type Hex, toHex } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { evmRuntime } from '../../src/chains/evm/evmRuntime.ts'
import { limitsConfig } from '../../src/config/limitsConfig.ts'
import { readOAuthConfig } from '../../src/config/oauthConfig.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { bodyFingerprint } from '../../src/idempotency/bodyFingerprint.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import {
  type AuthorizationServer,
  asAccessToken,
  requestToken,
  startAuthorizationServer,
} from '../support/authorizationServer.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { rawRequest } from '../support/rawRequest.ts'
import {
  demoIntent,
  type HttpResult,
  post,
  request,
  signedIntent,
  startTestGateway,
  type TestGateway,
} from '../support/testGateway.ts'

const keyA = 'tenant-a-key-0123456789abcdef'
const keyB = 'tenant-b-key-0123456789abcdef'
const scopeA = `key:${hashApiKey(keyA).toString('hex').slice(0, 8)}`
const price = 10_000n
const audience = 'https://gateway.example'

describe('Idempotency-Key on POST /intents/execute', () => {
  let devnet: Devnet
  let gateway: TestGateway
  let clients: ReturnType<typeof createDevClients>
  let as: AuthorizationServer
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const balanceOf = (who: Address) =>
    clients.publicClient.readContract({
      address: devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  const nonceUsed = (nonce: string) =>
    clients.publicClient.readContract({
      address: devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'nonceUsed',
      args: [devnet.demo.sender, BigInt(nonce)],
    })
  const execute = (body: unknown, headers: Record<string, string> = {}, apiKey: string | null = keyA) =>
    post(gateway.baseUrl, '/intents/execute', body, {
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      ...headers,
    })
  /** Keyless, paid by @x402/fetch: it answers the 402 by itself, sending the request again with the same headers and its payment. */
  const paidExecute = async (body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> => {
    const res = await payingClient(devnet).fetch(`${gateway.baseUrl}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, headers: res.headers, body: JSON.parse(text), text }
  }
  /** Transactions the journal holds for an intent: one execution is one attempt. */
  const attemptsOf = async (res: HttpResult) =>
    (await gateway.journal.attempts(devnet.chain.chainId, res.headers.get('x-intent-hash') as Hex)).length
  const hashOf = async (body: Record<string, unknown>) => evmRuntime.hashIntent(parseIntent(body as never, evmRuntime))

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    as = await startAuthorizationServer()
    const oauth = readOAuthConfig(
      { OAUTH_ISSUER: as.url, OAUTH_AUDIENCE: audience },
      { production: false, publicUrl: undefined },
    ).value!
    gateway = await startTestGateway({
      chains: [devnet.chain],
      payments: devnet.payments,
      auth: { keyHashes: [hashApiKey(keyA), hashApiKey(keyB)], requireForValidate: false },
      oauth,
    })
  })
  after(async () => {
    await gateway?.close()
    await as?.close()
    await devnet?.stop()
  })

  it('refuses a malformed key with 400 naming the header, and runs nothing', async () => {
    const body = await signedIntent(devnet, { nonce: '9000' })
    const cases: Array<[string, RegExp]> = [
      ['k'.repeat(256), /at most 255/],
      ['""', /must not be empty/],
      ['a\tb', /printable/],
    ]
    for (const [key, message] of cases) {
      const res = await execute(body, { 'idempotency-key': key })
      assert.equal(res.status, 400, `${JSON.stringify(key)}: ${res.text}`)
      assert.equal(res.headers.get('x-erc1066-status'), '0xA0')
      assert.equal(res.body.errors[0].field, 'Idempotency-Key')
      assert.match(res.body.errors[0].message, message)
    }
    // Bytes fetch will not send: a non-ASCII key, and the header twice.
    const text = JSON.stringify(body)
    const head = (headers: string) =>
      `POST /intents/execute HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${keyA}\r\nContent-Type: application/json\r\n${headers}Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`
    const latin = await rawRequest(gateway.baseUrl, head('Idempotency-Key: caf\xe9\r\n'))
    assert.equal(latin.status, 400, latin.text)
    assert.equal(latin.body.errors[0].field, 'Idempotency-Key')
    assert.equal(await nonceUsed('9000'), false)
    assert.equal((await request(gateway.baseUrl, `/intents/${await hashOf(body)}`)).status, 404)
    // 255 printable characters, spaces included, are a key.
    const longest = await execute(body, { 'idempotency-key': `~ ${'k'.repeat(253)}` })
    assert.equal(longest.status, 200, longest.text)
  })

  it('answers the same key and body with the first answer, replayed, sending nothing again; key order and spacing are the same body', async () => {
    const body = await signedIntent(devnet, { nonce: '9001' })
    const first = await execute(body, { 'idempotency-key': 'order-9001' })
    assert.equal(first.status, 200, first.text)
    assert.equal(first.body.replayed, undefined)
    // The same body written another way: keys reversed, spaced (RFC 8785 makes them one text).
    const reordered = `{ ${Object.entries(body)
      .reverse()
      .map(([k, v]) => `${JSON.stringify(k)} : ${JSON.stringify(v)}`)
      .join(' ,\n ')} }`
    const again = await execute(reordered, { 'idempotency-key': 'order-9001' })
    assert.equal(again.status, 200, again.text)
    assert.equal(again.body.replayed, true)
    assert.equal(again.body.transactionHash, first.body.transactionHash)
    assert.equal(await attemptsOf(first), 1)
    // The IETF draft's quoted form names the same key.
    const quoted = await execute(body, { 'idempotency-key': '"order-9001"' })
    assert.equal(quoted.body.replayed, true)
  })

  it('refuses another body under a recorded key with 422 0xA8 (idempotency-key-reused), and runs nothing of it', async () => {
    const body = await signedIntent(devnet, { nonce: '9002' })
    assert.equal((await execute(body, { 'idempotency-key': 'order-9002' })).status, 200)
    const other = await signedIntent(devnet, { nonce: '9003' })
    const reused = await execute(other, { 'idempotency-key': 'order-9002' })
    assert.equal(reused.status, 422, reused.text)
    assert.equal(reused.headers.get('x-erc1066-status'), '0xA8')
    assert.equal(reused.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    assert.equal(reused.body.type, 'urn:intent-gateway:problem:idempotency-key-reused')
    assert.equal(reused.body.statusName, 'IDEMPOTENCY_KEY_REUSED')
    assert.equal(await nonceUsed('9003'), false)
    assert.equal((await request(gateway.baseUrl, `/intents/${reused.headers.get('x-intent-hash')}`)).status, 404)
    // Without the key, the other intent is a request of its own.
    assert.equal((await execute(other)).status, 200)
  })

  it("keeps each caller's keys apart: two API keys' and a keyless sender's \"1\" never meet", async () => {
    const [a, b, keyless] = await Promise.all(['9010', '9011', '9012'].map((nonce) => signedIntent(devnet, { nonce })))
    const byA = await execute(a, { 'idempotency-key': '1' }, keyA)
    const byB = await execute(b, { 'idempotency-key': '1' }, keyB)
    const bySender = await paidExecute(keyless, { 'idempotency-key': '1' })
    assert.deepEqual(
      [byA, byB, bySender].map((r) => [r.status, r.body.replayed]),
      [
        [200, undefined],
        [200, undefined],
        [200, undefined],
      ],
    )
    // Each caller's own key still holds its own body.
    assert.equal((await execute(b, { 'idempotency-key': '1' }, keyA)).status, 422)
    assert.equal((await execute(a, { 'idempotency-key': '1' }, keyB)).status, 422)
  })

  it("keeps two OAuth subjects' keys apart (oauth:<iss>#<sub>), and apart from API keys", async () => {
    const tokenOf = (sub: string) =>
      requestToken(as, { aud: audience, scope: 'intents:execute' }, (t) => asAccessToken(t, sub))
    const [one, two] = [await tokenOf('agent-1'), await tokenOf('agent-2')]
    const [x, y] = await Promise.all(['9015', '9016'].map((nonce) => signedIntent(devnet, { nonce })))
    assert.equal((await execute(x, { 'idempotency-key': 'oauth-1' }, one)).status, 200)
    const other = await execute(y, { 'idempotency-key': 'oauth-1' }, two)
    assert.equal(other.status, 200, other.text)
    assert.equal(other.body.replayed, undefined)
    assert.equal((await execute(y, { 'idempotency-key': 'oauth-1' }, one)).status, 422)
    assert.equal(
      (await gateway.journal.idempotencyKey(`key:oauth:${as.url}#agent-2`, 'oauth-1'))?.intentHash,
      other.headers.get('x-intent-hash'),
    )
    assert.equal(await gateway.journal.idempotencyKey(scopeA, 'oauth-1'), undefined)
  })

  it('records nothing for a refusal or a 402 offer: the fixed request and the paid retry run under the same key', async () => {
    // Unsigned: 401 0xE5; the signed intent is another body, and runs under the same key.
    const unsigned = demoIntent(devnet, { nonce: '9020' })
    const refused = await execute(unsigned, { 'idempotency-key': 'fix-9020' })
    assert.equal(refused.status, 401)
    assert.equal(await gateway.journal.idempotencyKey(scopeA, 'fix-9020'), undefined)
    const fixed = await execute(await signedIntent(devnet, { nonce: '9020' }), { 'idempotency-key': 'fix-9020' })
    assert.equal(fixed.status, 200, fixed.text)
    // Keyless: 402 with the offer, nothing recorded; the x402 client's paid retry with the key runs (not 402 again), charged once.
    const body = await signedIntent(devnet, { nonce: '9021' })
    const offer = await execute(body, { 'idempotency-key': 'pay-9021' }, null)
    assert.equal(offer.status, 402)
    assert.equal(
      await gateway.journal.idempotencyKey(`sender:${devnet.demo.sender.toLowerCase()}`, 'pay-9021'),
      undefined,
    )
    const payerBefore = await balanceOf(payer)
    const paid = await paidExecute(body, { 'idempotency-key': 'pay-9021' })
    assert.equal(paid.status, 200, paid.text)
    assert.equal(decodePaymentResponseHeader(paid.headers.get('payment-response')!).success, true)
    assert.equal(await balanceOf(payer), payerBefore - price)
    assert.ok(await gateway.journal.idempotencyKey(`sender:${devnet.demo.sender.toLowerCase()}`, 'pay-9021'))
  })

  it('waits while the first request still runs and has sent nothing, then answers 503 claim-held (never 202: nothing was sent), and nothing else under its key; runs once its claim is given back', async () => {
    // The wait is never longer than the receipt timeout: 1.5 s on this gateway, 10 s by default.
    const quick = await startTestGateway({
      chains: [devnet.chain],
      auth: { keyHashes: [hashApiKey(keyA)], requireForValidate: false },
      receiptTimeoutMs: 1_500,
    })
    const executeOn = (body: unknown, key: string) =>
      post(quick.baseUrl, '/intents/execute', body, { authorization: `Bearer ${keyA}`, 'idempotency-key': key })
    /** The first request, caught between its claim and its transaction (as while its payment settles, or its gateway died there). */
    const claimFirst = async (body: Record<string, unknown>, key: string) => {
      const claim = await quick.journal.claim({
        chainId: devnet.chain.chainId,
        intentHash: await hashOf(body),
        intent: parseIntent(body as never, evmRuntime),
        idempotencyKey: {
          scope: scopeA,
          key,
          fingerprint: bodyFingerprint(body),
          expiresAt: new Date(Date.now() + 60_000),
        },
      })
      assert.ok(claim.ok)
      return claim.record
    }
    try {
      const body = await signedIntent(devnet, { nonce: '9030' })
      const claim = await claimFirst(body, 'slow-9030')
      const running = await executeOn(body, 'slow-9030')
      assert.equal(running.status, 503, running.text)
      assert.equal(running.headers.get('x-erc1066-status'), '0x40')
      assert.equal(running.headers.get('retry-after'), '2')
      assert.equal(running.body.type, 'urn:intent-gateway:problem:claim-held')
      assert.equal(running.body.replayed, undefined)
      assert.equal(await nonceUsed('9030'), false)
      assert.equal((await executeOn(await signedIntent(devnet, { nonce: '9031' }), 'slow-9030')).status, 422)
      // The first request gives its claim back (refused before signing): its key goes with it, and a retry runs.
      await quick.journal.release(claim)
      assert.equal(await quick.journal.idempotencyKey(scopeA, 'slow-9030'), undefined)
      const retried = await executeOn(body, 'slow-9030')
      assert.equal(retried.status, 200, retried.text)
      assert.equal(retried.body.replayed, undefined)

      // Given back during the wait: the waiting request goes on and runs, under the key.
      const other = await signedIntent(devnet, { nonce: '9032' })
      const held = await claimFirst(other, 'slow-9032')
      const waiting = executeOn(other, 'slow-9032')
      await new Promise((r) => setTimeout(r, 300))
      await quick.journal.release(held)
      const ran = await waiting
      assert.equal(ran.status, 200, ran.text)
      assert.equal(ran.body.replayed, undefined)
      assert.equal(await nonceUsed('9032'), true)
      assert.ok(await quick.journal.idempotencyKey(scopeA, 'slow-9032'), 'recorded by the claim that ran')
    } finally {
      await quick.close()
    }
  })

  it('runs one of several concurrent requests with one key and body, and one of two with one key and two bodies', async () => {
    const body = await signedIntent(devnet, { nonce: '9040' })
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => execute(body, { 'idempotency-key': 'burst-9040' })),
    )
    assert.equal(
      answers.filter((a) => a.status === 200 && a.body.replayed === undefined).length,
      1,
      JSON.stringify(answers.map((a) => [a.status, a.body.replayed])),
    )
    assert.ok(answers.every((a) => [200, 202].includes(a.status)))
    assert.equal(await attemptsOf(answers[0]!), 1)

    const [x, y] = await Promise.all(['9041', '9042'].map((nonce) => signedIntent(devnet, { nonce })))
    const pair = await Promise.all([
      execute(x, { 'idempotency-key': 'race-9041' }),
      execute(y, { 'idempotency-key': 'race-9041' }),
    ])
    assert.deepEqual(pair.map((a) => a.status).sort(), [200, 422], JSON.stringify(pair.map((a) => a.body)))
    assert.deepEqual([await nonceUsed('9041'), await nonceUsed('9042')].filter(Boolean).length, 1)
  })

  it('never runs or charges twice by any of the three paths: same key with another payment, same payment with another key, same intent with another key', async () => {
    const { client, http } = payingClient(devnet)
    const offerFor = async (body: unknown) => {
      const unpaid = await execute(body, {}, null)
      assert.equal(unpaid.status, 402)
      return http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), unpaid.body)
    }
    const body = await signedIntent(devnet, { nonce: '9050' })
    const required = await offerFor(body)
    const [p1, p2] = [
      encodePaymentSignatureHeader(await client.createPaymentPayload(required)),
      encodePaymentSignatureHeader(await client.createPaymentPayload(required)),
    ]
    const payerBefore = await balanceOf(payer)
    const first = await execute(body, { 'idempotency-key': 'three-9050', 'payment-signature': p1 }, null)
    assert.equal(first.status, 200, first.text)
    // Same key, another payment: the first answer, the second payment untouched.
    const samekey = await execute(body, { 'idempotency-key': 'three-9050', 'payment-signature': p2 }, null)
    assert.equal(samekey.status, 200)
    assert.equal(samekey.body.replayed, true)
    assert.equal(samekey.headers.get('payment-response'), null)
    // Same payment, another key: the same intent is its one outcome; another intent cannot spend the payment again.
    const samepayment = await execute(body, { 'idempotency-key': 'three-9050-b', 'payment-signature': p1 }, null)
    assert.equal(samepayment.status, 200)
    assert.equal(samepayment.body.replayed, true)
    const otherBody = await signedIntent(devnet, { nonce: '9051' })
    const stolen = await execute(otherBody, { 'idempotency-key': 'three-9051', 'payment-signature': p1 }, null)
    assert.notEqual(stolen.status, 200, stolen.text)
    assert.equal(await nonceUsed('9051'), false)
    // Same intent, another key, no payment at all: replayed, never offered a price.
    const samebody = await execute(body, { 'idempotency-key': 'three-9050-c' }, null)
    assert.equal(samebody.status, 200)
    assert.equal(samebody.body.replayed, true)
    assert.equal(await balanceOf(payer), payerBefore - price, 'charged once')
    assert.equal(await attemptsOf(first), 1, 'executed once')
    // A key that answered by replay claimed nothing, so it recorded nothing.
    assert.equal(
      await gateway.journal.idempotencyKey(`sender:${devnet.demo.sender.toLowerCase()}`, 'three-9050-c'),
      undefined,
    )
  })

  it('records nothing for 429 (a spent gas budget) or 503 (the relayer spend budget)', async () => {
    // A gateway of its own each time, with its own relayer (anvil's account 9, free in the devnet), whose budget the first execute spends.
    const relayer = toHex(
      mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 9 }).getHdKey()
        .privateKey!,
    )
    const cases = [
      {
        limits: { gasBudgetPerClient: 1, relayerSpendBudget: 0 },
        status: 429,
        type: 'urn:intent-gateway:problem:gas-budget-spent',
        nonce: 9060,
      },
      {
        limits: { gasBudgetPerClient: 0, relayerSpendBudget: 1 },
        status: 503,
        type: 'urn:intent-gateway:problem:relayer-budget-spent',
        nonce: 9070,
      },
    ]
    for (const { limits, status, type, nonce } of cases) {
      const limited = await startTestGateway({
        chains: [devnet.chain],
        relayerPrivateKey: relayer,
        auth: { keyHashes: [hashApiKey(keyA)], requireForValidate: false },
        limits: { ...limitsConfig({}).value, ...limits },
      })
      try {
        const run = async (n: number, key: string) =>
          post(limited.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: String(n) }), {
            authorization: `Bearer ${keyA}`,
            'idempotency-key': key,
          })
        assert.equal((await run(nonce, `spend-${nonce}`)).status, 200)
        const refused = await run(nonce + 1, `budget-${nonce}`)
        assert.equal(refused.status, status, refused.text)
        assert.equal(refused.body.type, type)
        assert.equal(await limited.journal.idempotencyKey(scopeA, `budget-${nonce}`), undefined)
        assert.equal(await nonceUsed(String(nonce + 1)), false)
      } finally {
        await limited.close()
      }
    }
  })
})
