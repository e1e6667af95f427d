// Fencing: an instance cut off from PostgreSQL for longer than its relayer lease must never
// broadcast, with the key another instance took meanwhile, what it signed before the partition.
// A real anvil, a real PostgreSQL (a database of this file's own) reached by the instance through a
// TCP relay of the test's that it cuts and heals; the other instance is a second lease store on the
// same database. The send's journal write is held across the partition (as a write stuck in a
// partition lands late) and let through once the key has changed hands.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createPublicClient, type Hex, http, parseEther, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { startTcpStall, type TcpStall } from '../../bench/chaos/tcpStall.ts'
import { type Anvil, startAnvil } from '../../src/chains/evm/devnet/startAnvil.ts'
import { createRelayerPool, type RelayerPool } from '../../src/chains/evm/relayer/createRelayerPool.ts'
import { RelayerLeaseMovedError } from '../../src/errors/relayerLeaseMovedError.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { SignedExecution } from '../../src/ports/chainAdapter.ts'
import { createPostgresRelayerLeases } from '../../src/store/postgres/createPostgresRelayerLeases.ts'
import { openPostgresJournal } from '../../src/store/postgres/openPostgresJournal.ts'
import { eventually } from '../support/eventually.ts'
import { claimOf } from '../support/journalContract.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { rpc } from '../support/testGateway.ts'

