// Two gateway processes on one PostgreSQL journal sharing one Sui relayer key, against the Sui
// stand-in (no Sui node or Move code runs here: the stand-in scripts the module's answers, and
// refuses, as a node does, a transaction whose gas coin version was already spent). The key is
// held by one instance at a time: the other validates, answers execute 503 no-relayer-key without
// claiming the intent, and takes the key over when the holder is killed, within the lease's TTL
// (plus one renewal period), delivering what the dead holder left in flight.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { encodeSuiIntent } from '../../src/chains/sui/encodeSuiIntent.ts'
import { suiRuntime } from '../../src/chains/sui/suiRuntime.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import { openPostgresJournal } from '../../src/store/postgres/openPostgresJournal.ts'
import { eventually } from '../support/eventually.ts'
import { startGatewayProcess } from '../support/gatewayProcess.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import type { GatewayProcess } from '../support/runGateway.ts'
import { suiRelayer, suiSender } from '../support/suiGateway.ts'
import { type SuiStandIn, startSuiStandIn } from '../support/suiStandIn.ts'
import { type HttpResult, post } from '../support/testGateway.ts'

const ttlMs = 3_000
const sui = { 'x-chain-id': 'sui:localnet' }
const noRelayerKey = 'urn:intent-gateway:problem:no-relayer-key'

