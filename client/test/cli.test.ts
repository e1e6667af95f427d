// The intent-gateway command (the built bin, as npx runs it) against a real gateway on anvil:
// exit codes follow the outcome, --json parses, keys from the environment are never printed.
import assert from 'node:assert/strict'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { parseEther } from 'viem'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import {
  demoIntent,
  post,
  rpc,
  signIntent,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../../test/support/testGateway.ts'

const bin = resolve(import.meta.dirname, '../bin/intent-gateway.js')
const apiKey = 'cli-test-api-key-5f2b9c0e71'
const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }

type Run = { code: number; stdout: string; stderr: string }

function run(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...baseEnv, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr })
      },
    )
    if (stdin !== undefined) child.stdin!.end(stdin)
  })
}

/** The --json output: one JSON document on stdout. */
const parsed = (r: Run) => {
  try {
    return JSON.parse(r.stdout)
  } catch {
    assert.fail(`stdout is not JSON (exit ${r.code}): ${r.stdout}\nstderr: ${r.stderr}`)
  }
}

describe('intent-gateway CLI against a gateway on anvil', () => {
  let world: World
  let keyed: TestGateway
  let dir: string
  let url: string
  const flags = (overrides: Record<string, unknown> = {}) => {
    const i = demoIntent(world.devnet, overrides) as Record<string, string>
    return [
      '--sender',
      i.sender!,
      '--target',
      i.target!,
      '--data',
      i.data!,
      '--value',
      i.value!,
      '--nonce',
      i.nonce!,
      '--policy-id',
      i.policyId!,
    ]
  }
  const intentFile = (name: string, overrides: Record<string, unknown> = {}) => {
    const path = join(dir, `${name}.json`)
    writeFileSync(path, JSON.stringify(demoIntent(world.devnet, overrides)))
    return path
  }

  before(async () => {
    world = await startWorld()
    keyed = await startTestGateway({
      chains: [world.devnet.chain],
      auth: { keyHashes: [hashApiKey(apiKey)], requireForValidate: true },
    })
    dir = mkdtempSync(join(tmpdir(), 'intent-gateway-cli-'))
    url = world.gateway.baseUrl
  })
  after(async () => {
    rmSync(dir, { recursive: true, force: true })
    await keyed?.close()
    await world?.stop()
  })

  it("validate --json: exit 0 and the outcome with the gateway's intent hash", async () => {
    const r = await run(['validate', '--url', url, '--json', ...flags({ nonce: '1' })])
    assert.equal(r.code, 0, r.stderr)
    const out = parsed(r)
    const direct = await post(url, '/intents/validate', demoIntent(world.devnet, { nonce: '1' }))
    assert.equal(out.status, '0x01')
    assert.equal(out.action, 'done')
    assert.equal(out.httpStatus, 200)
    assert.equal(out.intentHash, direct.headers.get('x-intent-hash'))
    assert.equal(out.body.statusName, 'SUCCESS')
  })

  it('execute without a key: exit 4 (sign) with the typed data; with INTENT_SIGNER_PRIVATE_KEY: exit 0, 0x11; again: exit 0, replayed', async () => {
    const file = intentFile('exec', { nonce: '2' })
    const unsigned = await run(['execute', '--url', url, '--json', '--intent', file])
    assert.equal(unsigned.code, 4, unsigned.stdout)
    assert.equal(parsed(unsigned).status, '0xE5')
    assert.equal(parsed(unsigned).signing.primaryType, 'Intent')

    const signed = await run(['execute', '--url', url, '--chain', '31337', '--json', '--intent', file], {
      INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender,
    })
    assert.equal(signed.code, 0, signed.stdout + signed.stderr)
    const out = parsed(signed)
    assert.equal(out.status, '0x11')
    assert.match(out.transactionHash, /^0x[0-9a-f]{64}$/)
    assert.equal(typeof out.blockNumber, 'string')

    // The same intent again: its one outcome, replayed (nothing sent): done.
    const again = await run(['execute', '--url', url, '--intent', file], {
      INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender,
    })
    assert.equal(again.code, 0, again.stdout)
    assert.match(again.stdout, /^outcome +DONE {2}HTTP 200 {2}0x11 EXECUTED$/m)
    assert.match(again.stdout, new RegExp(`^intent hash +${out.intentHash}$`, 'm'))

    const status = await run(['status', out.intentHash, '--url', url, '--json'])
    assert.equal(status.code, 0)
    assert.equal(parsed(status).transactionHash, out.transactionHash)
  })

  it('sign and hash print what the gateway expects; --unsigned and an explicit --signature are sent as given', async () => {
    const body = demoIntent(world.devnet, { nonce: '3' })
    const expected = (await signIntent(world.devnet, body)).signature as string
    const signed = await run(['sign', '--url', url, ...flags({ nonce: '3' })], {
      INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender,
    })
    assert.equal(signed.code, 0, signed.stderr)
    assert.equal(signed.stdout.trim(), expected)
    const signedJson = parsed(
      await run(['sign', '--url', url, '--json', ...flags({ nonce: '3' })], {
        INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender,
      }),
    )
    assert.deepEqual(signedJson.intent, { ...body, signature: expected })

    const gatewayHash = (await post(url, '/intents/validate', body)).headers.get('x-intent-hash')
    const hashed = await run(['hash', '--url', url, ...flags({ nonce: '3' })])
    assert.equal(hashed.stdout.trim(), gatewayHash)
    const offline = await run(['hash', '--chain-type', 'evm', '--url', 'http://127.0.0.1:1', ...flags({ nonce: '3' })])
    assert.equal(offline.code, 0, offline.stderr)
    assert.equal(offline.stdout.trim(), gatewayHash)

    const refused = await run(['execute', '--url', url, '--json', '--unsigned', ...flags({ nonce: '3' })], {
      INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender,
    })
    assert.equal(refused.code, 4)
    const given = await run(['execute', '--url', url, '--json', ...flags({ nonce: '3' }), '--signature', expected])
    assert.equal(given.code, 0, given.stdout)
  })

  it('reads the intent from stdin (--intent -), flags overriding its fields', async () => {
    const r = await run(
      ['validate', '--url', url, '--json', '--intent', '-', '--nonce', '44'],
      {},
      JSON.stringify(demoIntent(world.devnet, { nonce: '4' })),
    )
    assert.equal(r.code, 0, r.stderr)
    assert.equal(
      parsed(r).intentHash,
      (await post(url, '/intents/validate', demoIntent(world.devnet, { nonce: '44' }))).headers.get('x-intent-hash'),
    )
  })

  it('exit 6 (fund) when the value is above the policy cap (402 0x54); exit 3 for a disallowed target', async () => {
    const fund = await run([
      'validate',
      '--url',
      url,
      '--json',
      ...flags({ nonce: '5', value: parseEther('2').toString() }),
    ])
    assert.equal(fund.code, 6)
    assert.equal(parsed(fund).funding.limit, 'policy', 'above the per-intent cap: the gateway says no deposit helps')
    const human = await run(['validate', '--url', url, ...flags({ nonce: '5', value: parseEther('2').toString() })])
    assert.match(human.stdout, /^next step +the sender's deposit or policy cap is short/m)
    const denied = await run([
      'validate',
      '--url',
      url,
      '--json',
      ...flags({ nonce: '5', target: world.devnet.contracts.registry }),
    ])
    assert.equal(denied.code, 3)
    assert.equal(parsed(denied).status, '0x10')
    const unserved = await run(['execute', '--url', url, '--chain', '8453', '--json', ...flags({ nonce: '5' })], {
      INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender,
    })
    assert.equal(unserved.code, 3, unserved.stdout + unserved.stderr)
    assert.equal(parsed(unserved).status, '0xA2')
  })

  it('exit 7 while an execution is unconfirmed; --wait follows its events on stderr and exits 0 once mined', async () => {
    const slow = await startTestGateway({ chains: [world.devnet.chain], receiptTimeoutMs: 100 })
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const env = { INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender }
      const pending = await run(['execute', '--url', slow.baseUrl, '--json', ...flags({ nonce: '6' })], env)
      assert.equal(pending.code, 7, pending.stdout)
      const { intentHash, location } = parsed(pending)
      assert.equal(location, `${slow.baseUrl}/intents/${intentHash}`)
      const miner = setTimeout(() => void rpc(world.devnet.anvil.rpcUrl, 'evm_mine', []), 1_500)
      const waited = await run(['status', intentHash, '--wait', '--url', slow.baseUrl, '--json'])
      clearTimeout(miner)
      assert.equal(waited.code, 0, waited.stdout + waited.stderr)
      assert.equal(parsed(waited).status, '0x11')
      // Followed on the event stream as it happened, then the outcome read once.
      assert.match(waited.stderr, /^event: submitted \(0x[0-9a-f]{64}\), attempt 1$/m)
      assert.match(waited.stderr, /^event: mined in block \d+ \(0x[0-9a-f]{64}\), attempt 1$/m)
      assert.match(waited.stderr, /^event: final in block \d+ \(0x[0-9a-f]{64}\), attempt 1$/m)
      // The outcome read once the stream ended says what it is, not "waiting for the receipt".
      assert.match(waited.stderr, /^mined in block \d+, final: \d+\.\d s, poll 1, 0x11 EXECUTED$/m)
      assert.doesNotMatch(waited.stderr, /waiting for the receipt/)
      assert.doesNotMatch(waited.stderr, /poll 2/)
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await slow.close()
    }
  })

  it('execute --respond-async: exit 7 as soon as the node holds the transaction; with --wait, followed until mined', async () => {
    const env = { INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender }
    // The gateway's own bound is a minute: an answer before any block is the preference's.
    const patient = await startTestGateway({ chains: [world.devnet.chain], receiptTimeoutMs: 60_000 })
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const sent = await run(
        ['execute', '--respond-async', '--url', patient.baseUrl, '--json', ...flags({ nonce: '30' })],
        env,
      )
      assert.equal(sent.code, 7, sent.stdout + sent.stderr)
      assert.equal(parsed(sent).status, '0xF3')
      assert.equal(parsed(sent).state, 'pending')
      // A block every half second from now on, whenever this command's transaction reaches the node.
      const miner = setInterval(() => void rpc(world.devnet.anvil.rpcUrl, 'evm_mine', []), 500)
      const followed = await run(
        ['execute', '--respond-async', '--wait', '--url', patient.baseUrl, '--json', ...flags({ nonce: '31' })],
        env,
      ).finally(() => clearInterval(miner))
      assert.equal(followed.code, 0, followed.stdout + followed.stderr)
      assert.equal(parsed(followed).status, '0x11')
      assert.match(followed.stderr, /^event: mined in block \d+/m)
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await patient.close()
    }
  })

  it('--wait on a chain of CONFIRMATIONS 3 says "n of 3 confirmations" as blocks come, then exits 0 once final', async () => {
    const deep = await startTestGateway({ chains: [world.devnet.chain], confirmations: 3, reconcileIntervalMs: 200 })
    // A block every 1.5 s from now on: the execution's block is followed by two more.
    const miner = setInterval(() => void rpc(world.devnet.anvil.rpcUrl, 'evm_mine', []), 1_500)
    try {
      const env = { INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender }
      const waited = await run(['execute', '--wait', '--url', deep.baseUrl, '--json', ...flags({ nonce: '7' })], env)
      assert.equal(waited.code, 0, waited.stdout + waited.stderr)
      assert.equal(parsed(waited).status, '0x11')
      assert.equal(parsed(waited).body.confirmationsRequired, 3)
      const block = /^event: mined in block (\d+) /m.exec(waited.stderr)?.[1]
      assert.ok(block, waited.stderr)
      // Every depth from the block on, in order, each said once; the last is 3 of 3.
      const depths = [...waited.stderr.matchAll(/^mined in block (\d+): (\d) of 3 confirmations$/gm)].map((m) => [
        m[1],
        Number(m[2]),
      ])
      assert.ok(depths.length >= 2, waited.stderr)
      assert.ok(
        depths.every(([b]) => b === block),
        waited.stderr,
      )
      assert.deepEqual(
        depths.map(([, n]) => n),
        [...depths.map(([, n]) => n)].sort(),
        waited.stderr,
      )
      assert.equal(new Set(depths.map(([, n]) => n)).size, depths.length, waited.stderr)
      assert.equal(depths.at(-1)![1], 3, waited.stderr)
      assert.match(waited.stderr, /^event: final in block \d+ \(0x[0-9a-f]{64}\), attempt 1$/m)
      assert.match(
        waited.stderr,
        new RegExp(`^mined in block ${block}, final: 3 of 3 confirmations: \\d+\\.\\d s, poll 1, 0x11 EXECUTED$`, 'm'),
      )
      assert.doesNotMatch(waited.stderr, /waiting for the receipt/)
    } finally {
      clearInterval(miner)
      await deep.close()
    }
  })

  it('codes and chains: tables for people, JSON for scripts', async () => {
    const one = await run(['codes', '0x54', '--url', url, '--json'])
    assert.equal(one.code, 0)
    assert.deepEqual(
      { ...parsed(one), description: undefined },
      { code: '0x54', statusName: 'INSUFFICIENT_FUNDS', description: undefined, httpStatus: 402, reserved: false },
    )
    const all = await run(['codes', '--url', url])
    assert.equal(all.stdout.trim().split('\n').length, 256)
    assert.match(all.stdout, /^0xA2 {2}421 {2}UNSUPPORTED_CHAIN/m)
    const chains = parsed(await run(['chains', '--url', url, '--json']))
    assert.equal(chains.defaultChainId, 'eip155:31337')
    const table = await run(['chains', '--url', url])
    assert.match(table.stdout, new RegExp(`^executor +${world.devnet.contracts.executor}$`, 'm'))
  })

  it('exit 8 when the gateway cannot be reached, with a JSON error under --json', async () => {
    const port = await closedPort()
    const r = await run(['validate', '--url', `http://127.0.0.1:${port}`, '--json', ...flags()])
    assert.equal(r.code, 8)
    assert.equal(parsed(r).error.code, 'UNREACHABLE')
    assert.match(
      r.stderr,
      new RegExp(`^intent-gateway: The gateway at http://127.0.0.1:${port} cannot be reached: ECONNREFUSED$`, 'm'),
    )
  })

  it('exit 2 for bad usage, with a message naming the problem', async () => {
    const cases: [string[], RegExp][] = [
      [['validate', '--url', url, ...flags(), '--nonce=-1'], /The intent's nonce must be a decimal string/],
      [['validate', '--url', url, ...flags(), '--value', '1e18'], /The intent's value must be a decimal string/],
      [['validate', '--url', url, '--bogus'], /Unknown option '--bogus'/],
      [['validate', '--url', url], /no intent given/],
      [
        ['validate', '--url', url, '--intent', join(dir, 'missing.json')],
        /cannot read the intent file .*missing.json: ENOENT/,
      ],
      [['status', 'nothex', '--url', url], /the intent hash must be 0x followed by 64 hex digits/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [[], /^$/],
      [['sign', '--url', url, ...flags()], /no key to sign with: set INTENT_SIGNER_PRIVATE_KEY/],
    ]
    for (const [args, message] of cases) {
      const r = await run(args)
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`)
      assert.match(r.stderr, message, args.join(' '))
    }
    const json = await run(['validate', '--url', url, '--json', ...flags(), '--nonce', 'x'])
    assert.equal(parsed(json).error.code, 'INVALID_INTENT')
    // The gateway's own 400 is a refusal that names the field: exit 3.
    const gateway400 = await run(['validate', '--url', url, '--json', ...flags(), '--sender', '0x12'])
    assert.equal(gateway400.code, 3)
    assert.equal(parsed(gateway400).errors[0].field, 'sender')
  })

  it('after a 0x20 (too early) suggests sending the request again once valid, not status --wait (which answers 404)', async () => {
    const early = await run([
      'validate',
      '--url',
      url,
      '--intent',
      intentFile('early', { nonce: '20', validAfter: '4102444800' }),
    ])
    assert.equal(early.code, 7, early.stdout + early.stderr)
    assert.match(early.stdout, /^outcome +RETRY {2}HTTP 202 {2}0x20 /m)
    assert.match(
      early.stdout,
      /^next step +not valid yet: send the same request again once its validAfter has passed \(Retry-After: \d+ s\)$/m,
    )
    assert.doesNotMatch(early.stdout, /status .*--wait/)
    // What the old advice led to: nothing was sent, so there is nothing to wait for.
    const hash = /^intent hash +(0x[0-9a-f]{64})$/m.exec(early.stdout)![1]!
    assert.equal((await run(['status', hash, '--url', url, '--json'])).code, 3)
  })

  it("with --pay that did not pay, names --allow-asset with the price's own asset; following it pays", async () => {
    const priced = await startTestGateway({ chains: [world.devnet.chain], payments: world.devnet.payments })
    try {
      const env = { INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender, INTENT_PAYER_PRIVATE_KEY: devnetAccounts.payer }
      const unpaid = await run(['execute', '--url', priced.baseUrl, ...flags({ nonce: '21' })], {
        INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender,
      })
      assert.equal(unpaid.code, 5, unpaid.stdout)
      assert.match(unpaid.stdout, /^next step +the gateway asks a price: set INTENT_PAYER_PRIVATE_KEY and pass --pay$/m)

      const refused = await run(['execute', '--url', priced.baseUrl, '--pay', ...flags({ nonce: '21' })], env)
      assert.equal(refused.code, 5, refused.stdout + refused.stderr)
      const advice = /^next step +(.*)$/m.exec(refused.stdout)?.[1] ?? ''
      assert.doesNotMatch(advice, /pass --pay/)
      const flag = /--allow-asset (eip155:31337\/0x[0-9a-fA-F]{40}=\d+)/.exec(advice)?.[1]
      assert.ok(flag, advice)
      assert.equal(flag.split('/')[1]!.split('=')[0]!.toLowerCase(), world.devnet.demo.payment.asset.toLowerCase())

      const paid = await run(
        ['execute', '--url', priced.baseUrl, '--json', '--pay', '--allow-asset', flag, ...flags({ nonce: '21' })],
        env,
      )
      assert.equal(paid.code, 0, paid.stdout + paid.stderr)
      assert.equal(parsed(paid).status, '0x11')
      assert.equal(parsed(paid).payment.success, true)
    } finally {
      await priced.close()
    }
  })

  it('reports a missing --policy-id as missing, naming the flag, not as a format error', async () => {
    const withoutPolicy = flags({ nonce: '22' }).slice(0, -2)
    const r = await run(['validate', '--url', url, ...withoutPolicy])
    assert.equal(r.code, 2, r.stdout + r.stderr)
    assert.match(
      r.stderr,
      /^intent-gateway: The intent's policyId is required: the policy's id, 0x hex \(--policy-id\)$/m,
    )
    assert.doesNotMatch(r.stderr, /must be 0x/)
    // A malformed one is still a format error.
    const malformed = await run(['validate', '--url', url, ...withoutPolicy, '--policy-id', 'abc'])
    assert.match(
      malformed.stderr,
      /The intent's policyId must be 0x followed by an even number of hex digits \(--policy-id\)/,
    )
  })

  it("--version prints the client package's semver version", async () => {
    const { version } = JSON.parse(readFileSync(resolve(import.meta.dirname, '../package.json'), 'utf8')) as {
      version: string
    }
    assert.match(version, /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/)
    for (const flag of ['--version', '-v']) {
      const r = await run([flag])
      assert.equal(r.code, 0, r.stderr)
      assert.equal(r.stdout, `intent-gateway ${version}\n`)
    }
    assert.deepEqual(parsed(await run(['--version', '--json'])), { name: '@intent-gateway/client', version })
  })

  it("never prints a key from the environment: not in results, errors, or a malformed key's message", async () => {
    const secrets = [apiKey, devnetAccounts.sender, devnetAccounts.sender.slice(2), devnetAccounts.other.slice(2)]
    const env = {
      INTENT_GATEWAY_API_KEY: apiKey,
      INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender,
      INTENT_PAYER_PRIVATE_KEY: devnetAccounts.other,
    }
    const runs = [
      await run(['execute', '--url', keyed.baseUrl, '--json', ...flags({ nonce: '9' })], env),
      await run(['execute', '--url', keyed.baseUrl, ...flags({ nonce: '9' })], env),
      await run(['validate', '--url', keyed.baseUrl, '--pay', ...flags({ nonce: '9' })], env),
      await run(['sign', '--url', keyed.baseUrl, '--json', ...flags({ nonce: '10' })], env),
      await run(['execute', '--url', keyed.baseUrl, ...flags({ nonce: '11' })], {
        ...env,
        INTENT_SIGNER_PRIVATE_KEY: `${devnetAccounts.sender}ff`,
      }),
      await run(['execute', '--url', `http://127.0.0.1:${await closedPort()}`, ...flags({ nonce: '12' })], env),
    ]
    assert.equal(runs[0]!.code, 0, runs[0]!.stdout)
    assert.equal(runs[1]!.code, 0, 'the same intent again: replayed')
    assert.equal(runs[2]!.code, 3)
    assert.equal(runs[4]!.code, 2)
    assert.match(
      runs[4]!.stderr,
      /INTENT_SIGNER_PRIVATE_KEY must be a 32-byte key: 0x followed by 64 hex digits \(its value is not shown\)/,
    )
    assert.equal(runs[5]!.code, 8)
    for (const r of runs)
      for (const secret of secrets)
        assert.ok(!`${r.stdout}${r.stderr}`.includes(secret), `a key was printed: ${r.stdout}${r.stderr}`)
    // Without the key, the keyed gateway refuses: exit 3 (a 401 0xE4 without typed data).
    assert.equal((await run(['validate', '--url', keyed.baseUrl, ...flags({ nonce: '9' })])).code, 3)
  })
})

describe('intent-gateway start', () => {
  let child: ChildProcess | undefined
  after(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL')
  })

  it('runs the gateway on its embedded devnet when nothing is configured, serves the CLI, and stops everything on SIGINT', {
    timeout: 180_000,
  }, async () => {
    child = spawn(process.execPath, [bin, 'start', '--port', '0'], {
      env: { ...baseEnv, HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout!.on('data', (chunk) => (output += chunk))
    child.stderr!.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)))
    const baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /running on its embedded devnet at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
        if (match) {
          clearInterval(timer)
          resolve(match[1]!)
        } else if (child!.exitCode !== null) {
          clearInterval(timer)
          reject(new Error(`start exited ${child!.exitCode}: ${output}`))
        }
      }, 100)
    })
    const anvilPid = /anvil (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]
    assert.ok(anvilPid, output)
    const chains = parsed(await run(['chains', '--url', baseUrl, '--json']))
    assert.deepEqual(
      chains.chains.map((c: { chainType: string }) => c.chainType),
      ['evm', 'solana'],
    )
    child.kill('SIGINT')
    assert.equal(await exited, 0, output)
    // The devnet went down with it: its anvil no longer answers.
    await assert.rejects(fetch(anvilPid, { method: 'POST', body: '{}' }))
  })
})

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}
