// A stuck execution: sent at the fees of the moment, then the base fee rises above its max fee
// (anvil_setNextBlockBaseFeePerGas) so that blocks are mined without it. The reconciler re-prices
// it: the same relayer nonce with fees raised (past the node's replacement minimum), journaled as
// attempt 2 before the broadcast; the replacement is mined and settles the intent, executed once.
// Above the fee ceiling (MAX_FEE_PER_GAS_GWEI) it is not re-priced, and says so.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Hex, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { post, request, rpc, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const chainHeader = { 'x-chain-id': '31337' }
const relayer = privateKeyToAccount(devnetAccounts.relayer).address

describe('stuck transactions', () => {
  let devnet: Devnet
  before(async () => {
    devnet = await startDevnet()
  })
  after(async () => {
    await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true]).catch(() => undefined)
    await devnet?.stop()
  })

  /** Sends an execute that the node holds, then raises the base fee above its max fee and mines a block without it. */
  async function stuckExecute(gateway: TestGateway, nonce: string) {
    await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    const res = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce }), chainHeader)
    assert.equal(res.status, 202, res.text)
    const sent = await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionByHash', [res.body.transactionHash])
    const maxFee = BigInt(sent.maxFeePerGas)
    await rpc(devnet.anvil.rpcUrl, 'anvil_setNextBlockBaseFeePerGas', [`0x${(maxFee * 20n).toString(16)}`])
    await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
    assert.equal(
      await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionReceipt', [res.body.transactionHash]),
      null,
      'underpriced: the block was mined without it',
    )
    return { intentHash: res.body.intentHash as Hex, transactionHash: res.body.transactionHash as Hex, maxFee }
  }

  it('re-prices it at the same relayer nonce as a new attempt, journaled before the broadcast, and the replacement settles the intent', async () => {
    const gateway = await startTestGateway({
      chains: [devnet.chain],
      receiptTimeoutMs: 300,
      reconcileIntervalMs: 300,
      maxFeePerGas: Number(parseGwei('10000')),
    })
    try {
      const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
      const fromBlock = await publicClient.getBlockNumber()
      const { intentHash, transactionHash, maxFee } = await stuckExecute(gateway, '20')
      const replacement = await eventually('a re-priced attempt', 15_000, async () => {
        const r = await gateway.journal.get(intentHash)
        return r?.attempt === 2 ? r : undefined
      })
      assert.equal(replacement.state, 'pending')
      assert.notEqual(replacement.transaction?.id, transactionHash)
      // Journaled before the broadcast: on a busy machine the node may get it a moment after.
      const onNode = await eventually(
        'the replacement broadcast',
        15_000,
        async () =>
          (await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionByHash', [replacement.transaction!.id])) ?? undefined,
      )
      // Logged between the journal write and the broadcast: there once the node has it.
      assert.ok(gateway.logs.some((l) => l.includes('stuck transaction re-priced as a new attempt')))
      const original = await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionByHash', [transactionHash]).catch(() => null)
      assert.equal(
        BigInt(onNode.nonce),
        original ? BigInt(original.nonce) : BigInt(onNode.nonce),
        'the same relayer nonce',
      )
      assert.equal(
        replacement.transaction?.details.txNonce,
        (await gateway.journal.replaced(replacement))[0]?.details.txNonce,
      )
      assert.ok(
        BigInt(onNode.maxFeePerGas) >= (maxFee * 1125n) / 1000n,
        'fees raised by at least the replacement minimum',
      )
      assert.ok(BigInt(onNode.maxFeePerGas) <= parseGwei('10000'), 'within the ceiling')

      await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
      const final = await eventually('the intent to be settled', 15_000, async () => {
        const r = await request(gateway.baseUrl, `/intents/${intentHash}`)
        return r.status === 200 ? r : undefined
      })
      assert.deepEqual([final.body.state, final.body.transactionHash], ['mined', replacement.transaction!.id])
      assert.equal(
        await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionReceipt', [transactionHash]),
        null,
        'the first attempt never mined',
      )
      const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
      assert.equal(
        (await publicClient.getLogs({ address: devnet.contracts.executor, event, args: { intentHash }, fromBlock }))
          .length,
        1,
      )
      assert.equal(await gateway.journal.pendingCount(), 0)
      assert.equal(
        await publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' }),
        await publicClient.getTransactionCount({ address: relayer, blockTag: 'latest' }),
      )
    } finally {
      await gateway.close()
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
    }
  })

  it('does not re-price above the fee ceiling; it says so and waits', async () => {
    // Let the base fee settle back first.
    await rpc(devnet.anvil.rpcUrl, 'anvil_setNextBlockBaseFeePerGas', ['0x3b9aca00'])
    await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
    const gateway = await startTestGateway({
      chains: [devnet.chain],
      receiptTimeoutMs: 300,
      reconcileIntervalMs: 300,
      maxFeePerGas: Number(parseGwei('3')),
    })
    try {
      const { intentHash, transactionHash } = await stuckExecute(gateway, '21')
      await eventually('the ceiling to be logged', 15_000, async () =>
        gateway.logs.some((l) => l.includes('cannot be re-priced within the fee ceiling')) ? true : undefined,
      )
      const record = await gateway.journal.get(intentHash)
      assert.deepEqual([record?.attempt, record?.state, record?.transaction?.id], [1, 'pending', transactionHash])
      // Once the base fee falls back, the original (which the node had dropped) is delivered again,
      // mined, and settles the intent.
      await rpc(devnet.anvil.rpcUrl, 'anvil_setNextBlockBaseFeePerGas', ['0x1'])
      await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
      await eventually(
        'the original to be delivered again',
        15_000,
        async () => (await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionByHash', [transactionHash])) ?? undefined,
      )
      await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
      const final = await eventually('the intent to be settled', 15_000, async () => {
        const r = await request(gateway.baseUrl, `/intents/${intentHash}`)
        return r.status === 200 ? r : undefined
      })
      assert.equal(final.body.transactionHash, transactionHash)
    } finally {
      await gateway.close()
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
    }
  })
})
