// Executes sent in bundles end to end (BUNDLER_ADDRESSES): concurrent executes are simulated as the
// bundles they are sent as, sent as IntentBundler transactions of several executions each, and
// each answered with its own outcome and its share of the gas; each intent is executed once, a
// forged one is refused before anything is sent, and a stranger gains nothing from the bundler.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Hex } from 'viem'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { demoIntent, post, request, signIntent, startTestGateway } from '../support/testGateway.ts'

const chainHeader = { 'x-chain-id': '31337' }

describe('executes sent in bundles (BUNDLER_ADDRESSES)', () => {
  let devnet: Devnet
  before(async () => {
    devnet = await startDevnet()
  })
  after(async () => {
    await devnet?.stop()
  })

  it('answers each execute with its own outcome from a shared transaction, executes each intent once, and refuses a forged one before sending', async () => {
    const gateway = await startTestGateway({ chains: [{ ...devnet.chain, bundler: devnet.contracts.bundler }] })
    try {
      const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
      const count = () =>
        publicClient.readContract({ address: devnet.demo.counter, abi: demoCounterArtifact.abi, functionName: 'count' })
      const before = await count()
      const bodies = await Promise.all(
        Array.from({ length: 24 }, (_, i) => signIntent(devnet, demoIntent(devnet, { nonce: String(5_100_000 + i) }))),
      )
      const forged = await signIntent(devnet, demoIntent(devnet, { nonce: '5100999' }), devnetAccounts.other)
      // Two waves of concurrent executes: a wave after a batch of several gathers (simulationBatcher.ts).
      const answers = []
      for (const wave of [bodies.slice(0, 12), [...bodies.slice(12), forged]])
        answers.push(...(await Promise.all(wave.map((b) => post(gateway.baseUrl, '/intents/execute', b, chainHeader)))))
      const refused = answers.pop()!
      assert.equal(refused.status, 401, refused.text)
      assert.equal(refused.headers.get('x-erc1066-status'), '0xE4')
      assert.equal(refused.body.transactionHash, undefined, 'nothing sent for it')
      for (const a of answers) {
        assert.equal(a.status, 200, a.text)
        assert.equal(a.headers.get('x-erc1066-status'), '0x11')
      }
      assert.equal(await count(), before + 24n, 'each intent executed once')
      const hashes = new Set(answers.map((a) => a.body.transactionHash as Hex))
      assert.ok(hashes.size < answers.length, `${hashes.size} transactions for ${answers.length} executions: bundled`)

      // Each record is its call of a bundle (its own gas, the bundle's bytes kept once), or, where its
      // batch held no other call of the key, a transaction of its own.
      const records = await Promise.all(answers.map((a) => gateway.journal.get(a.body.intentHash as Hex)))
      assert.ok(records.every((r) => r?.state === 'mined'))
      const inBundles = records.filter((r) => r!.transaction!.bundle !== undefined)
      assert.ok(inBundles.length >= answers.length / 2, `${inBundles.length} of ${answers.length} in bundles`)
      assert.ok(inBundles.every((r) => r!.transaction!.bytes === ''))
      for (const alone of records.filter((r) => r!.transaction!.bundle === undefined)) {
        const receipt = await publicClient.getTransactionReceipt({ hash: alone!.transaction!.id as Hex })
        assert.equal(receipt.to?.toLowerCase(), devnet.contracts.executor.toLowerCase(), 'sent to the executor itself')
      }
      for (const hash of new Set(inBundles.map((r) => r!.transaction!.id as Hex))) {
        const receipt = await publicClient.getTransactionReceipt({ hash })
        assert.equal(receipt.to?.toLowerCase(), devnet.contracts.bundler.toLowerCase())
        const members = records.filter((r) => r!.transaction!.id === hash)
        assert.equal(
          members.reduce((sum, r) => sum + r!.gasUsed!, 0n),
          receipt.gasUsed,
          "the members' gas adds up to the bundle's",
        )
        assert.deepEqual(
          members.map((r) => r!.transaction!.bundle!.index).sort((x, y) => x - y),
          members.map((_, i) => i),
        )
        assert.ok(await gateway.journal.transactionBytes('eip155:31337', hash))
      }
      // The status page of one of them says what its own call did.
      const one = answers[3]!
      const status = await request(gateway.baseUrl, `/intents/${one.body.intentHash}`, { headers: chainHeader })
      assert.equal(status.status, 200, status.text)
      assert.equal(status.headers.get('x-erc1066-status'), '0x11')
      assert.equal(
        await publicClient.readContract({
          address: devnet.contracts.executor,
          abi: intentExecutorArtifact.abi,
          functionName: 'nonceUsed',
          args: [devnet.demo.sender, 5_100_999n],
        }),
        false,
      )
      // The bundler holds nothing: the relayer's gas went only to the executions.
      assert.equal(await publicClient.getBalance({ address: devnet.contracts.bundler }), 0n)
    } finally {
      await gateway.close()
    }
  })

  it("sends a lone execute as a transaction of its own: a bundle of one would only cost the bundler's gas", async () => {
    const gateway = await startTestGateway({ chains: [{ ...devnet.chain, bundler: devnet.contracts.bundler }] })
    try {
      const body = await signIntent(devnet, demoIntent(devnet, { nonce: '5200000' }))
      const answer = await post(gateway.baseUrl, '/intents/execute', body, chainHeader)
      assert.equal(answer.status, 200, answer.text)
      assert.equal(answer.headers.get('x-erc1066-status'), '0x11')
      const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
      const receipt = await publicClient.getTransactionReceipt({ hash: answer.body.transactionHash as Hex })
      assert.equal(receipt.to?.toLowerCase(), devnet.contracts.executor.toLowerCase())
      const record = await gateway.journal.get(answer.body.intentHash as Hex)
      assert.equal(record?.transaction?.bundle, undefined)
      assert.equal(record?.gasUsed, receipt.gasUsed)
    } finally {
      await gateway.close()
    }
  })
})
