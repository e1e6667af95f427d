// The client library against a real gateway on anvil with the reference contracts: the hash and
// typed data it computes are the gateway's, and every answer comes back as a value with its action.
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { expectedSigning } from '../../test/support/expectedSigning.ts'
import {
  demoIntent,
  post,
  rpc,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../../test/support/testGateway.ts'
import {
  createGatewayClient,
  evmTypedData,
  GatewayClientError,
  hashIntent,
  type IntentInput,
  signIntent,
  toIntentBody,
} from '../src/index.ts'

const sender = privateKeyToAccount(devnetAccounts.sender)
const stranger = privateKeyToAccount(devnetAccounts.other)

describe('client library against a gateway on anvil', () => {
  let world: World
  let keyed: TestGateway
  const apiKey = 'client-test-key-0123456789'
  const intent = (overrides: Record<string, unknown> = {}) =>
    demoIntent(world.devnet, overrides) as unknown as IntentInput
  const url = () => world.gateway.baseUrl

  before(async () => {
    world = await startWorld()
    keyed = await startTestGateway({
      chains: [world.devnet.chain],
      auth: { keyHashes: [hashApiKey(apiKey)], requireForValidate: false },
    })
  })
  after(async () => {
    await keyed?.close()
    await world?.stop()
  })

  it('computes the X-Intent-Hash the gateway answers, for plain and valued intents, offline and through the chain description', async () => {
    const client = createGatewayClient({ url: url() })
    for (const overrides of [
      { nonce: '7' },
      { nonce: '8', value: '12345', validAfter: '1', validBefore: '99999999999', data: '0x' },
    ]) {
      const body = intent(overrides)
      const answered = await post(url(), '/intents/validate', body, { 'x-chain-id': '31337' })
      const expected = answered.headers.get('x-intent-hash')
      assert.match(expected ?? '', /^0x[0-9a-f]{64}$/)
      assert.equal(hashIntent(body), expected)
      assert.equal(await client.hashIntent(body), expected)
      const result = await client.validate(body)
      assert.equal(result.intentHash, expected)
    }
  })

  it('builds the same EIP-712 typed data as a 401 (0xE5) body, and signs exactly what the gateway asks', async () => {
    const client = createGatewayClient({ url: url() })
    const body = intent({ nonce: '20' })
    const refused = await client.execute(body)
    assert.equal(refused.httpStatus, 401)
    assert.equal(refused.status, '0xE5')
    assert.equal(refused.action, 'sign')
    assert.equal(refused.ok, false)
    assert.deepEqual(refused.signing, expectedSigning(world.devnet.contracts.executor, { ...body }))

    const chain = await client.getChain('31337')
    const typed = evmTypedData(toIntentBody(body), chain)
    const { EIP712Domain: _, ...types } = (refused.signing as { types: Record<string, unknown> }).types
    assert.deepEqual(typed.types, types)
    assert.deepEqual(typed.domain, (refused.signing as { domain: unknown }).domain)
    assert.deepEqual(
      Object.fromEntries(Object.entries(typed.message).map(([k, v]) => [k, v.toString()])),
      (refused.signing as { message: unknown }).message,
    )
    // ECDSA signatures are deterministic (RFC 6979): the same typed data gives the same bytes.
    const fromGateway = await sender.signTypedData({
      ...(refused.signing as Record<string, unknown>),
      types,
      message: typed.message,
    } as never)
    assert.equal(await signIntent({ intent: body, chain, signer: sender }), fromGateway)
  })

  it('executes a signed intent (done, 200 0x11, a transaction), then answers the same intent with its outcome, replayed (done)', async () => {
    const client = createGatewayClient({ url: url(), account: sender, chainId: 'eip155:31337' })
    const body = intent({ nonce: '30' })
    const done = await client.execute(body)
    assert.equal(done.httpStatus, 200, JSON.stringify(done.body))
    assert.equal(done.status, '0x11')
    assert.equal(done.statusName, 'EXECUTED')
    assert.equal(done.action, 'done')
    assert.equal(done.ok, true)
    assert.equal(done.intentHash, hashIntent(body))
    assert.equal(done.chainId, 'eip155:31337')
    assert.equal(done.chainType, 'evm')
    assert.match(done.transactionHash ?? '', /^0x[0-9a-f]{64}$/)
    assert.equal(typeof done.blockNumber, 'bigint')
    const receipt = await world.clients.publicClient.getTransactionReceipt({ hash: done.transactionHash! })
    assert.equal(receipt.status, 'success')

    const again = await client.execute(body)
    assert.equal(again.httpStatus, 200)
    assert.equal(again.status, '0x11')
    assert.equal(again.action, 'done')
    assert.equal(again.replayed, true)
    assert.equal(again.transactionHash, done.transactionHash)
    assert.equal(done.replayed, false)

    const state = await client.getIntent(done.intentHash!)
    assert.equal(state.action, 'done')
    assert.equal(state.status, '0x11')
    assert.equal(state.transactionHash, done.transactionHash)
    const progress: number[] = []
    const waited = await client.waitForIntent(done.intentHash!, { onProgress: ({ attempt }) => progress.push(attempt) })
    assert.equal(waited.status, '0x11')
    assert.deepEqual(progress, [1])
  })

  it("a stranger's signature is refused with 401 0xE4 and the typed data to sign (action sign); nothing runs", async () => {
    const client = createGatewayClient({ url: url(), account: stranger })
    const result = await client.execute(intent({ nonce: '31' }))
    assert.equal(result.httpStatus, 401)
    assert.equal(result.status, '0xE4')
    assert.equal(result.action, 'sign')
    assert.equal(result.transactionHash, undefined)
  })

  it('polls a 202 (0xF3) through its Location until the receipt, reporting progress (stream: false; the stream: waitForIntent.test.ts)', async () => {
    const slow = await startTestGateway({ chains: [world.devnet.chain], receiptTimeoutMs: 200 })
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const client = createGatewayClient({ url: slow.baseUrl, account: sender })
      const submitted = await client.execute(intent({ nonce: '40' }))
      assert.equal(submitted.httpStatus, 202, JSON.stringify(submitted.body))
      assert.equal(submitted.status, '0xF3')
      assert.equal(submitted.action, 'retry')
      assert.equal(submitted.location, `${slow.baseUrl}/intents/${submitted.intentHash}`)
      const seen: string[] = []
      const settled = await client.waitForIntent(submitted, {
        stream: false,
        intervalMs: 50,
        timeoutMs: 20_000,
        onProgress: ({ result }) => {
          seen.push(result.status)
          if (seen.length === 2) void rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
        },
      })
      assert.equal(settled.status, '0x11', JSON.stringify(settled.body))
      assert.equal(settled.action, 'done')
      assert.deepEqual(seen.slice(0, 2), ['0xF3', '0xF3'])
      assert.equal(seen.at(-1), '0x11')
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await slow.close()
    }
  })

  it('asks for an answer once sent (respondAsync: Prefer respond-async): 202 0xF3, retry, then waitForIntent sees it mined', async () => {
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const client = createGatewayClient({ url: url(), account: sender })
      const submitted = await client.execute(intent({ nonce: '45' }), { respondAsync: true })
      assert.equal(submitted.httpStatus, 202, JSON.stringify(submitted.body))
      assert.equal(submitted.status, '0xF3')
      assert.equal(submitted.action, 'retry')
      assert.equal(submitted.location, `${url()}/intents/${submitted.intentHash}`)
      await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
      const settled = await client.waitForIntent(submitted, { stream: false, intervalMs: 50, timeoutMs: 20_000 })
      assert.equal(settled.status, '0x11', JSON.stringify(settled.body))
      assert.equal(settled.action, 'done')
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
    }
  })

  it('gives up waiting after its timeout with the last answer, still retry', async () => {
    const slow = await startTestGateway({ chains: [world.devnet.chain], receiptTimeoutMs: 100 })
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const client = createGatewayClient({ url: slow.baseUrl, account: sender })
      const submitted = await client.execute(intent({ nonce: '41' }))
      assert.equal(submitted.status, '0xF3')
      const started = Date.now()
      const last = await client.waitForIntent(submitted, { intervalMs: 50, timeoutMs: 300 })
      assert.ok(Date.now() - started < 2_000)
      assert.equal(last.status, '0xF3')
      assert.equal(last.action, 'retry')
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await slow.close()
    }
  })

  it('answers a value above the policy cap as fund (402 0x54) saying the cap is the limit, never as a payment', async () => {
    const client = createGatewayClient({
      url: url(),
      account: sender,
      payment: { signer: sender, spendControls: false },
    })
    const result = await client.validate(intent({ nonce: '50', value: parseEther('2').toString() }))
    assert.equal(result.httpStatus, 402)
    assert.equal(result.status, '0x54')
    assert.equal(result.action, 'fund')
    assert.equal(result.payment, undefined)
    assert.deepEqual(result.funding, {
      chainId: 'eip155:31337',
      sender: world.devnet.demo.sender,
      limit: 'policy',
      detail: `the policy allows at most ${parseEther('1')} wei per intent; no deposit raises that cap`,
      cap: parseEther('1').toString(),
    })
    assert.deepEqual((result.paymentRequired as { accepts: unknown[] }).accepts, [])
  })

  it("answers other refusals as deny with the gateway's field errors, and rejects a malformed intent before sending", async () => {
    const client = createGatewayClient({ url: url() })
    const disallowed = await client.validate(intent({ nonce: '60', target: world.devnet.contracts.registry }))
    assert.equal(disallowed.httpStatus, 403)
    assert.equal(disallowed.status, '0x10')
    assert.equal(disallowed.action, 'deny')
    const bad = await client.validate(intent({ nonce: '61', sender: '0x1234' }))
    assert.equal(bad.httpStatus, 400)
    assert.equal(bad.status, '0xA0')
    assert.equal(bad.action, 'deny')
    assert.equal(bad.errors?.[0]?.field, 'sender')
    const unserved = await client.validate(intent({ nonce: '62' }), { chainId: '8453' })
    assert.equal(unserved.httpStatus, 421)
    assert.equal(unserved.status, '0xA2')
    const unservedSigned = await createGatewayClient({ url: url(), account: sender }).execute(intent({ nonce: '62' }), {
      chainId: '8453',
    })
    assert.equal(unservedSigned.httpStatus, 421)
    assert.equal(unservedSigned.action, 'deny')
    for (const [field, value] of [
      ['nonce', '-1'],
      ['value', 'abc'],
      ['policyId', 'zz'],
      ['nonce', 1.5],
    ] as const) {
      await assert.rejects(
        client.validate(intent({ [field]: value })),
        (err: unknown) =>
          err instanceof GatewayClientError &&
          err.code === 'INVALID_INTENT' &&
          err.field === field &&
          err.message.includes(field),
      )
    }
    await assert.rejects(
      client.validate({ ...intent(), validBfore: '5' } as never),
      (err: unknown) => err instanceof GatewayClientError && err.field === 'validBfore',
    )
  })

  it("sends the API key as a bearer token; without it the gateway's 401 0xE4 is a deny (no typed data)", async () => {
    const keyless = await createGatewayClient({ url: keyed.baseUrl, account: sender }).execute(intent({ nonce: '70' }))
    assert.equal(keyless.httpStatus, 401)
    assert.equal(keyless.status, '0xE4')
    assert.equal(keyless.action, 'deny')
    const withKey = await createGatewayClient({ url: keyed.baseUrl, apiKey, account: sender }).execute(
      intent({ nonce: '70' }),
    )
    assert.equal(withKey.status, '0x11', JSON.stringify(withKey.body))
  })

  it('lists chains and status codes', async () => {
    const client = createGatewayClient({ url: url() })
    const list = await client.listChains()
    assert.equal(list.defaultChainId, 'eip155:31337')
    assert.equal(list.chains[0]?.contracts.executor, world.devnet.contracts.executor)
    const codes = await client.statusCodes()
    assert.equal(codes.length, 256)
    assert.deepEqual(
      codes.find((c) => c.code === '0x54'),
      {
        code: '0x54',
        statusName: 'INSUFFICIENT_FUNDS',
        description: codes.find((c) => c.code === '0x54')!.description,
        httpStatus: 402,
        reserved: false,
      },
    )
  })

  it('throws transport faults as GatewayClientError with the cause: unreachable, timeout, not a gateway', async () => {
    const port = await closedPort()
    const down = createGatewayClient({ url: `http://127.0.0.1:${port}` })
    await assert.rejects(
      down.validate(intent()),
      (err: unknown) =>
        err instanceof GatewayClientError &&
        err.code === 'UNREACHABLE' &&
        err.cause instanceof Error &&
        /cannot be reached/.test(err.message),
    )
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const slow = createGatewayClient({
        url: `http://127.0.0.1:${(silent.address() as { port: number }).port}`,
        timeoutMs: 200,
      })
      await assert.rejects(
        slow.validate(intent()),
        (err: unknown) => err instanceof GatewayClientError && err.code === 'TIMEOUT',
      )
    } finally {
      silent.close()
    }
    const notGateway = createGatewayClient({ url: world.devnet.anvil.rpcUrl })
    await assert.rejects(
      notGateway.validate(intent()),
      (err: unknown) => err instanceof GatewayClientError && err.code === 'BAD_RESPONSE',
    )
  })
})

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}
