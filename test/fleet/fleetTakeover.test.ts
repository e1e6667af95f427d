// A fleet of three gateway processes sharing four relayer keys; each instance in turn is killed
// with SIGKILL while its transactions are in flight (no block mined until it is dead), and a new
// instance takes its place. Nothing is lost or doubled: every intent runs on chain exactly once,
// the survivors take the dead instance's keys when its leases end, and the shares settle again.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Hex, parseEther, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { relayerShare } from '../../src/store/relayerShare.ts'
import { eventually } from '../support/eventually.ts'
import { chainEnv, relayersHeld, startGatewayProcess } from '../support/gatewayProcess.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import type { GatewayProcess } from '../support/runGateway.ts'
import { post, rpc, signedIntent } from '../support/testGateway.ts'

const mnemonic = 'test test test test test test test test test test test junk'
/** Keys no other part of the devnet uses, funded by the test. */
const pool = [30, 31, 32, 33].map((addressIndex) => mnemonicToAccount(mnemonic, { addressIndex }))
const poolKeys = pool.map((a) => toHex(a.getHdKey().privateKey!))
const ttlMs = 3_000
const noRelayerKey = 'urn:intent-gateway:problem:no-relayer-key'

type Instance = { id: string; gw: GatewayProcess; baseUrl: string }

