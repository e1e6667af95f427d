// POST /intents/validate against the real reference contracts on anvil: every seed row, produced
// by the validator itself, with the common headers and the body fields.
import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import { parseEther, toFunctionSelector } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { deposit, writePolicy } from '../support/policies.ts'
import {
  demoIntent,
  post,
  rpc,
  signedIntent,
  snapshot,
  startTestGateway,
  startWorld,
  type World,
} from '../support/testGateway.ts'

describe('POST /intents/validate', () => {
  let world: World
  let revert: () => Promise<void>
  const validate = (body: unknown, headers: Record<string, string> = { 'x-chain-id': '31337' }) =>
    post(world.gateway.baseUrl, '/intents/validate', body, headers)

  before(async () => {
    world = await startWorld()
  })
  after(async () => {
    await world?.stop()
  })
  beforeEach(async () => {
    revert = await snapshot(world.devnet.anvil.rpcUrl)
  })
  afterEach(async () => {
    await revert()
  })

  it('answers 200 SUCCESS (0x01) for an intent the policy allows', async () => {
    const res = await validate(demoIntent(world.devnet))
    assert.equal(res.status, 200)
    assertCommonHeaders(res, { status: '0x01' })
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.deepEqual(res.body, {
      status: '0x01',
      erc1066Status: '0x01',
      statusName: 'SUCCESS',
      description: 'Intent validated',
      intentHash: res.headers.get('x-intent-hash'),
      chainType: 'evm',
      chainId: 'eip155:31337',
    })
  })

  it('answers 403 DISALLOWED (0x10) for a selector, a target or a policy the sender may not use', async () => {
    const cases = [
      demoIntent(world.devnet, { data: toFunctionSelector('fail(string)') }),
      demoIntent(world.devnet, { target: world.devnet.contracts.registry }),
      demoIntent(world.devnet, { policyId: derivePolicyId(world.devnet.demo.sender, saltOf('no such policy')) }),
      demoIntent(world.devnet, { sender: privateKeyToAccount(devnetAccounts.other).address }),
      demoIntent(world.devnet, { data: '0x7cf5da' }), // shorter than a selector
    ]
    for (const body of cases) {
      const res = await validate(body)
      assert.equal(res.status, 403, JSON.stringify(body))
      assertCommonHeaders(res, { status: '0x10' })
      assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8')
      assert.equal(res.body.type, 'urn:intent-gateway:problem:disallowed')
      assert.equal(res.body.status, 403)
      assert.equal(res.body.erc1066Status, '0x10')
      assert.equal(res.body.statusName, 'DISALLOWED')
    }
  })

  it('answers 202 TOO_EARLY (0x20) before validAfter, from the intent or the policy', async () => {
    const future = String(Math.floor(Date.now() / 1000) + 3600)
    const res = await validate(demoIntent(world.devnet, { validAfter: future }))
    assert.equal(res.status, 202)
    assertCommonHeaders(res, { status: '0x20' })
    assert.equal(res.body.statusName, 'TOO_EARLY')
    // The intent's own bound: Retry-After says how long until it is valid.
    const retryAfter = Number(res.headers.get('retry-after'))
    assert.ok(retryAfter > 3590 && retryAfter <= 3600, `Retry-After ${retryAfter}`)

    const id = await writePolicy(world, 'later', { validAfter: BigInt(future) })
    const fromPolicy = await validate(demoIntent(world.devnet, { policyId: id }))
    assert.equal(fromPolicy.status, 202)
    assert.equal(
      fromPolicy.headers.get('retry-after'),
      null,
      "the policy's bound is not the intent's: no promise of when",
    )
  })

  it('answers 410 TOO_LATE (0x21) at or after validBefore, from the intent or the policy', async () => {
    const res = await validate(demoIntent(world.devnet, { validBefore: '1' }))
    assert.equal(res.status, 410)
    assertCommonHeaders(res, { status: '0x21' })
    assert.equal(res.body.statusName, 'TOO_LATE')

    const id = await writePolicy(world, 'expired', { validBefore: 1000n })
    assert.equal((await validate(demoIntent(world.devnet, { policyId: id }))).status, 410)
  })

  it('answers 402 INSUFFICIENT_FUNDS (0x54) above the per-transaction cap, the aggregate cap or the deposit', async () => {
    const overCap = await validate(demoIntent(world.devnet, { value: parseEther('5').toString() }))
    assert.equal(overCap.status, 402)
    assertCommonHeaders(overCap, { status: '0x54' })
    assert.equal(overCap.headers.get('x-payment-required'), 'true')
    const paymentRequired = JSON.parse(Buffer.from(overCap.headers.get('payment-required')!, 'base64').toString())
    assert.equal(paymentRequired.x402Version, 2)
    assert.equal(paymentRequired.resource.url, '/intents/validate')
    assert.deepEqual(paymentRequired.accepts, [])
    assert.deepEqual(overCap.body.paymentRequired, paymentRequired)
    // The per-transaction cap is the limit: no deposit helps, and the extension says so.
    assert.deepEqual(paymentRequired.extensions.deposit, {
      chainId: 'eip155:31337',
      sender: world.devnet.demo.sender,
      limit: 'policy',
      detail: `the policy allows at most ${parseEther('1')} wei per intent; no deposit raises that cap`,
      cap: parseEther('1').toString(),
    })

    const aggregate = await writePolicy(world, 'aggregate', {
      maxValuePerTx: parseEther('50'),
      maxAggregateValue: parseEther('3'),
    })
    const overAggregate = await validate(
      demoIntent(world.devnet, { policyId: aggregate, value: parseEther('4').toString() }),
    )
    assert.equal(overAggregate.status, 402)
    assert.equal(overAggregate.body.paymentRequired.extensions.deposit.limit, 'policy')
    assert.equal(overAggregate.body.paymentRequired.extensions.deposit.cap, parseEther('3').toString())
    assert.equal(
      (await validate(demoIntent(world.devnet, { policyId: aggregate, value: parseEther('2').toString() }))).status,
      200,
    )

    const rich = await writePolicy(world, 'rich', {
      maxValuePerTx: parseEther('1000'),
      maxAggregateValue: parseEther('1000'),
    })
    const beyondDeposit = demoIntent(world.devnet, { policyId: rich, value: parseEther('11').toString() })
    const short = await validate(beyondDeposit)
    assert.equal(short.status, 402)
    // The deposit is the limit: the shortfall in wei, and the function that funds it.
    assert.deepEqual(short.body.paymentRequired.extensions.deposit, {
      chainId: 'eip155:31337',
      sender: world.devnet.demo.sender,
      executor: world.devnet.contracts.executor,
      function: 'depositFor(address)',
      limit: 'deposit',
      detail: `the sender's deposit is ${parseEther('10')} wei, ${parseEther('1')} wei short of the intent's value`,
      amount: parseEther('1').toString(),
      deposit: parseEther('10').toString(),
    })
    assert.deepEqual(short.body.paymentRequired.accepts, [])
    await deposit(world, parseEther('1'))
    assert.equal((await validate(beyondDeposit)).status, 200)
  })

  it('answers 402, not a revert, for the largest value there is', async () => {
    const res = await validate(demoIntent(world.devnet, { value: (2n ** 256n - 1n).toString() }))
    assert.equal(res.status, 402)
  })

  it('answers 421 UNSUPPORTED_CHAIN (0xA2) when the policy does not allow this chain', async () => {
    const res = await validate(demoIntent(world.devnet, { policyId: world.devnet.demo.policies.mainnetOnly }))
    assert.equal(res.status, 421)
    assertCommonHeaders(res, { status: '0xA2' })
  })

  it('answers 421 (0xA2) for a chain the gateway does not serve, in either id form, before any node is asked', async () => {
    for (const header of ['8453', 'eip155:8453']) {
      const body = demoIntent(world.devnet)
      const res = await validate(body, { 'x-chain-id': header })
      assert.equal(res.status, 421)
      assertCommonHeaders(res, { status: '0xA2', chainId: 'eip155:8453' })
      assert.match(res.body.detail, /chain eip155:8453 is not served by this gateway \(configured: eip155:31337\)/)
      // The EVM hash of the intent, the same one a served chain would report.
      const served = await validate(body)
      assert.equal(res.headers.get('x-intent-hash'), served.headers.get('x-intent-hash'))
    }
    const sui = await validate(demoIntent(world.devnet), { 'x-chain-id': 'sui:mainnet' })
    assert.equal(sui.status, 421)
    assertCommonHeaders(sui, { status: '0xA2', chainId: 'sui:mainnet', chainType: 'sui' })
  })

  it('answers 409 NONCE_USED (0x22) once the nonce has been executed', async () => {
    const body = await signedIntent(world.devnet, { nonce: '77' })
    assert.equal((await post(world.gateway.baseUrl, '/intents/execute', body)).status, 200)
    const res = await validate(body)
    assert.equal(res.status, 409)
    assertCommonHeaders(res, { status: '0x22' })
  })

  it("with VALIDATE_CACHE, answers as without it: 200 until the execution's block, 409 (0x22) from it; 202 (0x20) too early, 200 once a later block is the latest", async () => {
    const gateway = await startTestGateway({ chains: [world.devnet.chain], validateCache: true })
    try {
      const check = (body: unknown) => post(gateway.baseUrl, '/intents/validate', body, { 'x-chain-id': '31337' })
      const body = await signedIntent(world.devnet, { nonce: '78' })
      for (let i = 0; i < 3; i++) assert.equal((await check(body)).status, 200)
      assert.equal((await post(gateway.baseUrl, '/intents/execute', body, { 'x-chain-id': '31337' })).status, 200)
      const used = await check(body)
      assert.equal(used.status, 409)
      assertCommonHeaders(used, { status: '0x22' })

      const latest = await createDevClients(
        world.devnet.anvil.rpcUrl,
        world.devnet.anvil.chainId,
      ).publicClient.getBlock()
      const early = demoIntent(world.devnet, { nonce: '79', validAfter: String(latest.timestamp + 100n) })
      for (let i = 0; i < 3; i++) assert.equal((await check(early)).status, 202)
      await rpc(world.devnet.anvil.rpcUrl, 'evm_increaseTime', [200])
      await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
      assert.equal((await check(early)).status, 200)
    } finally {
      await gateway.close()
    }
  })

  it('uses the only configured chain when X-Chain-Id is absent, and accepts the CAIP-2 form', async () => {
    const absent = await validate(demoIntent(world.devnet), {})
    assert.equal(absent.status, 200)
    assertCommonHeaders(absent, { status: '0x01' })
    const caip2 = await validate(demoIntent(world.devnet), { 'x-chain-id': 'eip155:31337' })
    assert.equal(caip2.status, 200)
    assert.equal(caip2.headers.get('x-intent-hash'), absent.headers.get('x-intent-hash'))
  })

  it('asks for X-Chain-Id when several chains are configured and none is the default', async () => {
    const other = { ...world.devnet.chain, chainId: 'eip155:1', reference: '1' }
    const gateway = await startTestGateway({ chains: [world.devnet.chain, other] })
    try {
      const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet))
      assert.equal(res.status, 400)
      assertCommonHeaders(res, { status: '0xA0', chainId: '', chainType: '' })
      assert.deepEqual(res.body.errors, [
        {
          field: 'X-Chain-Id',
          message:
            'is required when several chains are configured and DEFAULT_CHAIN_ID is not set (configured: eip155:31337, eip155:1)',
        },
      ])
    } finally {
      await gateway.close()
    }
  })

  it('answers 503 (0xF4) with Retry-After when the chain cannot be reached, and health says so', async () => {
    const dead = { ...world.devnet.chain, rpcUrls: ['http://127.0.0.1:9/'] }
    const gateway = await startTestGateway({ chains: [dead], rpcTimeoutMs: 1000 })
    try {
      const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet))
      assert.equal(res.status, 503)
      assertCommonHeaders(res, { status: '0xF4' })
      assert.equal(res.headers.get('retry-after'), '2')
      assert.equal(res.body.title, 'Chain eip155:31337 is unreachable or did not answer in time')

      const health = (await fetch(`${gateway.baseUrl}/health`).then((r) => r.json())) as any
      assert.equal(health.status, 'ok')
      assert.equal(health.chains[0].reachable, false)
      const ready = await fetch(`${gateway.baseUrl}/health/ready`)
      assert.equal(ready.status, 503)
      assert.equal(ready.headers.get('x-erc1066-status'), '0xF4')
    } finally {
      await gateway.close()
    }
  })

  it('marks a chain whose validator has no code unavailable at start-up: 503 (0xF4) saying why, health too', async () => {
    const notAContract = privateKeyToAccount(devnetAccounts.other).address
    const wrong = { ...world.devnet.chain, validator: notAContract }
    const gateway = await startTestGateway({ chains: [wrong] })
    try {
      const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet))
      assert.equal(res.status, 503)
      assertCommonHeaders(res, { status: '0xF4' })
      assert.equal(res.body.detail, `no contract code on eip155:31337 for: validator ${notAContract}`)
      assert.equal(res.headers.get('retry-after'), '60')
      const health = (await fetch(`${gateway.baseUrl}/health`).then((r) => r.json())) as any
      assert.equal(health.chains[0].available, false)
      assert.equal(
        health.chains[0].unavailableReason,
        `no contract code on eip155:31337 for: validator ${notAContract}`,
      )
    } finally {
      await gateway.close()
    }
  })

  it("refuses to start in production when a chain's contracts are missing", async () => {
    const wrong = { ...world.devnet.chain, registry: privateKeyToAccount(devnetAccounts.other).address }
    await assert.rejects(startTestGateway({ chains: [wrong], production: true }), (err: Error) => {
      assert.match(
        err.message,
        /eip155:31337: no contract code on eip155:31337 for: registry 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC \(check the addresses and the chain\)/,
      )
      return true
    })
  })

  it('answers 502 (0xF0) naming the call when a contract misbehaves after start-up', async () => {
    // The registry has code but no canExecute: the call reverts without data.
    const wrong = { ...world.devnet.chain, validator: world.devnet.contracts.registry }
    const gateway = await startTestGateway({ chains: [wrong] })
    try {
      const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet))
      assert.equal(res.status, 502)
      assertCommonHeaders(res, { status: '0xF0' })
      assert.match(res.body.title, /The chain rejected the canExecute call to the validator at 0x/)
    } finally {
      await gateway.close()
    }
  })
})

