// examples/agent.ts (validate → sign → execute → wait) run as a user runs it, against the devnet.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { devnetApiKey } from '../../src/config/devnetApiKey.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { startTestGateway, startWorld, type TestGateway, type World } from '../../test/support/testGateway.ts'

const root = resolve(import.meta.dirname, '../..')

function runExample(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', file],
      { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    )
  })
}

describe('examples/agent.ts against the devnet', () => {
  let world: World
  const count = () =>
    world.clients.publicClient.readContract({
      address: world.devnet.demo.counter,
      abi: demoCounterArtifact.abi,
      functionName: 'count',
    }) as Promise<bigint>
  const env = (overrides: Record<string, string> = {}) => ({
    INTENT_GATEWAY_URL: world.gateway.baseUrl,
    INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender,
    INTENT_TARGET: world.devnet.demo.counter,
    INTENT_POLICY_ID: world.devnet.demo.policies.open,
    ...overrides,
  })

  before(async () => {
    world = await startWorld()
  })
  after(async () => {
    await world?.stop()
  })

  it('validates, signs, executes and reports the transaction; the counter moved once', async () => {
    const before = await count()
    const r = await runExample('examples/agent.ts', env())
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const lines = r.stdout.trim().split('\n')
    assert.equal(lines[0], 'validate: 0x01 SUCCESS (done)')
    assert.equal(lines[1], `signed by ${world.devnet.demo.sender}`)
    assert.match(lines[2]!, /^execute: 0x11 EXECUTED \(done\) intent 0x[0-9a-f]{64}$/)
    const hash = /^transaction (0x[0-9a-f]{64}) in block \d+$/.exec(lines[3]!)?.[1]
    assert.ok(hash, r.stdout)
    assert.equal(
      (await world.clients.publicClient.getTransactionReceipt({ hash: hash as `0x${string}` })).status,
      'success',
    )
    assert.equal(await count(), before + 1n)
  })

  it('stops after validate, exit 1, when the chain refuses the intent', async () => {
    const before = await count()
    const r = await runExample('examples/agent.ts', env({ INTENT_POLICY_ID: world.devnet.demo.policies.mainnetOnly }))
    assert.equal(r.code, 1)
    assert.match(r.stdout, /^validate: 0xA2 UNSUPPORTED_CHAIN \(deny\)$/m)
    assert.equal(await count(), before)
  })
})

describe('examples/agent.ts as its header comment says to run it, against a gateway set up as `intent-gateway start` sets it up', () => {
  let devnet: Devnet
  let gateway: TestGateway

  before(async () => {
    devnet = await startDevnet()
    // As src/main.ts runs the devnet: execute priced by x402, and the devnet API key not charged.
    gateway = await startTestGateway({
      chains: [devnet.chain],
      payments: devnet.payments,
      auth: { keyHashes: [hashApiKey(devnetApiKey)], requireForValidate: false },
    })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  /** The environment the header comment's command sets, its <placeholders> filled from the devnet's start-up output. */
  function commentEnv(): Record<string, string> {
    const header = readFileSync(resolve(root, 'examples/agent.ts'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('//   '))
      .join(' ')
    const command = header.slice(0, header.indexOf('npx tsx examples/agent.ts'))
    const placeholders: Record<string, string> = {
      "<the demo sender's key>": devnetAccounts.sender,
      '<its open policy>': devnet.demo.policies.open,
      '<the demo counter>': devnet.demo.counter,
    }
    return Object.fromEntries(
      [...command.matchAll(/([A-Z_]+)=(<[^>]+>|\S+)/g)].map(([, name, value]) => [
        name!,
        placeholders[value!] ?? value!,
      ]),
    )
  }

  it('names the devnet API key, so that following it executes instead of ending in 402', async () => {
    const env = commentEnv()
    assert.equal(env.INTENT_GATEWAY_API_KEY, devnetApiKey)
    const r = await runExample('examples/agent.ts', { ...env, INTENT_GATEWAY_URL: gateway.baseUrl })
    assert.equal(r.code, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /^execute: 0x11 EXECUTED \(done\) intent 0x[0-9a-f]{64}$/m)
    // What the old comment led to: the same command without the key is asked to pay.
    const { INTENT_GATEWAY_API_KEY: _, ...withoutKey } = env
    const unpaid = await runExample('examples/agent.ts', { ...withoutKey, INTENT_GATEWAY_URL: gateway.baseUrl })
    assert.equal(unpaid.code, 1)
    assert.match(unpaid.stdout, /^execute: 0x55 .*\(pay\)/m)
  })
})

describe('examples/paidAgent.ts against a devnet that prices execute', () => {
  let devnet: Devnet
  let gateway: TestGateway
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const balance = () =>
    createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId).publicClient.readContract({
      address: devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [payer],
    })
  const env = (overrides: Record<string, string> = {}) => ({
    INTENT_GATEWAY_URL: gateway.baseUrl,
    INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.sender,
    INTENT_PAYER_PRIVATE_KEY: devnetAccounts.payer,
    INTENT_PAY_ASSET: devnet.contracts.dollar,
    INTENT_TARGET: devnet.demo.counter,
    INTENT_POLICY_ID: devnet.demo.policies.open,
    ...overrides,
  })

  before(async () => {
    devnet = await startDevnet()
    gateway = await startTestGateway({ chains: [devnet.chain], payments: devnet.payments })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  it('pays the price through the typed client and @x402/fetch, and the intent runs: the payer paid 0.01 DUSD', async () => {
    const before = await balance()
    const r = await runExample('examples/paidAgent.ts', env())
    assert.equal(r.code, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /^execute: 0x11 EXECUTED \(done\) intent 0x[0-9a-f]{64}$/m)
    assert.match(r.stdout, /^paid: .*"success":true/m)
    assert.equal(await balance(), before - 10_000n)
  })

  it('pays nothing above its own spend limit: the price is left unpaid (action pay), exit 1', async () => {
    const before = await balance()
    const r = await runExample('examples/paidAgent.ts', env({ INTENT_MAX_PRICE: '9999' }))
    assert.equal(r.code, 1, r.stdout + r.stderr)
    assert.match(r.stdout, /^execute: 0x55 .* \(pay\) intent/m)
    assert.equal(await balance(), before)
  })
})
