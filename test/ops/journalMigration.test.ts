// A journal file written by the first gateway (schema 1) opened by this one against a real anvil:
// its executed record reads back over HTTP, and its pending EVM transaction, which the node never
// got, is broadcast again at start-up, byte for byte, and settles once. And the EVM relayer's nonce
// floor, derived from the journal's unsettled transactions (their details.txNonce).
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { encodeFunctionData, type Hex, keccak256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createEvmAdapter } from '../../src/chains/evm/createEvmAdapter.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { resolveChains } from '../../src/chains/evm/discovery/resolveChains.ts'
import { evmRuntime, toIntentTuple } from '../../src/chains/evm/evmRuntime.ts'
import { evmSignedExecution } from '../../src/chains/evm/evmSignedExecution.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { SignedExecution } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { openPostgresJournal, postgresJournalSchemaVersion } from '../../src/store/postgres/openPostgresJournal.ts'
import { journalSchemaVersion, openJournal } from '../../src/store/sqlite/openJournal.ts'
import { claimOf, mined, signedTx } from '../support/journalContract.ts'
import { createTestDatabase } from '../support/postgresDatabase.ts'
import { request, rpc, signedIntent, startTestGateway } from '../support/testGateway.ts'
import { undoLaterPostgresMigrations } from '../support/undoLaterPostgresMigrations.ts'
import { writeV1Journal } from '../support/v1Journal.ts'