describe('a fleet of three instances on four keys, each killed with SIGKILL in turn', () => {
  let devnet: Devnet
  let database: TestDatabase
  const running = new Set<GatewayProcess>()

  before(async () => {
    database = await createTestDatabase('fleet_kill')
    devnet = await startDevnet({ blockTime: 1 })
    for (const account of pool)
      await rpc(devnet.anvil.rpcUrl, 'anvil_setBalance', [account.address, toHex(parseEther('100'))])
  })
  after(async () => {
    for (const gw of running) gw.child.kill('SIGKILL')
    await devnet?.stop()
    await database?.drop()
  })

  it("loses and doubles nothing: every intent runs once, the dead instance's keys are taken over, the shares settle again", async (t) => {
    const { RELAYER_PRIVATE_KEY: _, ...base } = chainEnv(devnet)
    const start = async (id: string): Promise<Instance> => {
      const { gw, baseUrl } = await startGatewayProcess({
        ...base,
        RELAYER_PRIVATE_KEYS: poolKeys.join(','),
        DATABASE_URL: database.url,
        INSTANCE_ID: id,
        RELAYER_LEASE_TTL_MS: String(ttlMs),
        RECONCILE_INTERVAL_MS: '300',
        RECEIPT_TIMEOUT_MS: '8000',
        MAX_CONNECTIONS_PER_CLIENT: '10000',
      })
      running.add(gw)
      return { id, gw, baseUrl }
    }
    const settled = (instances: Instance[]) =>
      eventually(`shares settled over ${instances.map((i) => i.id).join(', ')}`, 20_000, async () => {
        const held = await Promise.all(instances.map((i) => relayersHeld(i.baseUrl)))
        const ids = instances.map((i) => i.id)
        const all = held.flat()
        if (new Set(all).size !== all.length) throw new Error(`one key held by two instances: ${JSON.stringify(held)}`)
        return held.every(
          (h, i) => h.length === relayerShare({ keys: poolKeys.length, instanceIds: ids, instanceId: ids[i]! }),
        )
          ? held
          : undefined
      })
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const unmined = async (address: string) =>
      (await publicClient.getTransactionCount({ address: address as Hex, blockTag: 'pending' })) -
      (await publicClient.getTransactionCount({ address: address as Hex, blockTag: 'latest' }))
    const fromBlock = await publicClient.getBlockNumber()

    let instances = await Promise.all(['k-0', 'k-1', 'k-2'].map(start))
    let nonce = 70_000
    const bodies: Array<Record<string, unknown>> = []
    let next = 3
    let unheld = 0
    for (let round = 0; round < 3; round++) {
      const held = await settled(instances)
      const victim = instances[0]!
      const victimKeys = held[0]!
      const partners = instances.slice(1)
      const batch = await Promise.all(
        Array.from({ length: 12 }, () => signedIntent(devnet, { nonce: String(nonce++) })),
      )
      bodies.push(...batch)
      // No block until the victim is dead: its transactions are surely in flight when it dies.
      await rpc(devnet.anvil.rpcUrl, 'evm_setIntervalMining', [0])
      // A third of the batch goes to the victim alone, so that it sends some of them whichever instance
      // wins the claims of the rest; the rest goes to the victim and a partner at once.
      const asked = batch.flatMap((body, i) => [
        post(victim.baseUrl, '/intents/execute', body).catch(() => undefined),
        ...(i % 3 === 0
          ? []
          : [post(partners[i % partners.length]!.baseUrl, '/intents/execute', body).catch(() => undefined)]),
      ])
      const logsOf = (i: Instance) =>
        i.gw
          .stdout()
          .split('\n')
          .filter((l) => /"level":(40|50)|execute sent|relayer/.test(l))
          .map((l) => `${i.id} ${l.slice(0, 400)}`)
          .join('\n')
      await eventually(`${victim.id} with transactions in flight`, 60_000, async () =>
        (await Promise.all(victimKeys.map(unmined))).some((n) => n > 0) ? true : undefined,
      ).catch((err: Error) => {
        throw new Error(
          `${err.message}; it holds ${JSON.stringify(victimKeys)}\n${[victim, ...partners].map(logsOf).join('\n')}`,
        )
      })
      victim.gw.child.kill('SIGKILL')
      await victim.gw.exit
      running.delete(victim.gw)
      await rpc(devnet.anvil.rpcUrl, 'evm_setIntervalMining', [1])
      const answers = await Promise.all(asked)
      const faults = () =>
        [victim, ...partners]
          .flatMap((i) =>
            i.gw
              .stdout()
              .split('\n')
              .filter((l) => /"level":(40|50)/.test(l))
              // viem's message quotes the raw transaction sent before the node's answer ("Details:"): left out.
              .map((l) => `${i.id} ${l.replace(/Request body: \{.*?\}\\n/g, 'Request body: …\\n').slice(0, 1200)}`),
          )
          .join('\n')
      for (const res of answers.filter((r) => r !== undefined)) {
        // A survivor whose lease lapsed under load (or passed on while it signed) claims and sends
        // nothing: 503 no-relayer-key, and the agents' retries below execute the intent.
        if (res!.status === 503 && res!.body?.type === noRelayerKey) {
          unheld++
          continue
        }
        assert.ok([200, 202].includes(res!.status), `${res!.status} ${res!.text}\n${faults()}`)
      }
      // A new instance takes the dead one's place; the survivors took its keys when its leases ended.
      instances = [...partners, await start(`k-${next++}`)]
    }
    await settled(instances)
    if (unheld > 0) t.diagnostic(`${unheld} answers 503 no-relayer-key (a lease lapsed or passed on), sent again below`)

    // The agents retry every intent on a live instance: each is executed, or already was.
    for (const [i, body] of bodies.entries()) {
      const res = await post(instances[i % instances.length]!.baseUrl, '/intents/execute', body)
      // 409 0x22 only where reconciliation found the intent executed by a transaction it cannot name.
      assert.ok(
        res.status === 200 || res.status === 202 || (res.status === 409 && res.body.erc1066Status === '0x22'),
        `${res.status} ${res.text}`,
      )
    }
    const hashes = await Promise.all(
      bodies.map(
        async (body) => (await post(instances[0]!.baseUrl, '/intents/validate', body)).headers.get('x-intent-hash')!,
      ),
    )
    const event = intentExecutorArtifact.abi.find((e) => e.type === 'event' && e.name === 'IntentExecuted')!
    const logs = await eventually('every intent on chain', 30_000, async () => {
      const found = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock })
      return hashes.every((h) => found.some((l) => l.args.intentHash === h)) ? found : undefined
    })
    for (const hash of hashes)
      assert.equal(logs.filter((l) => l.args.intentHash === hash).length, 1, `${hash} executed exactly once`)
    for (const account of pool) {
      await eventually(`${account.address}: nothing stuck behind a nonce gap`, 20_000, async () =>
        (await unmined(account.address)) === 0 ? true : undefined,
      )
    }
    for (const { gw } of instances) {
      gw.child.kill('SIGTERM')
      assert.equal(await gw.exit, 0)
      running.delete(gw)
    }
  })
})