const ttlMs = 1_200
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('relayer lease fencing (a partition from PostgreSQL longer than a lease)', () => {
  let anvil: Anvil
  let database: TestDatabase
  const closing: Array<() => Promise<unknown>> = []
  before(async () => {
    anvil = await startAnvil()
    database = await createTestDatabase('fencing')
    await (await openPostgresJournal({ url: database.url })).close() // the tables
  })
  after(async () => {
    for (const c of closing.reverse()) await c().catch(() => {})
    await database?.drop()
    await anvil?.stop()
  })

  /** Instance `a`: a relayer pool whose lease store reaches PostgreSQL only through `link`; one funded key. */
  async function partitionedInstance(chain: string) {
    const account = privateKeyToAccount(generatePrivateKey())
    await rpc(anvil.rpcUrl, 'anvil_setBalance', [account.address, toHex(parseEther('10'))])
    const server = new URL(database.url)
    const link: TcpStall = await startTcpStall({ host: server.hostname, port: Number(server.port || 5432) })
    closing.push(() => link.close())
    const viaLink = new URL(database.url)
    viaLink.port = String(link.port)
    const leases = createPostgresRelayerLeases({ url: viaLink.toString(), instanceId: `a-${chain}`, ttlMs })
    closing.push(() => leases.close())
    const logs: string[] = []
    const pool: RelayerPool = createRelayerPool({
      accounts: [account],
      client: createPublicClient({ transport: http(anvil.rpcUrl) }),
      chainId: anvil.chainId,
      chain,
      logger: createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } }),
      leases,
      minBalance: async () => 0n,
    })
    closing.push(() => pool.close())
    await pool.start()
    assert.equal(pool.view()[0]!.held, true, 'a holds the key at first')
    // The other instance, on the database directly.
    const other = createPostgresRelayerLeases({ url: database.url, instanceId: `b-${chain}`, ttlMs })
    closing.push(() => other.close())
    return { account, link, pool, other, logs }
  }

  /** One send from `pool` whose journal write waits for `land` (then `record`, if given); resolves once signed. */
  async function sendHeld(pool: RelayerPool, record?: (tx: SignedExecution) => Promise<void>) {
    let land!: () => void
    const landed = new Promise<void>((r) => (land = r))
    let signedHash: Hex | undefined
    const { relayer, done } = pool.take()
    const result = relayer
      .send(
        { to: '0x000000000000000000000000000000000000dEaD', data: '0x', gas: 30_000n },
        {
          onSigned: async (tx) => {
            signedHash = tx.id as Hex
            await landed
            await record?.(tx)
          },
        },
      )
      .finally(done)
    await eventually('the send signed', 5_000, async () => signedHash)
    return { hash: signedHash!, land, result }
  }

  const onChain = async (hash: Hex) => rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [hash])

  it('does not broadcast what it signed before the partition once another instance holds the key', async () => {
    const chain = `eip155:${anvil.chainId}-held-by-b`
    const { account, link, pool, other, logs } = await partitionedInstance(chain)
    const nonceBefore = Number(await rpc(anvil.rpcUrl, 'eth_getTransactionCount', [account.address, 'pending']))
    const send = await sendHeld(pool)
    link.cut()
    await sleep(ttlMs + 300)
    const taken = await other.claim(chain, [account.address])
    assert.deepEqual(
      taken.map((l) => [l.relayer, l.epoch]),
      [[account.address, 2]],
      "b takes the key under a new epoch once a's lease ended",
    )
    link.heal()
    // The journal write lands late, after the partition: a must not send.
    send.land()
    const result = await send.result
    assert.equal(result.accepted, false, 'answered as a broadcast that did not happen')
    assert.equal(await onChain(send.hash), null, 'the node never saw it')
    assert.equal(
      Number(await rpc(anvil.rpcUrl, 'eth_getTransactionCount', [account.address, 'pending'])),
      nonceBefore,
      'no nonce of the key used by a',
    )
    assert.ok(logs.some((l) => l.includes('not broadcast: the relayer key was leased to another instance meanwhile')))
  })

  it('does not broadcast it either when the key came back to it under a later epoch (another instance held it between)', async () => {
    const chain = `eip155:${anvil.chainId}-back-to-a`
    const { account, link, pool, other } = await partitionedInstance(chain)
    const send = await sendHeld(pool)
    link.cut()
    await sleep(ttlMs + 300)
    assert.deepEqual(
      (await other.claim(chain, [account.address])).map((l) => l.epoch),
      [2],
    )
    // b sends from the key meanwhile (its own transaction at the nonce a signed at), then gives the key back.
    await other.releaseAll()
    link.heal()
    await eventually('a holds the key again', 10_000, async () => (pool.view()[0]!.held ? true : undefined))
    send.land()
    const result = await send.result
    assert.equal(result.accepted, false)
    assert.equal(await onChain(send.hash), null, 'signed under epoch 1, never sent under epoch 3')
    // The key is a's again: a new send goes out (its nonce read again from the node).
    const { relayer, done } = pool.take()
    const next = await relayer
      .send({ to: '0x000000000000000000000000000000000000dEaD', data: '0x', gas: 30_000n })
      .finally(done)
    assert.equal(next.accepted, true)
    assert.notEqual(await onChain(next.transactionHash), null)
  })

  it('refuses a journal write that lands after the key passed to another instance: the new holder finds no transaction it did not count', async () => {
    const chain = `eip155:${anvil.chainId}-late-record`
    const { account, link, pool, other } = await partitionedInstance(chain)
    // a's journal, on the database directly: only its write's timing is held, by the test.
    const journal = await openPostgresJournal({ url: database.url, instanceId: `a-${chain}` })
    closing.push(async () => journal.close())
    const claim = async (n: number) => {
      const c = await journal.claim(claimOf(n, BigInt(n), chain))
      assert.ok(c.ok)
      return c.record
    }
    // Landing while the key is a's under the epoch it was signed under: journaled and sent.
    const inTime = await claim(1)
    const first = await sendHeld(pool, (tx) => journal.recordSigned(inTime, tx))
    first.land()
    assert.equal((await first.result).accepted, true)
    assert.deepEqual(
      (await journal.pending({ chainId: chain, relayer: account.address })).map((r) => r.transaction?.id),
      [first.hash],
    )
    // Landing after b took the key: refused, so b's nonce floor and reconciler never meet it.
    const late = await claim(2)
    const send = await sendHeld(pool, (tx) => journal.recordSigned(late, tx))
    link.cut()
    await sleep(ttlMs + 300)
    assert.deepEqual(
      (await other.claim(chain, [account.address])).map((l) => l.epoch),
      [2],
    )
    link.heal()
    send.land()
    await assert.rejects(send.result, RelayerLeaseMovedError)
    assert.deepEqual(
      (await journal.pending({ chainId: chain, relayer: account.address })).map((r) => r.transaction?.id),
      [first.hash],
      'the late transaction is not journaled',
    )
    assert.equal(await onChain(send.hash), null, 'the node never saw it')
  })

  it('signs nothing from a key taken before its lease ended and sent after', async () => {
    const chain = `eip155:${anvil.chainId}-lapsed`
    const { account, link, pool } = await partitionedInstance(chain)
    const nonceBefore = Number(await rpc(anvil.rpcUrl, 'eth_getTransactionCount', [account.address, 'pending']))
    const { relayer, done } = pool.take()
    link.cut()
    await sleep(ttlMs + 300)
    let signed = false
    await assert.rejects(
      relayer
        .send(
          { to: '0x000000000000000000000000000000000000dEaD', data: '0x', gas: 30_000n },
          { onSigned: () => void (signed = true) },
        )
        .finally(done),
      RelayerLeaseMovedError,
    )
    link.heal()
    assert.equal(signed, false, 'nothing signed')
    assert.equal(Number(await rpc(anvil.rpcUrl, 'eth_getTransactionCount', [account.address, 'pending'])), nonceBefore)
  })
})