describe('secrets', () => {
  it('never puts RPC credentials into a response or a log line', async () => {
    const devnet = {
      chainId: 'eip155:31337',
      chainType: 'evm' as const,
      reference: '31337',
      executor: '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const,
      validator: '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const,
      registry: '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const,
    }
    const secrets = ['hunter2', 'SuperSecretApiKey0123456789', 'querysecret']
    const gateway = await startTestGateway({
      chains: [
        { ...devnet, rpcUrls: [`http://admin:${secrets[0]}@127.0.0.1:9/v1/${secrets[1]}?apikey=${secrets[2]}`] },
      ],
      rpcTimeoutMs: 500,
    })
    try {
      const body = {
        sender: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        target: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        data: '0x',
        value: '0',
        nonce: '0',
        policyId: `0x${'00'.repeat(32)}`,
      }
      const responses = [
        await post(gateway.baseUrl, '/intents/validate', body),
        await post(gateway.baseUrl, '/intents/execute', body),
        await post(gateway.baseUrl, '/health', {}),
      ]
      const health = await fetch(`${gateway.baseUrl}/health`).then((r) => r.text())
      assert.equal(responses[0]!.status, 503)
      assert.equal(responses[1]!.status, 503)
      const logs = gateway.logs.join('\n')
      assert.ok(logs.includes('127.0.0.1:9'), 'the endpoint is logged, redacted')
      for (const secret of secrets) {
        for (const r of responses)
          assert.ok(!r.text.includes(secret) && ![...r.headers.values()].some((v) => v.includes(secret)))
        assert.ok(!health.includes(secret))
        assert.ok(!logs.includes(secret), `${secret} leaked into the logs`)
      }
    } finally {
      await gateway.close()
    }
  })
})