const relayerAccount = privateKeyToAccount(devnetAccounts.relayer)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('journal upgrade and the EVM nonce floor, against anvil', () => {
  let devnet: Devnet
  let clients: ReturnType<typeof createDevClients>
  const dir = mkdtempSync(join(tmpdir(), 'journal-migration-test-'))
  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  })
  after(async () => {
    await devnet?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  /** A signed intent of the demo sender and the executeSigned call data that runs it. */
  async function signedCall(nonce: string): Promise<{ intent: Intent; intentHash: Hex; data: Hex }> {
    const body = await signedIntent(devnet, { nonce })
    const intent = parseIntent(body as never, evmRuntime)
    const data = encodeFunctionData({
      abi: intentExecutorArtifact.abi,
      functionName: 'executeSigned',
      args: [toIntentTuple(intent), body.signature as Hex],
    })
    return { intent, intentHash: evmRuntime.hashIntent(intent), data }
  }

  it('a pending EVM record in a schema-1 journal is broadcast again at start-up and settles; the executed one reads back', async () => {
    const { intent, intentHash, data } = await signedCall('701')
    const txNonce = await clients.publicClient.getTransactionCount({
      address: relayerAccount.address,
      blockTag: 'pending',
    })
    const fees = await clients.publicClient.estimateFeesPerGas()
    // Signed and journaled by the old gateway, which died before the broadcast reached the node.
    const raw = await relayerAccount.signTransaction({
      chainId: devnet.anvil.chainId,
      type: 'eip1559',
      to: devnet.contracts.executor,
      data,
      gas: 500_000n,
      nonce: txNonce,
      ...fees,
    })
    const transactionHash = keccak256(raw)
    const serialized = (i: Intent) => JSON.stringify(i, (_, v) => (typeof v === 'bigint' ? v.toString() : v))
    const executedHash = `0x${'ee'.repeat(32)}` as Hex
    const row = {
      chain_id: devnet.chain.chainId,
      sender: intent.sender.toLowerCase(),
      relayer: relayerAccount.address,
      created_at: Date.now() - 60_000,
      updated_at: Date.now() - 60_000,
    }
    const path = join(dir, 'journal.sqlite')
    writeV1Journal(path, [
      {
        ...row,
        intent_hash: executedHash,
        intent_nonce: '700',
        intent: serialized({ ...intent, nonce: 700n }),
        state: 'mined',
        status: 0x11,
        tx_nonce: txNonce - 1,
        transaction_hash: `0x${'ab'.repeat(32)}`,
        raw_transaction: '0x02c0',
        block_number: '3',
        gas_used: '90000',
        return_data: '0x',
      },
      {
        ...row,
        intent_hash: intentHash,
        intent_nonce: '701',
        intent: serialized(intent),
        state: 'pending',
        status: 0xf3,
        tx_nonce: txNonce,
        transaction_hash: transactionHash,
        raw_transaction: raw,
      },
    ])
    assert.equal(
      await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionByHash', [transactionHash]),
      null,
      'the node never had it',
    )

    const gateway = await startTestGateway({
      chains: [devnet.chain],
      storageOptions: { sqlite: { path, synchronous: 'full' } },
      reconcileIntervalMs: 200,
    })
    try {
      assert.ok(
        gateway.logs.some((l) => l.includes('the node had lost a journaled transaction')),
        'broadcast again before the gateway took requests',
      )
      const receipt = await clients.publicClient.waitForTransactionReceipt({ hash: transactionHash })
      assert.equal(receipt.status, 'success')
      assert.equal(receipt.from.toLowerCase(), relayerAccount.address.toLowerCase())

      let done
      for (let i = 0; i < 100; i++) {
        done = await request(gateway.baseUrl, `/intents/${intentHash}`)
        if (done.status !== 202) break
        await sleep(100)
      }
      assert.equal(done?.status, 200, done?.text)
      assert.equal(done?.body.state, 'mined')
      assert.equal(done?.body.transactionHash, transactionHash, 'the very transaction the old gateway signed')
      assert.equal(done?.body.blockNumber, receipt.blockNumber.toString())
      assert.equal(await gateway.journal.pendingCount(), 0)

      const history = await request(gateway.baseUrl, `/intents/${executedHash}`)
      assert.equal(history.status, 200)
      assert.deepEqual(
        {
          state: history.body.state,
          transactionHash: history.body.transactionHash,
          blockNumber: history.body.blockNumber,
          gasUsed: history.body.gasUsed,
        },
        { state: 'mined', transactionHash: `0x${'ab'.repeat(32)}`, blockNumber: '3', gasUsed: '90000' },
      )
      const replay = await request(gateway.baseUrl, '/intents/execute', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-chain-id': '31337' },
        body: JSON.stringify(await signedIntent(devnet, { nonce: '701' })),
      })
      assert.ok(
        [200, 202].includes(replay.status) && replay.body.replayed === true,
        `the upgraded record still holds the intent: ${replay.text}`,
      )
      // Schema 3: the upgraded 'executed' record of nonce 700 names a transaction the chain never
      // had, and the intent's nonce is unused there: not answered from the journal, it executes.
      const stale = await request(gateway.baseUrl, '/intents/execute', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-chain-id': '31337' },
        body: JSON.stringify(await signedIntent(devnet, { nonce: '700' })),
      })
      assert.equal(stale.status, 200, stale.text)
      assert.equal(
        (await gateway.journal.get(executedHash))?.state,
        'dropped',
        'the stale record is retired, with the reason',
      )
    } finally {
      await gateway.close()
    }
  })

  it('the EVM relayer signs above the highest relayer nonce among the journal unsettled transactions', async () => {
    const [chain] = await resolveChains({
      chains: [devnet.chain],
      chainList: undefined,
      production: false,
      logger: createLogger({ level: 'silent' }),
    })
    const nodeNonce = await clients.publicClient.getTransactionCount({
      address: relayerAccount.address,
      blockTag: 'pending',
    })
    const held = (txNonce: number): SignedExecution =>
      evmSignedExecution.from({ relayer: relayerAccount.address, txNonce, rawTransaction: '0x02c0' })
    const asked: string[] = []
    const adapter = createEvmAdapter({
      chain: chain!,
      relayerPrivateKey: devnetAccounts.relayer,
      rpcTimeoutMs: 2_000,
      pollingIntervalMs: 20,
      logger: createLogger({ level: 'silent' }),
      unsettledTransactions: async (relayer) => {
        asked.push(relayer)
        return [held(nodeNonce + 4), held(nodeNonce + 2)]
      },
    })
    let sent: { transactionHash: string; receipt: Promise<unknown>; txNonce: number } | undefined
    try {
      const { intent } = await signedCall('702')
      const body = await signedIntent(devnet, { nonce: '702' })
      const preflight = await adapter.prepareExecution(intent, body.signature as Hex)
      assert.ok(preflight.ok)
      let signed: SignedExecution | undefined
      const submission = await preflight.send({ onSigned: (tx) => void (signed = tx) })
      sent = { ...submission, txNonce: evmSignedExecution.txNonce(signed!) }
      // Asked about this relayer only; more than once when the key's unmined transactions are not
      // all known here (the journal's, signed elsewhere): the outbox reads the nonce again to learn it.
      assert.ok(asked.length >= 1 && asked.every((a) => a === relayerAccount.address), `asked: ${asked.join(', ')}`)
      assert.deepEqual(signed?.details, { txNonce: nodeNonce + 5 })
      assert.equal(signed?.id, submission.transactionHash)
      const onNode = await clients.publicClient.getTransaction({ hash: submission.transactionHash as Hex })
      assert.equal(onNode.nonce, nodeNonce + 5)
    } finally {
      if (sent) {
        // Queued behind a gap: fill it with the relayer's own transfers, so that it mines and the
        // adapter's receipt watch ends.
        const wallet = clients.walletFor(devnetAccounts.relayer)
        for (let n = nodeNonce; n < sent.txNonce; n++)
          await wallet.sendTransaction({
            account: wallet.account!,
            chain: wallet.chain,
            to: relayerAccount.address,
            value: 0n,
            nonce: n,
          })
        const receipt = (await sent.receipt) as { state: string; transactionHash: string }
        assert.equal(receipt.transactionHash, sent.transactionHash)
      }
      await adapter.close()
    }
  })
})

