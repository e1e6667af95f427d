// Idempotency-Keys shared by a fleet: two gateway instances on one PostgreSQL journal and one
// anvil. A key recorded by one instance answers on the other; one key and body sent to both at once
// runs once; one key with two bodies sent to the two at once runs one of them and refuses the other
// (422 0xA8), whichever instance each lands on.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Hex, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { post, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

/** anvil's accounts 7 and 8: funded, used by nothing else in the devnet. */
const relayerKeys = [7, 8].map((addressIndex) =>
  toHex(
    mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex }).getHdKey()
      .privateKey!,
  ),
)

describe('Idempotency-Keys across two instances on one PostgreSQL journal', () => {
  let devnet: Devnet
  let database: TestDatabase
  let two: TestGateway[] = []
  const nonceUsed = (nonce: string) =>
    createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId).publicClient.readContract({
      address: devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'nonceUsed',
      args: [devnet.demo.sender, BigInt(nonce)],
    })
  const execute = (gateway: TestGateway, body: unknown, key: string) =>
    post(gateway.baseUrl, '/intents/execute', body, { 'idempotency-key': key })

  before(async () => {
    database = await createTestDatabase('idemfleet')
    devnet = await startDevnet({ blockTime: 1 })
    two = await Promise.all(
      relayerKeys.map((key, i) =>
        startTestGateway({
          chains: [devnet.chain],
          relayerPrivateKey: key as Hex,
          storageOptions: { postgres: { url: database.url } },
          storage: { redisUrl: undefined, instanceId: `idem-${i}` },
          receiptTimeoutMs: 30_000,
        }),
      ),
    )
  })
  after(async () => {
    for (const g of two) await g.close().catch(() => {})
    await devnet?.stop()
    await database?.drop()
  })

  it('answers a key recorded by one instance on the other: the first answer replayed, another body 422 0xA8', async () => {
    const [a, b] = two as [TestGateway, TestGateway]
    const body = await signedIntent(devnet, { nonce: '31000' })
    const first = await execute(a, body, 'fleet-31000')
    assert.equal(first.status, 200, first.text)
    const again = await execute(b, body, 'fleet-31000')
    assert.equal(again.status, 200, again.text)
    assert.equal(again.body.replayed, true)
    assert.equal(again.body.transactionHash, first.body.transactionHash)
    const other = await execute(b, await signedIntent(devnet, { nonce: '31001' }), 'fleet-31000')
    assert.equal(other.status, 422, other.text)
    assert.equal(other.headers.get('x-erc1066-status'), '0xA8')
    assert.equal(await nonceUsed('31001'), false)
  })

  it('runs one key and body sent to both instances at once exactly once', async () => {
    const body = await signedIntent(devnet, { nonce: '31010' })
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => execute(two[i % 2]!, body, 'fleet-31010')))
    const shown = JSON.stringify(answers.map((a) => [a.status, a.body.replayed ?? false]))
    assert.equal(answers.filter((a) => a.status === 200 && a.body.replayed === undefined).length, 1, shown)
    assert.ok(
      answers.every((a) => a.status === 200 || (a.status === 202 && a.body.replayed === true)),
      shown,
    )
    assert.equal(
      (await two[0]!.journal.attempts(devnet.chain.chainId, answers[0]!.headers.get('x-intent-hash') as Hex)).length,
      1,
    )
  })

  it('runs one of two bodies sent under one key to the two instances at once, and refuses the other with 0xA8', async () => {
    for (const round of [0, 1, 2]) {
      const nonces = [String(31020 + round * 2), String(31021 + round * 2)]
      const bodies = await Promise.all(nonces.map((nonce) => signedIntent(devnet, { nonce })))
      const answers = await Promise.all(bodies.map((body, i) => execute(two[i]!, body, `fleet-race-${round}`)))
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 422], JSON.stringify(answers.map((a) => a.body)))
      const used = await Promise.all(nonces.map(nonceUsed))
      assert.deepEqual(
        used,
        answers.map((a) => a.status === 200),
      )
    }
  })
})
