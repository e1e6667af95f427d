// Signed webhooks of execution events, to a local receiver that verifies each delivery with the
// `standardwebhooks` package: every event arrives (once per event id), a receiver that fails three
// times gets it on the fourth try, two instances on one PostgreSQL journal deliver each event once,
// and an event whose delivery a kill -9 interrupted is delivered after the restart.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import type { WebhooksConfig } from '../../src/config/webhooksConfig.ts'
import { webhooksConfig } from '../../src/config/webhooksConfig.ts'
import { eventually } from '../support/eventually.ts'
import { chainEnv, startGatewayProcess } from '../support/gatewayProcess.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { post, signedIntent, startTestGateway, startWorld, type World } from '../support/testGateway.ts'
import { startWebhookReceiver, type WebhookDelivery } from '../support/webhookReceiver.ts'

const secret = `whsec_${randomBytes(32).toString('base64')}`

/** The test's receiver: verifies with the gateway's secret, answers what `answer` says (200 by default). */
const startReceiver = (answer: (id: string, tries: number) => number = () => 200) =>
  startWebhookReceiver(secret, { answer })

const config = (urls: string[]): WebhooksConfig => ({ urls, secret, maxAttempts: 6, retryBaseMs: 20 })
const ofIntent = (deliveries: WebhookDelivery[], intentHash: string) =>
  deliveries.filter((d) => d.intentHash === intentHash)

