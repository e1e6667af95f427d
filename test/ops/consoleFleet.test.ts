// The console's switches in a fleet of two instances on one PostgreSQL journal: a switch made on
// one instance is journaled there and takes effect on the other within 2 s (each polls the
// switches in force), and each instance's console lists both instances.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import type { Gateway } from '../../src/createGateway.ts'
import { eventually } from '../support/eventually.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { post, request, signedIntent } from '../support/testGateway.ts'
import { startConsoleGateway } from './consoleWorld.ts'

const opsKey = `ops-${randomBytes(12).toString('hex')}`
const agentKey = `agent-${randomBytes(12).toString('hex')}`
const asOps = { authorization: `Bearer ${opsKey}` }
const asAgent = { authorization: `Bearer ${agentKey}` }

let devnet: Devnet
let database: TestDatabase
const gateways: Array<{ gateway: Gateway; base: string }> = []
let nonce = BigInt(`0x${randomBytes(6).toString('hex')}`)

describe('console switches in a fleet of two on PostgreSQL', () => {
  before(async () => {
    database = await createTestDatabase('ops_fleet')
    devnet = await startDevnet()
    for (const instanceId of ['ops-a', 'ops-b'])
      gateways.push(
        await startConsoleGateway({
          devnet,
          opsKey,
          agentKeys: [agentKey],
          storage: { databaseUrl: database.url, instanceId },
        }),
      )
  })
  after(async () => {
    for (const { gateway } of gateways) await gateway.close()
    await devnet?.stop()
    await database?.drop()
  })

  it('a pause made on one instance refuses executes on the other within 2 s; a resume there too', async () => {
    const [a, b] = gateways as [(typeof gateways)[0], (typeof gateways)[0]]
    const chainId = devnet.chain.chainId
    const body = await signedIntent(devnet, { nonce: String(nonce++) })
    const paused = await post(a.base, `/ops/chains/${chainId}/pause`, {}, asOps)
    assert.equal(paused.status, 200)
    const at = Date.now()
    // A fresh intent each try: one sent before the pause reached B would be replayed, not refused.
    await eventually('the other instance refuses', 2_000, async () => {
      const r = await post(b.base, '/intents/execute', await signedIntent(devnet, { nonce: String(nonce++) }), asAgent)
      return r.status === 503 && r.headers.get('x-erc1066-status') === '0x42' ? true : undefined
    })
    assert.ok(Date.now() - at <= 2_000)
    const state = (await request(b.base, '/ops/state', { headers: asOps })).body as {
      paused: Array<{ target: string }>
      fleet: Array<{ instanceId: string }>
    }
    assert.deepEqual(
      state.paused.map((p) => p.target),
      [chainId],
    )
    assert.deepEqual(state.fleet.map((f) => f.instanceId).sort(), ['ops-a', 'ops-b'])

    assert.equal((await post(b.base, `/ops/chains/${chainId}/resume`, {}, asOps)).status, 200)
    await eventually('the first instance runs executes again', 2_000, async () =>
      (await request(a.base, '/ops/state', { headers: asOps })).body.paused.length === 0 ? true : undefined,
    )
    const runs = await post(a.base, '/intents/execute', body, asAgent)
    // Whichever instance holds the relayer key sends it; the other answers 503 (no key held) without claiming.
    assert.ok([200, 503].includes(runs.status))
    if (runs.status === 503) assert.notEqual(runs.headers.get('x-erc1066-status'), '0x42')
  })

  it('a drain of one instance, asked on the other, is seen by both within 2 s; its relayer key goes to the other, which then executes', async () => {
    const [a, b] = gateways as [(typeof gateways)[0], (typeof gateways)[0]]
    assert.equal((await post(a.base, '/ops/instances/ops-b/drain', {}, asOps)).status, 200)
    await eventually('the drained instance knows', 2_000, async () =>
      (await request(b.base, '/ops/state', { headers: asOps })).body.draining === true ? true : undefined,
    )
    // Whoever held the one relayer key, it ends up with ops-a (leases of 1 s here).
    await eventually('the key is held by the other instance', 10_000, async () => {
      const fleet = (await request(a.base, '/ops/state', { headers: asOps })).body.fleet as Array<{
        instanceId: string
        keys: unknown[]
      }>
      const held = Object.fromEntries(fleet.map((f) => [f.instanceId, f.keys.length]))
      return held['ops-a'] === 1 && !held['ops-b'] ? true : undefined
    })
    const drained = await post(
      b.base,
      '/intents/execute',
      await signedIntent(devnet, { nonce: String(nonce++) }),
      asAgent,
    )
    assert.equal(drained.status, 503)
    const runs = await post(a.base, '/intents/execute', await signedIntent(devnet, { nonce: String(nonce++) }), asAgent)
    assert.equal(runs.status, 200, JSON.stringify(runs.body))
    assert.equal((await post(b.base, '/ops/instances/ops-b/undrain', {}, asOps)).status, 200)
    await eventually('both know it is undrained', 2_000, async () =>
      (await request(a.base, '/ops/state', { headers: asOps })).body.drained.length === 0 ? true : undefined,
    )
  })
})
