// The Sui relayer key's hold in a fleet, against a real PostgreSQL lease table: one instance at a
// time may sign with the key, the other takes it over when the holder's lease ends (it died) or is
// given back (clean shutdown), and no moment exists where both may sign.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createSuiAdapter } from '../../src/chains/sui/createSuiAdapter.ts'
import { encodeSuiIntent } from '../../src/chains/sui/encodeSuiIntent.ts'
import { holdSuiRelayerKey, type SuiKeyHold } from '../../src/chains/sui/holdSuiRelayerKey.ts'
import { suiRuntime } from '../../src/chains/sui/suiRuntime.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { RelayerLeases } from '../../src/ports/relayerLeases.ts'
import { createLocalRelayerLeases } from '../../src/ports/relayerLeases.ts'
import { createPostgresRelayerLeases } from '../../src/store/postgres/createPostgresRelayerLeases.ts'
import { openPostgresJournal } from '../../src/store/postgres/openPostgresJournal.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { suiRelayer, suiSender } from '../support/suiGateway.ts'
import { startSuiStandIn } from '../support/suiStandIn.ts'

const ttlMs = 1_200
const logger = createLogger({ level: 'silent' })
const relayer = `0x${'5a'.repeat(32)}`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('the Sui relayer key held by one instance at a time (PostgreSQL leases)', () => {
  let database: TestDatabase
  const closers: Array<() => unknown> = []
  before(async () => {
    database = await createTestDatabase('suikey')
    await (await openPostgresJournal({ url: database.url })).close() // the tables
  })
  after(async () => {
    for (const close of closers.reverse()) await close()
    await database?.drop()
  })
  const instance = (instanceId: string, chainId = 'sui:localnet') => {
    const leases = createPostgresRelayerLeases({ url: database.url, instanceId, ttlMs })
    const hold = holdSuiRelayerKey({ leases, chainId, relayer, logger })!
    closers.push(
      () => leases.close(),
      () => hold.close(),
    )
    return { leases, hold }
  }
  /** Samples both holds every 10 ms until `b` may sign; with `exclusive`, never both at once (`a` died but its clock runs on). */
  const watchHandover = async (
    a: SuiKeyHold,
    b: SuiKeyHold,
    timeoutMs: number,
    { exclusive }: { exclusive: boolean },
  ) => {
    const started = Date.now()
    while (Date.now() - started < timeoutMs) {
      if (exclusive) assert.ok(!(a.holdsNow() && b.holdsNow()), 'both instances may sign with the key at once')
      if (await b.canSendNow()) {
        if (exclusive) assert.equal(a.holdsNow(), false, 'both instances may sign with the key at once')
        return Date.now() - started
      }
      await sleep(10)
    }
    throw new Error(`the key was not taken over within ${timeoutMs} ms`)
  }

  it('one instance alone (no shared leases) needs no hold', () => {
    assert.equal(
      holdSuiRelayerKey({ leases: createLocalRelayerLeases(), chainId: 'sui:localnet', relayer, logger }),
      undefined,
    )
  })

  it('the first instance holds the key, the second may not sign, and takes the key over only after the holder stops renewing and its lease ends', async (t) => {
    const a = instance('a')
    assert.equal(await a.hold.canSendNow(), true)
    const b = instance('b')
    assert.equal(await b.hold.canSendNow(), false)
    assert.equal(b.hold.holdsLease(), false)
    // Several renewals later: still a's.
    await sleep(ttlMs)
    assert.equal(await a.hold.canSendNow(), true)
    assert.equal(await b.hold.canSendNow(), false)

    // a dies: no renewal, no release.
    a.hold.close()
    const tookMs = await watchHandover(a.hold, b.hold, ttlMs * 3, { exclusive: true })
    t.diagnostic(`taken over ${tookMs} ms after the holder stopped (TTL ${ttlMs} ms)`)
    // Its last renewal was at most a sixth of the TTL before; b asks every sixth.
    assert.ok(tookMs <= ttlMs + ttlMs / 3 + 500, `taken over after ${tookMs} ms (TTL ${ttlMs} ms)`)
    assert.ok(tookMs >= ttlMs / 2, `taken over after ${tookMs} ms, before a's lease can have ended`)
    assert.equal(a.hold.holdsNow(), false)
    assert.equal(a.hold.holdsLease(), false)
    assert.equal(b.hold.holdsLease(), true)
  })

  it('a clean shutdown gives the key back: the other instance takes it at its next renewal, not at the end of the lease', async () => {
    const chainId = 'sui:testnet'
    const a = instance('a2', chainId)
    assert.equal(await a.hold.canSendNow(), true)
    const b = instance('b2', chainId)
    assert.equal(await b.hold.canSendNow(), false)
    a.hold.close()
    // As createGateway shuts down: the adapters closed (no send under way), then the leases given back.
    await a.leases.releaseAll()
    const tookMs = await watchHandover(a.hold, b.hold, ttlMs * 3, { exclusive: false })
    assert.ok(tookMs <= ttlMs / 6 + 400, `taken after ${tookMs} ms`)
  })

  it('the key is held per chain: the same key on two networks is two holds', async () => {
    const a = instance('a3', 'sui:devnet')
    const b = instance('b3', 'sui:mainnet')
    assert.equal(await a.hold.canSendNow(), true)
    assert.equal(await b.hold.canSendNow(), true)
  })

  it('a holder whose lease lapses (the database cut, no renewal) signs nothing once its local deadline passes: the prepared execute answers 503 and nothing reaches the node', async () => {
    const standIn = await startSuiStandIn({ relayer: suiRelayer.toSuiAddress() })
    closers.push(() => standIn.close())
    const real = createPostgresRelayerLeases({ url: database.url, instanceId: 'cut', ttlMs })
    closers.push(() => real.close())
    let cut = false
    // The same store, its database unreachable while `cut`.
    const leases: RelayerLeases = {
      ...real,
      instanceId: real.instanceId,
      ttlMs: real.ttlMs,
      holdExclusive: (scope, key) =>
        cut ? Promise.reject(new Error('connect ECONNREFUSED')) : real.holdExclusive!(scope, key),
    }
    const adapter = createSuiAdapter({
      chain: { chainId: 'sui:localnet', rpcUrl: standIn.url, packageId: standIn.packageId, hubId: standIn.hubId },
      relayerSecretKey: suiRelayer.getSecretKey(),
      rpcTimeoutMs: 1_000,
      logger,
      leases,
    })
    closers.push(() => adapter.close())
    assert.equal(await adapter.canSendNow!(), true)
    assert.equal(adapter.holdsRelayer!(suiRelayer.toSuiAddress()), true)
    const body = {
      sender: suiSender.toSuiAddress(),
      target: `0x${'22'.repeat(32)}`,
      data: '0x',
      value: '1000',
      nonce: '7',
      policyId: standIn.policyId,
    }
    const intent = parseIntent(body as never, suiRuntime)
    const { signature } = await suiSender.signPersonalMessage(encodeSuiIntent(intent))
    const preflight = await adapter.prepareExecution(intent, `0x${Buffer.from(signature, 'base64').toString('hex')}`)
    assert.ok(preflight.ok)
    cut = true
    // Two thirds of the TTL after the last renewal: past the local deadline, before the lease can end in the database.
    await sleep((ttlMs * 2) / 3 + 50)
    assert.equal(await adapter.canSendNow!(), false)
    let signed = false
    await assert.rejects(
      preflight.send({ onSigned: () => void (signed = true) }),
      (err: Error & { code?: string; status?: number; headers?: Record<string, string> }) => {
        assert.equal(err.code, 'RELAYER_UNAVAILABLE')
        assert.equal(err.status, 0x40)
        assert.equal(err.headers?.['retry-after'], '2')
        assert.match(
          err.message,
          /no longer holds the Sui relayer key of sui:localnet \(its lease lapsed\): nothing was signed/,
        )
        return true
      },
    )
    assert.equal(signed, false)
    assert.equal(standIn.calls.filter((c) => c.method === 'ExecuteTransaction').length, 0)
    // Its records are still its own to reconcile until the lease could end in the database.
    assert.equal(adapter.holdsRelayer!(suiRelayer.toSuiAddress()), true)
    // The database back: the lease (still this instance's) is renewed and sending resumes.
    cut = false
    assert.equal(await adapter.canSendNow!(), true)
  })
})
