// What a gateway that does not use them must not load (issue 44, item 1: memory): the x402 schemes
// and the Solana client without prices, jose without OAuth, KMS's SDK and the PKCS#11 binding
// without such keys, the Sui SDK without a Sui chain, OpenTelemetry without tracing, the MCP SDK
// before the first /mcp request, the browser driver ever. A gateway is built as production builds
// it (createGateway) for one EVM chain (anvil) in a child process whose resolve hook records every
// file it imports; a module imported eagerly again fails this test naming who pays for it.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { writeModuleLogHook } from '../../bench/moduleLogHook.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'

const root = new URL('../../', import.meta.url).pathname
/** Packages a plain EVM gateway must not load, and what would load them. */
const optional: Record<string, string> = {
  '@x402/evm': 'prices (X402_PRICES)',
  '@x402/svm': 'Solana prices',
  '@solana/kit': 'a Solana chain or Solana prices',
  '@solana-program/': 'a Solana chain',
  'jose/': 'OAuth (OAUTH_ISSUER)',
  '@aws-sdk/': 'a KMS key',
  pkcs11js: 'a PKCS#11 key',
  '@mysten/sui': 'a Sui chain',
  '@opentelemetry/': 'tracing (OTEL_EXPORTER_OTLP_ENDPOINT)',
  '@modelcontextprotocol/sdk': 'the first /mcp request',
  'playwright-core': 'nothing (tests only)',
}

describe('a gateway loads only what its configuration uses', () => {
  let devnet: Devnet
  let dir: string
  before(async () => {
    devnet = await startDevnet()
    dir = mkdtempSync(join(tmpdir(), 'lazy-modules-'))
  })
  after(async () => {
    await devnet?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('an EVM gateway without prices, OAuth, KMS, PKCS#11, Sui, Solana or tracing loads none of their packages, nor the MCP SDK before /mcp is called', async () => {
    const log = join(dir, 'modules.log')
    writeFileSync(log, '')
    const hook = writeModuleLogHook(dir)
    const script = join(dir, 'start.mts')
    writeFileSync(
      script,
      `import { createGateway } from ${JSON.stringify(join(root, 'src/createGateway.ts'))}
import { createLogger } from ${JSON.stringify(join(root, 'src/logging/createLogger.ts'))}
import { testConfig } from ${JSON.stringify(join(root, 'test/support/testConfig.ts'))}
const gateway = await createGateway({
  config: testConfig({ chains: [${JSON.stringify(devnet.chain)}], keys: { evm: [{ backend: 'local', secret: ${JSON.stringify(devnetAccounts.relayer)}, setting: 'RELAYER_PRIVATE_KEY' }] } }),
  logger: createLogger({ level: 'silent' }),
})
await gateway.app.listen({ host: '127.0.0.1', port: 0 })
const res = await gateway.app.inject({ method: 'GET', url: '/health' })
if (res.statusCode !== 200) throw new Error('health ' + res.statusCode)
await gateway.close()
`,
    )
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--import', hook, script], {
        cwd: root,
        env: { ...process.env, MODULE_LOG: log },
        stdio: ['ignore', 'ignore', 'inherit'],
      })
      child.once('exit', resolve)
    })
    assert.equal(code, 0, 'the gateway started and answered /health')
    const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean)
    assert.ok(
      loaded.some((url) => url.includes('/node_modules/fastify/')),
      'the hook saw the gateway load',
    )
    const eager = Object.entries(optional)
      .filter(([name]) => loaded.some((url) => url.includes(`/node_modules/${name}`)))
      .map(([name, needs]) => `${name} (needed only with ${needs})`)
    assert.deepEqual(eager, [], 'loaded though the configuration does not use them')
  })
})
