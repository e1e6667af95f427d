// What production runs is the bundle `npm run build` writes (scripts/build.ts), started as
// `npm run start:prod` starts it; every other test runs the sources through tsx. A package bundled
// that finds its own files at run time, or a project file looked for at a path only src/ has,
// breaks only there: this test builds the bundle and starts it on anvil in production's mode, and
// asks what reads files or calls the chain: /health (the version from package.json), the OpenAPI
// document, the docs page (swagger-ui's own files), the console's page, a validate answered by the
// chain, and /metrics.
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { parseEther, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { productionCommand } from '../../scripts/productionCommand.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'

const root = new URL('../../', import.meta.url).pathname
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version

describe('the production bundle (npm run build, npm run start:prod)', () => {
  let devnet: Devnet
  let dir: string
  let stop = () => {}
  let url = ''
  const apiKey = `bundle-${'k'.repeat(24)}`
  const opsKey = `operator-${'o'.repeat(24)}`

  before(async () => {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
    devnet = await startDevnet()
    dir = mkdtempSync(join(tmpdir(), 'production-bundle-'))
    // A key of its own, funded (production refuses the devnet's public keys).
    const relayerKey = generatePrivateKey()
    await fetch(devnet.anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setBalance',
        params: [privateKeyToAccount(relayerKey).address, toHex(parseEther('10'))],
      }),
    })
    const port = 10_000 + Math.floor(Math.random() * 20_000)
    url = `http://127.0.0.1:${port}`
    const reference = String(devnet.anvil.chainId)
    const { env, nodeFlags } = productionCommand()
    const child = spawn(process.execPath, [...nodeFlags, 'dist/main.js'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...env,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        PORT: String(port),
        HOST: '127.0.0.1',
        // Production asks for the https origin clients reach it at (a proxy in front); the test calls it on http.
        PUBLIC_URL: `https://127.0.0.1:${port}`,
        EXECUTOR_ADDRESSES: JSON.stringify({ [reference]: devnet.contracts.executor }),
        VALIDATOR_ADDRESSES: JSON.stringify({ [reference]: devnet.contracts.validator }),
        REGISTRY_ADDRESSES: JSON.stringify({ [reference]: devnet.contracts.registry }),
        RPC_URLS: JSON.stringify({ [reference]: devnet.anvil.rpcUrl }),
        RELAYER_PRIVATE_KEY: relayerKey,
        API_KEYS: apiKey,
        OPS_API_KEYS: opsKey,
        JOURNAL_PATH: join(dir, 'journal.sqlite'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
    stop = () => child.kill('SIGKILL')
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`the bundle exited at start-up: ${stderr.slice(-2000)}`)
      if (
        await fetch(`${url}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break
      if (i > 300) throw new Error(`the bundle did not answer /health within 30 s: ${stderr.slice(-2000)}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  })

  after(async () => {
    stop()
    await devnet?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('answers /health with package.json’s version, and serves the OpenAPI document and the docs page', async () => {
    const health = (await (await fetch(`${url}/health`)).json()) as {
      version: string
      chains: Array<{ reachable: boolean }>
    }
    assert.equal(health.version, version)
    assert.equal(health.chains[0]?.reachable, true)
    const openApi = await fetch(`${url}/openapi.json`)
    assert.equal(openApi.status, 200)
    assert.equal(((await openApi.json()) as { info: { version: string } }).info.version, version)
    const docs = await fetch(`${url}/docs/`)
    assert.equal(docs.status, 200)
    assert.match(await docs.text(), /swagger/i)
  })

  it('serves the operator’s console page from the project’s files', async () => {
    const page = await fetch(`${url}/ops`)
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-type') ?? '', /text\/html/)
    const script = await fetch(`${url}/ops/app.js`)
    assert.equal(script.status, 200)
    assert.ok((await script.text()).length > 1000)
  })

  it('asks the chain: a validate is answered with the validator’s ERC-1066 code, and /metrics counts it', async () => {
    const now = Math.floor(Date.now() / 1000)
    const res = await fetch(`${url}/intents/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-chain-id': String(devnet.anvil.chainId) },
      body: JSON.stringify({
        sender: devnet.demo.sender,
        target: devnet.demo.counter,
        data: devnet.demo.incrementSelector,
        value: '0',
        nonce: '7001',
        validAfter: '0',
        validBefore: String(now + 3600),
        policyId: devnet.demo.policies.open,
      }),
    })
    assert.ok(res.status < 500, `validate answered ${res.status}: ${await res.clone().text()}`)
    assert.match(res.headers.get('x-erc1066-status') ?? '', /^0x[0-9a-f]{2}$/)
    const metrics = await (await fetch(`${url}/metrics`)).text()
    assert.match(metrics, /route="\/intents\/validate"/)
  })

  it('names classes and functions as written, without a call that names them again (scripts/build.ts)', () => {
    const dist = join(root, 'dist')
    const bundle = readdirSync(dist)
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(join(dist, file), 'utf8'))
      .join('\n')
    // esbuild's keepNames, which would wrap every named class (`static{__name(this,"Name")}`) and
    // function, closures made on every request included, in a call that names it again.
    const wrapped = bundle.match(/static\{[\w$]+\(this,"[\w$]+"\)\}/g) ?? []
    assert.equal(wrapped.length, 0, `classes named again: ${wrapped.slice(0, 3).join(' ')}`)
    // Identifiers are kept: a class is named by its declaration (error types in logs).
    for (const name of ['GatewayError', 'RelayerLeaseMovedError']) {
      assert.ok(new RegExp(`\\b${name}=class extends `).test(bundle), `${name} is declared under its own name`)
    }
  })
})