describe('a fleet sharing one Sui relayer key: one instance at a time sends with it (stand-in node)', () => {
  let standIn: SuiStandIn
  let database: TestDatabase
  let db: pg.Pool
  const running = new Set<GatewayProcess>()
  let nonce = 1_000

  before(async () => {
    standIn = await startSuiStandIn({ relayer: suiRelayer.toSuiAddress() })
    database = await createTestDatabase('suifleet')
    db = new pg.Pool({ connectionString: database.url, max: 2 })
  })
  after(async () => {
    for (const gw of running) gw.child.kill('SIGKILL')
    await Promise.all([...running].map((gw) => gw.exit))
    await db?.end()
    await database?.drop()
    await standIn?.close()
  })

  const start = async (id: string) => {
    const on = (value: string) => JSON.stringify({ 'sui:localnet': value })
    const { gw, baseUrl } = await startGatewayProcess({
      EXECUTOR_ADDRESSES: on(standIn.packageId),
      VALIDATOR_ADDRESSES: on(standIn.packageId),
      REGISTRY_ADDRESSES: on(standIn.hubId),
      RPC_URLS: on(standIn.url),
      SUI_RELAYER_PRIVATE_KEY: suiRelayer.getSecretKey(),
      DATABASE_URL: database.url,
      INSTANCE_ID: id,
      RELAYER_LEASE_TTL_MS: String(ttlMs),
      RECONCILE_INTERVAL_MS: '300',
      RPC_TIMEOUT_MS: '1000',
      HOST: '127.0.0.1',
      PORT: '0',
    })
    running.add(gw)
    return { id, gw, baseUrl }
  }
  const kill = async (gw: GatewayProcess) => {
    gw.child.kill('SIGKILL')
    await gw.exit
    running.delete(gw)
  }
  const signed = async () => {
    const body = {
      sender: suiSender.toSuiAddress(),
      target: `0x${'22'.repeat(32)}`,
      data: '0x',
      value: '1000',
      nonce: String(nonce++),
      policyId: standIn.policyId,
    }
    const intent = parseIntent(body as never, suiRuntime)
    const { signature } = await suiSender.signPersonalMessage(encodeSuiIntent(intent))
    return {
      body: { ...body, signature: `0x${Buffer.from(signature, 'base64').toString('hex')}` },
      hash: suiRuntime.hashIntent(intent),
    }
  }
  const rows = async (hash: string) =>
    (
      await db.query<{ state: string; tx_id: string | null; instance_id: string | null }>(
        'SELECT state, tx_id, instance_id FROM executions WHERE intent_hash = $1',
        [hash],
      )
    ).rows
  const executeCalls = () => standIn.calls.filter((c) => c.method === 'ExecuteTransaction')
  const assertNoRelayerKey = (res: HttpResult) => {
    assert.equal(res.status, 503, res.text)
    assert.equal(res.headers.get('x-erc1066-status'), '0x40')
    assert.equal(res.headers.get('retry-after'), '2')
    assert.equal(res.body.type, noRelayerKey)
    assert.match(
      res.body.detail,
      /this instance holds no relayer key for sui:localnet now .*nothing was claimed or sent/,
    )
  }

  let a: Awaited<ReturnType<typeof start>>
  let b: Awaited<ReturnType<typeof start>>

  it('the first instance holds the key and executes; the second validates, and answers execute 503 no-relayer-key with no journal claim and nothing sent', async () => {
    a = await start('sui-a')
    b = await start('sui-b')
    const first = await signed()
    const sent = await post(a.baseUrl, '/intents/execute', first.body, sui)
    assert.equal(sent.status, 200, sent.text)
    assert.equal(sent.headers.get('x-erc1066-status'), '0x11')

    const validated = await post(b.baseUrl, '/intents/validate', (await signed()).body, sui)
    assert.equal(validated.status, 200, validated.text)
    assert.equal(validated.headers.get('x-erc1066-status'), '0x01')

    const before = executeCalls().length
    const other = await signed()
    assertNoRelayerKey(await post(b.baseUrl, '/intents/execute', other.body, sui))
    assert.deepEqual(await rows(other.hash), [], 'no journal claim')
    assert.equal(executeCalls().length, before, 'nothing sent')
    // A repeat of the intent the holder sent is answered with its outcome by either instance.
    const replayed = await post(b.baseUrl, '/intents/execute', first.body, sui)
    assert.equal(replayed.status, 200, replayed.text)
    assert.equal(replayed.body.replayed, true)
    // A claim another instance made and has sent nothing for (its request settles a payment, or the
    // instance died before signing): b has no outcome to replay, so 503 claim-held to retry, never
    // a 202 for a transaction nobody sent. Nothing claimed, sent or changed by b.
    const holder = await openPostgresJournal({ url: database.url, instanceId: 'sui-holder' })
    try {
      const held = await signed()
      const intent = parseIntent(held.body as never, suiRuntime)
      assert.ok((await holder.claim({ chainId: 'sui:localnet', intentHash: held.hash, intent })).ok)
      const res = await post(b.baseUrl, '/intents/execute', held.body, sui)
      assert.equal(res.status, 503, res.text)
      assert.equal(res.headers.get('x-erc1066-status'), '0x40')
      assert.equal(res.headers.get('retry-after'), '2')
      assert.equal(res.body.type, 'urn:intent-gateway:problem:claim-held')
      assert.equal(res.body.replayed, undefined)
      assert.deepEqual(
        (await rows(held.hash)).map((r) => [r.state, r.instance_id]),
        [['claimed', 'sui-holder']],
      )
      assert.equal(executeCalls().length, before, 'nothing sent')
    } finally {
      await holder.close()
    }
    const lease = (
      await db.query('SELECT chain_id, relayer, instance_id FROM relayer_leases WHERE chain_id = $1', ['sui:localnet'])
    ).rows
    assert.deepEqual(lease, [{ chain_id: 'sui:localnet', relayer: suiRelayer.toSuiAddress(), instance_id: 'sui-a' }])
  })

  it('each intent sent to both instances at once runs in one transaction, with no gas coin version spent twice', async () => {
    const before = executeCalls().length
    const intents = await Promise.all(Array.from({ length: 12 }, () => signed()))
    const answers = await Promise.all(
      intents.flatMap(({ body }) => [
        post(a.baseUrl, '/intents/execute', body, sui),
        post(b.baseUrl, '/intents/execute', body, sui),
      ]),
    )
    for (let i = 0; i < intents.length; i++) {
      const [fromA, fromB] = [answers[2 * i]!, answers[2 * i + 1]!]
      assert.equal(fromA.status, 200, fromA.text)
      assert.equal(fromA.headers.get('x-erc1066-status'), '0x11')
      // b holds no key: it sends nothing, and answers either the outcome (a had journaled it) or no-relayer-key.
      if (fromB.status === 503) assertNoRelayerKey(fromB)
      else assert.ok([200, 202].includes(fromB.status) && fromB.body.replayed === true, fromB.text)
      assert.deepEqual(
        (await rows(intents[i]!.hash)).map((r) => [r.state, r.instance_id]),
        [['mined', 'sui-a']],
      )
    }
    const sent = executeCalls().slice(before)
    assert.equal(sent.length, intents.length, 'one transaction per intent, none refused')
    const versions = sent.map((c) => c.transaction!.gasData.payment![0]!.version)
    assert.equal(new Set(versions).size, versions.length, `each gas coin version spent once: ${versions.join(', ')}`)
  })

  it("kill -9 of the holder with a transaction in flight: the other takes the key over within the TTL and a renewal, delivers the dead holder's transaction first, then executes", async (t) => {
    // The holder signs and journals a transaction whose broadcast the node never answers.
    standIn.faults.set('ExecuteTransaction', { kind: 'hang' })
    const inFlight = await signed()
    const pending = post(a.baseUrl, '/intents/execute', inFlight.body, sui).catch(() => undefined)
    const [record] = await eventually('the transaction journaled', 10_000, async () =>
      (await rows(inFlight.hash))[0]?.tx_id ? rows(inFlight.hash) : undefined,
    )
    assert.equal(record!.state, 'pending')
    await kill(a.gw)
    const killedAt = Date.now()
    await pending
    standIn.faults.clear()
    assert.equal(standIn.executed.has(record!.tx_id!), false, 'the node has not run it')

    // Until the lease ends, the survivor claims nothing; then it sends.
    let refused = 0
    const taken = await eventually('the survivor to execute', ttlMs * 4, async () => {
      const next = await signed()
      const res = await post(b.baseUrl, '/intents/execute', next.body, sui)
      if (res.status === 503) {
        assertNoRelayerKey(res)
        assert.deepEqual(await rows(next.hash), [], 'no journal claim')
        refused++
        return undefined
      }
      assert.equal(res.status, 200, res.text)
      return { res, hash: next.hash, afterMs: Date.now() - killedAt }
    })
    assert.equal(taken.res.headers.get('x-erc1066-status'), '0x11')
    assert.ok(refused > 0, "refused while the dead holder's lease lived")
    t.diagnostic(
      `taken over ${taken.afterMs} ms after the kill (TTL ${ttlMs} ms); ${refused} executes refused with no-relayer-key before`,
    )
    assert.ok(
      taken.afterMs <= ttlMs + ttlMs / 6 + 1_500,
      `taken over ${taken.afterMs} ms after the kill (TTL ${ttlMs} ms)`,
    )

    // The dead holder's journaled transaction is broadcast again by the new holder before it signs
    // anything on the key's gas coin (the same bytes, not a second spend of that coin version).
    const digests = [...standIn.executed.keys()]
    const firstNew = (await rows(taken.hash))[0]!.tx_id!
    assert.ok(digests.includes(record!.tx_id!), "the dead holder's transaction ran")
    assert.ok(digests.indexOf(record!.tx_id!) < digests.indexOf(firstNew), "before the new holder's first transaction")
    await eventually("the dead holder's transaction settled", 10_000, async () =>
      (await rows(inFlight.hash))[0]?.state === 'mined' ? true : undefined,
    )
    const replayed = await post(b.baseUrl, '/intents/execute', inFlight.body, sui)
    assert.equal(replayed.status, 200, replayed.text)
    assert.equal(replayed.body.replayed, true)
    const lease = (await db.query('SELECT instance_id FROM relayer_leases WHERE chain_id = $1', ['sui:localnet'])).rows
    assert.deepEqual(lease, [{ instance_id: 'sui-b' }])
  })
})
