// A chain reset on the same port and id (anvil restarted with fresh state, the contracts deployed
// again at the same addresses): the journal's records of the old chain neither answer 409 nor hold
// the relayer's nonce. Executes keep working, on the running gateway and after a restart.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { eventually } from '../support/eventually.ts'
import { post, request, rpc, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const dir = mkdtempSync(join(tmpdir(), 'chain-reset-test-'))
after(() => rmSync(dir, { recursive: true, force: true }))
const chainHeader = { 'x-chain-id': '31337' }

/** Stops the node and starts a fresh one on the same port, with the contracts deployed again. */
async function resetChain(devnet: Devnet): Promise<Devnet> {
  await devnet.stop()
  const fresh = await startDevnet({ port: devnet.anvil.port })
  assert.deepEqual(fresh.contracts, devnet.contracts, 'the same contract addresses (the deployer nonces repeat)')
  return fresh
}

async function execute(gateway: TestGateway, devnet: Devnet, nonce: string) {
  return post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce }), chainHeader)
}

describe('a chain reset under the journal', () => {
  it('an intent executed on the old chain executes again on the new one (not replayed from the journal), and later executes do not hang', async () => {
    let devnet = await startDevnet()
    // Slow reconciliation: the request path alone must get this right.
    const gateway = await startTestGateway({
      chains: [devnet.chain],
      storageOptions: { sqlite: { path: join(dir, 'a.sqlite'), synchronous: 'normal' } },
      reconcileIntervalMs: 60_000,
    })
    try {
      const first = await execute(gateway, devnet, '0')
      assert.equal(first.status, 200, first.text)
      const repeat = await execute(gateway, devnet, '0')
      assert.equal(repeat.status, 200, 'executed once on this chain')
      assert.equal(repeat.body.replayed, true, 'the repeat is answered from the journal')

      devnet = await resetChain(devnet)
      const again = await execute(gateway, devnet, '0')
      assert.equal(
        again.status,
        200,
        `executed on the new chain, not answered from the journal: ${again.text}\n${gateway.logs.join('')}`,
      )
      assert.equal(again.body.replayed, undefined, 'sent again on the new chain, not replayed')
      assert.notEqual(again.body.blockNumber, undefined)
      assert.ok(
        gateway.logs.some((l) => l.includes('the chain was reset')),
        'the reset is logged',
      )
      assert.ok(
        gateway.logs.some((l) => l.includes('neither its transaction nor its nonce used')),
        'what was found is logged',
      )
      const history = await request(gateway.baseUrl, `/intents/${again.body.intentHash}`)
      assert.equal(history.status, 200)
      assert.equal(history.body.transactionHash, again.body.transactionHash)
      // Its relayer nonce was read again: the next execute is mined, not queued behind a gap.
      const next = await execute(gateway, devnet, '1')
      assert.equal(next.status, 200, next.text)
      const replayed = await execute(gateway, devnet, '0')
      assert.deepEqual(
        [replayed.status, replayed.body.replayed, replayed.body.transactionHash],
        [200, true, again.body.transactionHash],
        'executed once on the new chain',
      )
    } finally {
      await gateway.close()
      await devnet.stop()
    }
  })

  it('a transaction journaled pending on the old chain is dropped, not rebroadcast into a nonce gap, at the next start and after', async (t) => {
    let devnet = await startDevnet()
    // Stopped whatever fails (the node of the moment, after a reset): one left running keeps the file from exiting.
    t.after(() => devnet.stop())
    const path = join(dir, 'b.sqlite')
    // Executes that must mine get seconds for their receipt (on a loaded CI machine 300 ms was once
    // too short: 202); only the one sent with mining off waits out a short receipt timeout.
    const options = {
      storageOptions: { sqlite: { path, synchronous: 'normal' as const } },
      reconcileIntervalMs: 200,
      receiptTimeoutMs: 10_000,
    }
    let gateway = await startTestGateway({ chains: [devnet.chain], ...options, receiptTimeoutMs: 3_000 })
    let pendingHash: string
    try {
      assert.equal((await execute(gateway, devnet, '0')).status, 200)
      assert.equal((await execute(gateway, devnet, '1')).status, 200)
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
      const pending = await execute(gateway, devnet, '2')
      assert.equal(pending.status, 202, pending.text)
      pendingHash = pending.body.intentHash
    } finally {
      await gateway.close()
    }

    devnet = await resetChain(devnet)
    gateway = await startTestGateway({ chains: [devnet.chain], ...options })
    try {
      // At start-up, before any request: the old chain's records were checked against the new one.
      const logs = gateway.logs.join('\n')
      assert.match(logs, /journal records of another instance of this chain/)
      assert.match(logs, /journaled transaction dropped/)
      assert.match(logs, /executed record of a reset chain retired/)
      assert.equal(await gateway.journal.pendingCount(), 0, 'nothing holds the relayer nonce')
      const dropped = await request(gateway.baseUrl, `/intents/${pendingHash}`)
      assert.equal(dropped.body.state, 'dropped', dropped.text)
      assert.match(dropped.body.detail, /another instance of chain/)

      for (const nonce of ['3', '2', '0']) {
        const res = await execute(gateway, devnet, nonce)
        assert.equal(res.status, 200, `intent ${nonce} executes on the new chain: ${res.text}`)
      }
    } finally {
      await gateway.close()
    }
    // Across another restart: nothing left unsettled, execution goes on.
    gateway = await startTestGateway({ chains: [devnet.chain], ...options })
    try {
      assert.equal(await gateway.journal.pendingCount(), 0)
      const res = await eventually('an execute', 20_000, async () => {
        const r = await execute(gateway, devnet, '4')
        return r.status === 200 ? r : undefined
      })
      assert.equal(res.status, 200)
      assert.equal(
        (await execute(gateway, devnet, '1')).status,
        200,
        "the old chain's executed intent 1 runs on the new chain once",
      )
      const repeat = await execute(gateway, devnet, '1')
      assert.equal(repeat.status, 200)
      assert.equal(repeat.body.replayed, true)
    } finally {
      await gateway.close()
    }
  })
})
