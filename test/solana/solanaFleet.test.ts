// Several gateway instances sharing one Solana relayer key, on one PostgreSQL journal: a Solana
// transaction has no account nonce (it lives by a recent blockhash, and the cluster drops a
// signature it has seen), so two instances may sign with one key at the same moment without
// taking anything from each other. What keeps each intent to one execution is the journal's claim
// per (chain, intent) and, on chain, the program's nonce record; what keeps the relayer from paying
// twice is the journal's conditional replace (one re-signed attempt per expired one, whichever
// instance gets there first). No lease, so no instance is ever without the key (never 503
// no-relayer-key on Solana).

import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Address } from '@solana/kit'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { defaultSolanaOptions } from '../../src/chains/solana/solanaOptions.ts'
import { createGateway, type Gateway } from '../../src/createGateway.ts'
import { createReconciler } from '../../src/intents/createReconciler.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { SignedExecution } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { localKey } from '../support/relayerKeys.ts'
import { demoIntents, quietLogger, solanaAdapterFor, startSolanaDevnet } from '../support/solanaGateway.ts'
import { testConfig } from '../support/testConfig.ts'
import { post } from '../support/testGateway.ts'

describe('two gateway instances, one PostgreSQL journal, one Solana relayer key', () => {
  let devnet: SolanaDevnet
  let database: TestDatabase
  const gateways: Array<Gateway & { baseUrl: string }> = []

  before(async () => {
    ;[devnet, database] = await Promise.all([startSolanaDevnet(), createTestDatabase('solana_fleet')])
    for (const instanceId of ['sol-a', 'sol-b']) {
      const logs: string[] = []
      const gateway = await createGateway({
        config: testConfig({
          chains: [
            {
              chainId: devnet.chainId,
              chainType: 'solana',
              reference: devnet.reference,
              rpcUrls: [devnet.rpcUrl],
              executor: devnet.programId,
              validator: devnet.programId,
              registry: devnet.config,
            },
          ],
          keys: { solana: [localKey(devnet.relayerSecretKey, 'SOLANA_RELAYER_PRIVATE_KEY')] },
          runtimeOptions: { solana: { ...defaultSolanaOptions, simulationFeePayer: devnet.simulationFeePayer } },
          storageOptions: { postgres: { url: database.url } },
          storage: { redisUrl: undefined, instanceId },
          execution: { receiptTimeoutMs: 20_000, reconcileIntervalMs: 60_000 },
          rpc: { timeoutMs: 5_000, pollMs: 20 },
        }),
        logger: createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } }),
      })
      gateways.push({ ...gateway, baseUrl: await gateway.app.listen({ host: '127.0.0.1', port: 0 }) })
    }
  })
  after(async () => {
    for (const g of gateways) await g.close().catch(() => {})
    await devnet?.stop()
    await database?.drop()
  })

  const { intent, hashOf, sign } = demoIntents(() => devnet, 70_000n)
  const body = (i: Intent) => ({
    ...i,
    value: i.value.toString(),
    nonce: i.nonce.toString(),
    validAfter: '0',
    validBefore: '0',
    signature: sign(i),
  })
  const balance = async (address: Address) => (await devnet.rpc.getBalance(address).send()).value
  const vault = () => devnet.program.vaultAddress(devnet.demo.sender as Address)
  /** Transactions that landed writing the sender's vault since `since` (a signature), newest first. */
  const landedSince = async (since: string | undefined) =>
    (await devnet.rpc.getSignaturesForAddress(await vault(), since ? { until: since as never } : {}).send()).map(
      (s) => s.signature,
    )

  it('executes each of 40 signed intents, each sent to both instances at once, exactly once, both instances signing with the one key', async () => {
    const [since] = await landedSince(undefined)
    const recipientBefore = await balance(devnet.demo.recipient)
    const intents = Array.from({ length: 40 }, intent)
    const answers = await Promise.all(
      intents.flatMap((i) =>
        gateways.map(async (g, at) => {
          const res = await post(g.baseUrl, '/intents/execute', body(i), { 'x-chain-id': devnet.chainId })
          return {
            hash: hashOf(i),
            at,
            status: res.status,
            replayed: res.body?.replayed === true,
            erc1066: res.headers.get('x-erc1066-status'),
            tx: res.body?.transactionHash as string | undefined,
          }
        }),
      ),
    )
    const sentBy = [0, 0]
    for (const i of intents) {
      const answered = answers.filter((a) => a.hash === hashOf(i))
      const shown = JSON.stringify(answered)
      // One request sends it; the other replays its outcome (200 once mined, 202 0xF3 while in flight).
      const sent = answered.filter((a) => a.status === 200 && !a.replayed)
      assert.equal(sent.length, 1, shown)
      sentBy[sent[0]!.at]!++
      assert.ok(
        answered.every((a) => a.status === 200 || (a.status === 202 && a.replayed)),
        shown,
      )
    }
    assert.ok(sentBy[0]! > 0 && sentBy[1]! > 0, `both instances sent: ${sentBy}`)
    // On chain: one transaction per intent, no other; each intent's value moved once.
    const landed = await landedSince(since)
    assert.equal(landed.length, 40)
    assert.deepEqual(new Set(landed), new Set(answers.filter((a) => a.status === 200 && !a.replayed).map((a) => a.tx)))
    assert.equal(await balance(devnet.demo.recipient), recipientBefore + 40n * 1_000n)
  })

  it('re-signs an expired attempt once when both instances reconcile it at the same moment; it runs once', async () => {
    const [since] = await landedSince(undefined)
    const recipientBefore = await balance(devnet.demo.recipient)
    const i = intent()
    // Instance A signs and journals it, then dies before the broadcast.
    const [a, b] = [gateways[0]!, gateways[1]!]
    const claim = await a.journal.claim({ chainId: devnet.chainId, intentHash: hashOf(i), intent: i })
    assert.ok(claim.ok)
    const adapters = [solanaAdapterFor(devnet, { relayer: true }), solanaAdapterFor(devnet, { relayer: true })]
    const preflight = await adapters[0]!.prepareExecution(i, sign(i))
    assert.ok(preflight.ok)
    let expired: SignedExecution | undefined
    await assert.rejects(
      preflight.send({
        onSigned: async (tx) => {
          await a.journal.recordSigned(claim.record, tx)
          expired = tx
          throw new Error('died before the broadcast')
        },
      }),
      /died/,
    )
    await devnet.control('litesvm_expireBlockhash', [])
    // Both instances hold the key, so both take the record as theirs (createGateway's rule).
    const reconcilers = [a, b].map((g, at) =>
      createReconciler({
        journal: g.journal,
        adapters: [adapters[at]!],
        intervalMs: 60_000,
        logger: quietLogger,
        holds: () => true,
      }),
    )
    // Both find it expired and sign a replacement; the journal takes one (the other's replace is
    // refused: the record is no longer pending) and only the one it took is broadcast.
    const passes = await Promise.all(reconcilers.map((r) => r.runOnce()))
    assert.equal(passes[0]!.repriced + passes[1]!.repriced, 1, JSON.stringify(passes))
    const row = await b.journal.get(hashOf(i), devnet.chainId)
    assert.equal(row?.attempt, 2)
    assert.notEqual(row?.transaction?.id, expired!.id)
    // Either instance settles it; nothing else was sent.
    await Promise.all(reconcilers.map((r) => r.runOnce()))
    const settled = await a.journal.get(hashOf(i), devnet.chainId)
    assert.deepEqual([settled?.attempt, settled?.state, settled?.status], [2, 'mined', 0x11])
    assert.deepEqual(await landedSince(since), [settled!.transaction!.id])
    assert.equal(await balance(devnet.demo.recipient), recipientBefore + 1_000n)
  })
})
