// Solana end to end: the HTTP app, the Solana adapter's real @solana/kit client over HTTP, the
// LiteSVM JSON-RPC front in its own process, and the committed program. Every validate code with
// its headers and body, the intent hash equal to the program's own, bad input named, RPC and
// program failures answered like the EVM side.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import {
  type Address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getAddressEncoder,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getProgramDerivedAddress,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { solanaDemoCommands } from '../../src/chains/solana/devnet/solanaDemoCommands.ts'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import {
  type SolanaGateway,
  solanaAdapterFor,
  startSolanaDevnet,
  startSolanaGateway,
} from '../support/solanaGateway.ts'
import { type HttpResult, post, request } from '../support/testGateway.ts'

describe('Solana through the gateway', () => {
  let devnet: SolanaDevnet
  let gateway: SolanaGateway

  before(async () => {
    devnet = await startSolanaDevnet()
    const adapter = solanaAdapterFor(devnet)
    assert.deepEqual(await adapter.preflight(), { ok: true })
    gateway = await startSolanaGateway([adapter])
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  const body = (overrides: Record<string, unknown> = {}) => ({
    sender: devnet.demo.sender,
    target: devnet.demo.target,
    data: `${devnet.demo.allowedPrefix}40420f0000000000`,
    value: '1000',
    nonce: '0',
    validAfter: '0',
    validBefore: '0',
    policyId: devnet.demo.policies.narrow,
    ...overrides,
  })
  const validate = (b: unknown, chainId = devnet.chainId) =>
    post(gateway.baseUrl, '/intents/validate', b, { 'x-chain-id': chainId })

  function assertOutcome(res: HttpResult, httpStatus: number, code: string, statusName?: string) {
    assert.equal(res.status, httpStatus, res.text)
    assertCommonHeaders(res, { status: code, chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(res.body.erc1066Status, code)
    if (statusName) assert.equal(res.body.statusName, statusName)
    assert.equal(res.body.chainId, devnet.chainId)
    assert.equal(res.body.chainType, 'solana')
    assert.equal(res.body.intentHash, res.headers.get('x-intent-hash'))
  }

  /** The program's own hash: simulate its validate instruction and read the log line. */
  async function programHash(b: ReturnType<typeof body>): Promise<string> {
    const intent: Intent = {
      ...b,
      data: b.data as `0x${string}`,
      value: BigInt(b.value),
      nonce: BigInt(b.nonce),
      validAfter: BigInt(b.validAfter),
      validBefore: BigInt(b.validBefore),
      policyId: b.policyId as `0x${string}`,
    }
    const ix = await devnet.program.validate(intent, devnet.config)
    const tx = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(devnet.demo.sender, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash('11111111111111111111111111111111'), lastValidBlockHeight: 0n },
          m,
        ),
      (m) => appendTransactionMessageInstruction(ix, m),
    )
    const { value } = await devnet.rpc
      .simulateTransaction(getBase64EncodedWireTransaction(compileTransaction(tx)), {
        encoding: 'base64',
        sigVerify: false,
        replaceRecentBlockhash: true,
      })
      .send()
    const line = value.logs?.find((l) => l.startsWith('Program log: intent hash '))
    assert.ok(line, JSON.stringify(value.logs))
    return line.slice('Program log: intent hash '.length)
  }

  it("answers 200 SUCCESS (0x01) for an allowed intent, with the program's own intent hash", async () => {
    const b = body()
    const res = await validate(b)
    assertOutcome(res, 200, '0x01', 'SUCCESS')
    assert.equal(res.headers.get('x-intent-hash'), await programHash(b))
    // Another intent, another hash, still the program's.
    const b2 = body({ nonce: '18446744073709551615', value: '0', validAfter: '5', data: '0x02000000' })
    const res2 = await validate(b2)
    assertOutcome(res2, 200, '0x01')
    assert.equal(res2.headers.get('x-intent-hash'), await programHash(b2))
    assert.notEqual(res2.headers.get('x-intent-hash'), res.headers.get('x-intent-hash'))
  })

  it('answers 403 DISALLOWED (0x10) for a target or data the policy does not allow, or no policy', async () => {
    assertOutcome(await validate(body({ target: devnet.demo.otherTarget })), 403, '0x10', 'DISALLOWED')
    assertOutcome(await validate(body({ data: '0x03000000' })), 403, '0x10')
    assertOutcome(await validate(body({ policyId: `0x${'ab'.repeat(32)}` })), 403, '0x10')
  })

  it('answers 402 INSUFFICIENT_FUNDS (0x54) above the caps or the vault, with X-Payment-Required', async () => {
    const res = await validate(body({ value: '200000000' }))
    assertOutcome(res, 402, '0x54', 'INSUFFICIENT_FUNDS')
    assert.equal(res.headers.get('x-payment-required'), 'true')
    // The open policy allows 1 SOL a time; a fresh sender with a policy but no vault cannot pay 1 lamport.
    assertOutcome(
      await validate(
        body({ policyId: devnet.demo.policies.open, target: devnet.demo.otherTarget, value: '1000000000' }),
      ),
      200,
      '0x01',
    )
    const other = devnet.accounts.other
    await devnet.send(
      [
        await devnet.program.setPolicy(other, {
          policyId: devnet.demo.policies.open,
          maxValuePerTx: 10n,
          maxAggregateValue: 10n,
        }),
      ],
      other,
    )
    assertOutcome(
      await validate(body({ sender: other.address, policyId: devnet.demo.policies.open, value: '1' })),
      402,
      '0x54',
    )
  })

  it("answers 410 TOO_LATE (0x21) and 202 TOO_EARLY (0x20) from the intent or the policy, following the chain's clock", async () => {
    assertOutcome(await validate(body({ validBefore: '1' })), 410, '0x21', 'TOO_LATE')
    assertOutcome(await validate(body({ policyId: devnet.demo.policies.expired })), 410, '0x21')
    assertOutcome(await validate(body({ validAfter: '4102444800' })), 202, '0x20', 'TOO_EARLY')
    assertOutcome(await validate(body({ policyId: devnet.demo.policies.future })), 202, '0x20')
    const soon = Math.floor(Date.now() / 1000) + 3600
    assertOutcome(await validate(body({ validAfter: String(soon) })), 202, '0x20')
    await devnet.control('litesvm_setClock', [soon + 1])
    try {
      assertOutcome(await validate(body({ validAfter: String(soon) })), 200, '0x01')
    } finally {
      await devnet.control('litesvm_setClock', [Math.floor(Date.now() / 1000)])
    }
  })

  it('answers 409 NONCE_USED (0x22) once the nonce record exists', async () => {
    const nonce = new Uint8Array(8)
    new DataView(nonce.buffer).setBigUint64(0, 42n, true)
    const [address, bump] = await getProgramDerivedAddress({
      programAddress: devnet.programId,
      seeds: ['nonce', getAddressEncoder().encode(devnet.demo.sender), nonce],
    })
    assertOutcome(await validate(body({ nonce: '42' })), 200, '0x01')
    await devnet.control('litesvm_setAccount', [
      address,
      {
        lamports: 1_000_000,
        owner: devnet.programId,
        data: Buffer.from(devnet.program.nonceRecord(bump, new Uint8Array(32), 1n)).toString('base64'),
      },
    ])
    assertOutcome(await validate(body({ nonce: '42' })), 409, '0x22', 'NONCE_USED')
  })

  it('answers 421 UNSUPPORTED_CHAIN (0xA2) for a Solana chain it does not serve', async () => {
    const res = await validate(body(), 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')
    assert.equal(res.status, 421, res.text)
    assertCommonHeaders(res, {
      status: '0xA2',
      chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      chainType: 'solana',
    })
  })

  it('answers 501 UNSUPPORTED_ACTION (0xA1) to execute without a relayer key', async () => {
    const res = await post(gateway.baseUrl, '/intents/execute', body(), { 'x-chain-id': devnet.chainId })
    assert.equal(res.status, 501, res.text)
    assertCommonHeaders(res, { status: '0xA1', chainId: devnet.chainId, chainType: 'solana' })
  })

  describe('bad input: 400 naming the field', () => {
    async function assertBad(overrides: Record<string, unknown>, field: string, message: RegExp) {
      const res = await validate(body(overrides))
      assert.equal(res.status, 400, res.text)
      assertCommonHeaders(res, { status: '0xA0', chainId: devnet.chainId, chainType: 'solana' })
      assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8')
      assert.deepEqual(
        res.body.errors.map((e: { field: string }) => e.field),
        [field],
        res.text,
      )
      assert.match(res.body.errors[0].message, message)
    }
    it('refuses a sender or target that is not base58', async () => {
      await assertBad({ sender: `0OIl${devnet.demo.sender.slice(4)}` }, 'sender', /base58/)
      await assertBad({ target: `0x${'ab'.repeat(20)}` }, 'target', /base58/)
    })
    it('refuses a key that is not 32 bytes', async () => {
      await assertBad(
        { target: getBase58Decoder().decode(new Uint8Array(31).fill(7)) },
        'target',
        /32 bytes \(it decodes to 31\)/,
      )
      await assertBad({ sender: devnet.demo.sender + devnet.demo.sender }, 'sender', /32 bytes/)
    })
    it('refuses numbers outside u64 and i64', async () => {
      await assertBad({ value: '18446744073709551616' }, 'value', /u64/)
      await assertBad({ nonce: '18446744073709551616' }, 'nonce', /u64/)
      await assertBad({ validAfter: '9223372036854775808' }, 'validAfter', /i64/)
      await assertBad({ validBefore: '99999999999999999999' }, 'validBefore', /i64/)
    })
  })

  it('lists the chain in /chains and reports its slot in /health', async () => {
    const chains = await request(gateway.baseUrl, '/chains')
    const chain = chains.body.chains.find((c: { chainId: string }) => c.chainId === devnet.chainId)
    assert.equal(chain.chainType, 'solana')
    assert.deepEqual(chain.contracts, {
      validator: devnet.programId,
      executor: devnet.programId,
      registry: devnet.config,
    })
    assert.deepEqual(chain.nativeCurrency, { name: 'Solana', symbol: 'SOL', decimals: 9 })
    const health = await request(gateway.baseUrl, '/health')
    assert.equal(health.status, 200, health.text)
    assert.match(health.text, new RegExp(devnet.chainId))
    const h = await gateway.adapters[0]!.getHealth()
    assert.equal(h.reachable, true)
    assert.match(h.blockNumber ?? '', /^\d+$/)
  })

  it('prints a demo command for every status, each answering it', async () => {
    const text = solanaDemoCommands({ baseUrl: gateway.baseUrl, devnet })
    // The validate commands; the execute ones need a relayer (test/solana/solanaExecuteGateway.test.ts).
    const commands = [
      ...text.matchAll(
        /# (\d{3}) [^\n]*\n\s*curl -i -X POST (\S+\/intents\/validate) .*?-H 'X-Chain-Id: (\S+)' -d '([^']+)'/g,
      ),
    ]
    assert.deepEqual(
      commands.map((c) => c[1]),
      ['200', '403', '402', '410', '202', '421'],
    )
    for (const [, httpStatus, url, chainId, json] of commands) {
      const res = await post(url!.replace('/intents/validate', ''), '/intents/validate', json, {
        'x-chain-id': chainId!,
      })
      assert.equal(String(res.status), httpStatus, `${httpStatus}: ${res.text}`)
    }
  })

  describe('failures answered like the EVM side', () => {
    it('preflight names a missing program or a config account of another deployment', async () => {
      const stranger = devnet.demo.otherTarget
      const result = await solanaAdapterFor(devnet, { programId: stranger, config: stranger }).preflight()
      assert.equal(result.ok, false)
      assert.ok(
        !result.ok &&
          'missing' in result &&
          result.missing.some((m) => m.startsWith(`validator ${stranger}`)) &&
          result.missing.some((m) => m.startsWith(`registry ${stranger}`)),
        JSON.stringify(result),
      )
    })

    it('answers 503 (0xF4) with Retry-After when the RPC endpoint is unreachable or too slow', async () => {
      const silent = createServer(() => {})
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()))
      const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
      const closed = createServer()
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()))
      const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
      await new Promise<void>((r) => closed.close(() => r()))
      const down = await startSolanaGateway([
        solanaAdapterFor(devnet, { rpcUrls: [closedUrl, silentUrl], rpcTimeoutMs: 300 }),
      ])
      try {
        const res = await post(down.baseUrl, '/intents/validate', body(), { 'x-chain-id': devnet.chainId })
        assert.equal(res.status, 503, res.text)
        assertCommonHeaders(res, { status: '0xF4', chainId: devnet.chainId, chainType: 'solana' })
        assert.ok(Number(res.headers.get('retry-after')) > 0)
        assert.ok(!res.text.includes(closedUrl) && !res.text.includes(silentUrl), 'no RPC URL in the body')
        const health = await down.adapters[0]!.getHealth()
        assert.equal(health.reachable, false)
      } finally {
        await down.close()
        silent.closeAllConnections()
        silent.close()
      }
    })

    it('simulates with the configured fee payer, so a sender without SOL still gets its status', async () => {
      const penniless = devnet.demo.otherTarget // never funded
      assertOutcome(await validate(body({ sender: penniless })), 403, '0x10')
      const noPayer = await startSolanaGateway([solanaAdapterFor(devnet, { simulationFeePayer: null })])
      try {
        const funded = await post(noPayer.baseUrl, '/intents/validate', body(), { 'x-chain-id': devnet.chainId })
        assert.equal(funded.status, 200, funded.text)
        const res = await post(noPayer.baseUrl, '/intents/validate', body({ sender: penniless }), {
          'x-chain-id': devnet.chainId,
        })
        assert.equal(res.status, 502, res.text)
        assertCommonHeaders(res, { status: '0xF0', chainId: devnet.chainId, chainType: 'solana' })
        assert.match(res.text, /the sender holds no SOL to name as the simulation fee payer/)
      } finally {
        await noPayer.close()
      }
    })

    it('answers 502 (0xF0) naming the program error when the deployment does not match', async () => {
      const elsewhere = await devnet.program.configAddress(new Uint8Array(32).fill(1))
      const wrong = await startSolanaGateway([solanaAdapterFor(devnet, { config: elsewhere as Address })])
      try {
        const res = await post(wrong.baseUrl, '/intents/validate', body(), { 'x-chain-id': devnet.chainId })
        assert.equal(res.status, 502, res.text)
        assertCommonHeaders(res, { status: '0xF0', chainId: devnet.chainId, chainType: 'solana' })
        assert.match(res.text, /program error 7: the intent is bound to another deployment/)
      } finally {
        await wrong.close()
      }
    })
  })
})