// The Idempotency-Keys migration (SQLite schema 6, PostgreSQL schema 8) on a journal written by the
// gateway before it: that journal is this one's without the idempotency_keys table and at the
// version before (schema 6 and 8 add that table and its indexes, nothing else), so it is made by
// opening a journal, writing records, and taking the table and the version back off.
describe('journal upgrade to Idempotency-Keys (SQLite 5 → 6, PostgreSQL 7 → 8)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'journal-idempotency-migration-'))
  after(() => rmSync(dir, { recursive: true, force: true }))
  const key = (fingerprint: string) => ({
    scope: 'key:tenant01',
    key: 'upgrade',
    fingerprint,
    expiresAt: new Date(Date.now() + 60_000),
  })

  it('SQLite: a schema-5 journal is copied, upgraded to 6 keeping its records, and records keys', async () => {
    const path = join(dir, 'v5.sqlite')
    const before = openJournal({ path, synchronous: 'normal' })
    const held = await before.claim(claimOf(1))
    assert.ok(held.ok)
    await before.recordSigned(held.record, signedTx(1))
    await before.settle(held.record, mined)
    before.close()
    const db = new Database(path)
    // What schema 5 did not have: the Idempotency-Keys (6) and the console's audit (7).
    db.exec('DROP TABLE idempotency_keys; DROP TABLE ops_audit')
    db.pragma('user_version = 5')
    db.close()

    const journal = openJournal({ path, synchronous: 'normal' })
    try {
      assert.equal((await journal.get(claimOf(1).intentHash, 'eip155:1'))?.state, 'mined')
      assert.ok((await journal.claim({ ...claimOf(2), idempotencyKey: key('f2') })).ok)
      assert.equal((await journal.idempotencyKey('key:tenant01', 'upgrade'))?.fingerprint, 'f2')
      await assert.rejects(journal.claim({ ...claimOf(3), idempotencyKey: key('f3') }), /Idempotency-Key/)
    } finally {
      journal.close()
    }
    const upgraded = new Database(path, { readonly: true })
    assert.equal(upgraded.pragma('user_version', { simple: true }), journalSchemaVersion)
    upgraded.close()
    assert.ok(
      readdirSync(dir).some((name) => /^v5\.sqlite\.v5-\d+\.bak$/.test(name)),
      'the schema-5 file was copied before its upgrade',
    )
  })

  it('PostgreSQL: a schema-7 journal is upgraded to the latest once, keeping its records, and records keys', async () => {
    const database = await createTestDatabase('idemmigrate')
    try {
      const before = await openPostgresJournal({ url: database.url })
      const held = await before.claim(claimOf(1))
      assert.ok(held.ok)
      await before.recordSigned(held.record, signedTx(1))
      await before.settle(held.record, mined)
      await before.close()
      const client = new pg.Client({ connectionString: database.url })
      await client.connect()
      // Back to schema 7: without the Idempotency-Keys (8), the console's audit (9), the leases' epoch (10), the settlements' blocks (11) and the chain-instance index (12).
      await undoLaterPostgresMigrations(client)
      await client.query('DELETE FROM journal_migrations WHERE version >= 8')
      await client.end()

      // Two gateways starting at once: the migration runs once.
      const journals = await Promise.all([1, 2].map(() => openPostgresJournal({ url: database.url })))
      try {
        assert.equal((await journals[1]!.get(claimOf(1).intentHash, 'eip155:1'))?.state, 'mined')
        assert.ok((await journals[0]!.claim({ ...claimOf(2), idempotencyKey: key('f2') })).ok)
        assert.equal((await journals[1]!.idempotencyKey('key:tenant01', 'upgrade'))?.fingerprint, 'f2')
        await assert.rejects(journals[1]!.claim({ ...claimOf(3), idempotencyKey: key('f3') }), /Idempotency-Key/)
      } finally {
        for (const journal of journals) await journal.close()
      }
      const check = new pg.Client({ connectionString: database.url })
      await check.connect()
      const { rows } = await check.query('SELECT version FROM journal_migrations ORDER BY version')
      await check.end()
      assert.deepEqual(
        rows.map((r) => r.version),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
      )
      assert.equal(postgresJournalSchemaVersion, 13)
    } finally {
      await database.drop()
    }
  })
})