describe('signed webhooks of execution events', () => {
  let world: World
  const cleanup: Array<() => Promise<unknown>> = []
  const chain = { 'x-chain-id': '31337' }

  before(async () => {
    world = await startWorld()
  })
  after(async () => {
    for (const c of cleanup.reverse()) await c()
    await world?.stop()
  })

  it('delivers every event of an execution once per event id, signed as Standard Webhooks says; a receiver failing three times gets it on the fourth', async () => {
    // The mined event is refused three times before it is taken.
    const receiver = await startReceiver((id, n) => (id.includes(':mined:') && n <= 3 ? 500 : 200))
    cleanup.push(receiver.close)
    const gateway = await startTestGateway({ chains: [world.devnet.chain], webhooks: config([receiver.url]) })
    cleanup.push(() => gateway.close())
    const res = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(world.devnet, { nonce: '700' }),
      chain,
    )
    assert.equal(res.status, 200, res.text)
    const intentHash = res.headers.get('x-intent-hash')!
    await eventually('the final event', 15_000, async () =>
      ofIntent(receiver.deliveries, intentHash).some((d) => d.type === 'final') &&
      ofIntent(receiver.deliveries, intentHash).some((d) => d.type === 'mined')
        ? true
        : undefined,
    )
    const got = ofIntent(receiver.deliveries, intentHash)
    assert.deepEqual(got.map((d) => d.type).sort(), ['final', 'mined', 'submitted'])
    assert.deepEqual(got.map((d) => d.state).sort(), ['mined', 'mined', 'pending'])
    const minedId = [...receiver.triesOf.keys()].find((id) => id.includes(':mined:'))!
    assert.equal(receiver.triesOf.get(minedId), 4, 'three refusals, then delivered')
    // The receiver has answered the fourth try; the gateway writes it down just after.
    const entries = async () =>
      (await gateway.journal.webhooks.entriesOf(minedId)).map((e) => ({ attempts: e.attempts, delivered: e.delivered }))
    await eventually('the fourth try recorded', 5_000, async () => ((await entries())[0]?.delivered ? true : undefined))
    assert.deepEqual(await entries(), [{ attempts: 4, delivered: true }])
    assert.deepEqual(receiver.badSignatures, [])
    // Nothing more comes: each event once.
    await new Promise((r) => setTimeout(r, 1_000))
    assert.equal(ofIntent(receiver.deliveries, intentHash).length, 3)
  })

  it('delivers each event once with two instances on one PostgreSQL journal', async () => {
    const database: TestDatabase = await createTestDatabase('webhooks')
    cleanup.push(() => database.drop())
    const receiver = await startReceiver()
    cleanup.push(receiver.close)
    const storage = (instanceId: string) => ({ redisUrl: undefined, instanceId })
    const storageOptions = { postgres: { url: database.url } }
    const a = await startTestGateway({
      chains: [world.devnet.chain],
      storageOptions,
      storage: storage('a'),
      webhooks: config([receiver.url]),
    })
    cleanup.push(() => a.close())
    const b = await startTestGateway({
      chains: [world.devnet.chain],
      storageOptions,
      storage: storage('b'),
      relayerPrivateKey: devnetAccounts.other,
      webhooks: config([receiver.url]),
    })
    cleanup.push(() => b.close())
    const hashes: string[] = []
    for (let i = 0; i < 6; i++) {
      const res = await post(
        (i % 2 === 0 ? a : b).baseUrl,
        '/intents/execute',
        await signedIntent(world.devnet, { nonce: String(710 + i) }),
        chain,
      )
      assert.equal(res.status, 200, res.text)
      hashes.push(res.headers.get('x-intent-hash')!)
    }
    await eventually('every final event', 15_000, async () =>
      hashes.every((h) => ofIntent(receiver.deliveries, h).some((d) => d.type === 'final')) ? true : undefined,
    )
    await new Promise((r) => setTimeout(r, 1_500))
    for (const h of hashes)
      assert.deepEqual(
        ofIntent(receiver.deliveries, h)
          .map((d) => d.type)
          .sort(),
        ['final', 'mined', 'submitted'],
        h,
      )
    assert.equal(new Set([...receiver.triesOf.values()]).size, 1, 'every event was sent once')
  })

  it('delivers after a kill -9: an event the receiver could not take before the crash arrives after the restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-'))
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }))
    // The receiver refuses everything until the gateway has been killed.
    let up = false
    const receiver = await startReceiver(() => (up ? 200 : 503))
    cleanup.push(receiver.close)
    const env = {
      ...chainEnv(world.devnet),
      JOURNAL_PATH: join(dir, 'journal.sqlite'),
      WEBHOOK_URLS: receiver.url,
      WEBHOOK_SECRET: secret,
      WEBHOOK_RETRY_BASE_MS: '50',
      RELAYER_PRIVATE_KEY: devnetAccounts.other,
    }
    const first = await startGatewayProcess(env)
    let intentHash: string
    try {
      const res = await post(
        first.baseUrl,
        '/intents/execute',
        await signedIntent(world.devnet, { nonce: '730' }),
        chain,
      )
      assert.equal(res.status, 200, res.text)
      intentHash = res.headers.get('x-intent-hash')!
      // Mined, and its events refused at least once: they wait in the outbox.
      await eventually('a refused mined event', 10_000, async () =>
        [...receiver.triesOf.keys()].some((id) => id.includes(intentHash) && id.includes(':mined:')) ? true : undefined,
      )
    } finally {
      first.gw.child.kill('SIGKILL')
      await first.gw.exit
    }
    assert.equal(ofIntent(receiver.deliveries, intentHash).length, 0, 'nothing was taken before the crash')
    up = true
    const second = await startGatewayProcess(env)
    try {
      await eventually('the events after the restart', 15_000, async () =>
        ofIntent(receiver.deliveries, intentHash).length === 3 ? true : undefined,
      )
      assert.deepEqual(
        ofIntent(receiver.deliveries, intentHash)
          .map((d) => d.type)
          .sort(),
        ['final', 'mined', 'submitted'],
      )
    } finally {
      second.gw.child.kill('SIGTERM')
      await second.gw.exit
    }
  })

  it('refuses bad settings, naming them and never showing the secret', () => {
    assert.equal(webhooksConfig({}, { production: false }).value, undefined)
    assert.deepEqual(
      webhooksConfig({ WEBHOOK_URLS: 'http://hooks.example/x', WEBHOOK_SECRET: 'whsec_c2hvcnQ=' }, { production: true })
        .problems,
      [
        'WEBHOOK_URLS[0]: must be https in production',
        'WEBHOOK_SECRET: must be whsec_ followed by the base64 of at least 32 random bytes (its value is not shown)',
      ],
    )
    assert.deepEqual(webhooksConfig({ WEBHOOK_SECRET: secret }, { production: false }).problems, [
      'WEBHOOK_SECRET: is set but WEBHOOK_URLS is not',
    ])
    const ok = webhooksConfig(
      {
        WEBHOOK_URLS: 'https://hooks.example/a, https://hooks.example/b',
        WEBHOOK_SECRET: secret,
        WEBHOOK_MAX_ATTEMPTS: '5',
      },
      { production: true },
    )
    assert.deepEqual(ok, {
      value: {
        urls: ['https://hooks.example/a', 'https://hooks.example/b'],
        secret,
        maxAttempts: 5,
        retryBaseMs: 1000,
      },
      problems: [],
    })
  })
})
