// What the console's browser tests share: a devnet, a gateway with the console on (an operator's
// key, two agents' keys, a small rate limit so that a client can be throttled), and the system's
// Chromium driven by playwright-core (no browser download: /usr/bin/chromium, from
// scripts/ensureTestTools.sh).
import { randomBytes } from 'node:crypto'
import { type Browser, chromium, type Page } from 'playwright-core'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { opsConfig } from '../../src/config/opsConfig.ts'
import { createGateway, type Gateway } from '../../src/createGateway.ts'
import { hashApiKey } from '../../src/crypto/hashApiKey.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { localKey } from '../support/relayerKeys.ts'
import { testConfig } from '../support/testConfig.ts'
import { signedIntent } from '../support/testGateway.ts'

export type ConsoleWorld = {
  devnet: Devnet
  gateway: Gateway
  base: string
  browser: Browser
  opsKey: string
  /** Executes with this one. */
  agentKey: string
  /** Throttled with this one. */
  noisyKey: string
  intent(): Promise<Record<string, unknown>>
  /** A page with the console open and connected with the operator's key. */
  openConsole(): Promise<Page>
  stop(): Promise<void>
}

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export type ConsoleGatewayOptions = {
  devnet: Devnet
  opsKey: string
  agentKeys: string[]
  rateLimitMax?: number | undefined
  feedBuffer?: number | undefined
  /** A fleet: the shared PostgreSQL journal and this instance's id. */
  storage?: { databaseUrl: string; instanceId: string } | undefined
}

/** A gateway in front of the devnet with the console on; listening on a free port. */
export async function startConsoleGateway({
  devnet,
  opsKey,
  agentKeys,
  rateLimitMax = 0,
  feedBuffer = 64,
  storage,
}: ConsoleGatewayOptions): Promise<{ gateway: Gateway; base: string }> {
  const gateway = await createGateway({
    config: testConfig({
      production: false,
      chains: [devnet.chain],
      keys: { evm: [localKey(devnetAccounts.relayer, 'RELAYER_PRIVATE_KEY')] },
      auth: { keyHashes: agentKeys.map(hashApiKey), requireForValidate: false },
      rateLimit: { max: rateLimitMax, windowMs: 60_000 },
      execution: { receiptTimeoutMs: 20_000 },
      rpc: { timeoutMs: 2_000, pollMs: 20 },
      ...(storage
        ? {
            storageOptions: { postgres: { url: storage.databaseUrl } },
            storage: {
              redisUrl: undefined,
              instanceId: storage.instanceId,
              relayerLeaseTtlMs: 1_000,
            },
          }
        : {}),
      ops: opsConfig(
        { OPS_API_KEYS: opsKey, OPS_POLL_MS: '100', OPS_FEED_BUFFER: String(feedBuffer) },
        { production: false },
      ).value,
    } as Parameters<typeof testConfig>[0]),
    logger: createLogger({ level: 'silent' }),
  })
  try {
    return { gateway, base: await gateway.app.listen({ host: '127.0.0.1', port: 0 }) }
  } catch (err) {
    await gateway.close()
    throw err
  }
}

export async function startConsoleWorld({
  rateLimitMax = 40,
  feedBuffer = 64,
}: {
  rateLimitMax?: number
  feedBuffer?: number
} = {}): Promise<ConsoleWorld> {
  const opsKey = `ops-${randomBytes(12).toString('hex')}`
  const agentKey = `agent-${randomBytes(12).toString('hex')}`
  const noisyKey = `noisy-${randomBytes(12).toString('hex')}`
  const devnet = await startDevnet()
  let gateway: Gateway | undefined
  try {
    const started = await startConsoleGateway({
      devnet,
      opsKey,
      agentKeys: [agentKey, noisyKey],
      rateLimitMax,
      feedBuffer,
    })
    gateway = started.gateway
    const { base } = started
    const browser = await launchChromium()
    let nonce = BigInt(`0x${randomBytes(6).toString('hex')}`)
    const running = gateway
    return {
      devnet,
      gateway: running,
      base,
      browser,
      opsKey,
      agentKey,
      noisyKey,
      intent: () => signedIntent(devnet, { nonce: String(nonce++) }),
      async openConsole() {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
        await page.goto(`${base}/ops`)
        await page.getByLabel('Operator key').fill(opsKey)
        await page.getByRole('button', { name: 'Connect' }).click()
        await page.locator('#console').waitFor({ state: 'visible' })
        await page.getByText('Live.').waitFor()
        return page
      },
      async stop() {
        await browser.close().catch(() => {})
        await running.close()
        await devnet.stop()
      },
    }
  } catch (err) {
    await gateway?.close()
    await devnet.stop()
    throw err
  }
}

/** Headless, with --no-sandbox only when run as root (CI's containers). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  })
}
