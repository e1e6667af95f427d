// Confirmations and reorgs against anvil: with CONFIRMATIONS=3 an execution is answered 202 while
// mined but not final, and 200 once three blocks deep; a reorg that removes its block (evm_revert
// to a snapshot, then other blocks mined) reopens the record, which is delivered again and ends
// final, executed once, never left saying `mined` on a block that is gone.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Hex } from 'viem'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { post, request, rpc, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const chainHeader = { 'x-chain-id': '31337' }

describe('confirmations and reorgs', () => {
  let devnet: Devnet
  let gateway: TestGateway
  before(async () => {
    devnet = await startDevnet()
    gateway = await startTestGateway({ chains: [devnet.chain], confirmations: 3, reconcileIntervalMs: 200 })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  it('answers 202 while mined but not final, 200 once CONFIRMATIONS blocks deep', async () => {
    const res = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '10' }),
      chainHeader,
    )
    assert.equal(res.status, 202, res.text)
    assert.equal(res.body.state, 'mined')
    assert.match(res.body.detail, /not final until 3 blocks deep/)
    assert.equal(res.headers.get('location'), `/intents/${res.body.intentHash}`)
    const unconfirmed = await request(gateway.baseUrl, `/intents/${res.body.intentHash}`)
    assert.deepEqual([unconfirmed.status, unconfirmed.body.state], [202, 'mined'])
    await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x2'])
    const final = await eventually('the execution to be final', 10_000, async () => {
      const r = await request(gateway.baseUrl, `/intents/${res.body.intentHash}`)
      return r.status === 200 ? r : undefined
    })
    assert.deepEqual(
      [final.body.status, final.body.state, final.body.transactionHash],
      ['0x11', 'mined', res.body.transactionHash],
    )
  })

  it('reopens an execution whose block a reorg removed, delivers it again, and reports it final only on the chain that holds it', async () => {
    const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const fromBlock = await publicClient.getBlockNumber()
    const snapshot = await rpc(devnet.anvil.rpcUrl, 'evm_snapshot', [])
    const res = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '11' }),
      chainHeader,
    )
    assert.equal(res.status, 202, res.text)
    assert.equal(res.body.state, 'mined')
    const intentHash = res.body.intentHash as Hex
    const minedIn = (await gateway.journal.get(intentHash))!
    assert.equal(minedIn.final, false)

    // The reorg: back to before the execution, and another chain of blocks mined on top.
    await rpc(devnet.anvil.rpcUrl, 'evm_revert', [snapshot])
    await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x3'])
    const reopened = await eventually('the reorg to be noticed', 10_000, async () =>
      gateway.logs.some((l) => l.includes('a reorg removed a mined execution')) ? true : undefined,
    )
    assert.ok(reopened)
    // Delivered again (the node lost it with the reverted blocks), mined anew, then made final.
    await eventually('the execution to be mined again', 10_000, async () => {
      const r = await gateway.journal.get(intentHash)
      return r?.state === 'mined' && r.blockHash !== minedIn.blockHash ? r : undefined
    })
    await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x2'])
    const final = await eventually('the execution to be final', 10_000, async () => {
      const r = await request(gateway.baseUrl, `/intents/${intentHash}`)
      return r.status === 200 ? r : undefined
    })
    assert.deepEqual([final.body.status, final.body.state], ['0x11', 'mined'])
    const record = (await gateway.journal.get(intentHash))!
    const block = await publicClient.getBlock({ blockNumber: record.blockNumber! })
    assert.equal(block.hash, record.blockHash, 'the journal names a block of the chain as it is now')
    assert.ok(
      gateway.logs.some((l) => l.includes('broadcast it again')),
      'the reopened transaction was rebroadcast',
    )
    // Executed exactly once on the chain as it is now.
    const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
    const logs = await publicClient.getLogs({
      address: devnet.contracts.executor,
      event,
      args: { intentHash },
      fromBlock,
    })
    assert.equal(logs.length, 1)
  })

  it('a final execution that a deeper reorg took away is reopened at its relayer nonce and delivered again, leaving no nonce gap (the fault campaign found the gap)', async () => {
    // CONFIRMATIONS=1: final at once, so no reconciler watches it any more; only a repeat finds it gone.
    const quick = await startTestGateway({ chains: [devnet.chain], reconcileIntervalMs: 200 })
    try {
      const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
      const fromBlock = await publicClient.getBlockNumber()
      const snapshot = await rpc(devnet.anvil.rpcUrl, 'evm_snapshot', [])
      const body = await signedIntent(devnet, { nonce: '12' })
      const res = await post(quick.baseUrl, '/intents/execute', body, chainHeader)
      assert.equal(res.status, 200, res.text)
      const intentHash = res.body.intentHash as Hex
      const relayer = (await quick.journal.get(intentHash))!.transaction!.relayer as Hex
      await rpc(devnet.anvil.rpcUrl, 'evm_revert', [snapshot])
      await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x3'])
      // The repeat finds the execution gone on the same chain instance: reopened, answered in flight, delivered again.
      const again = await post(quick.baseUrl, '/intents/execute', body, chainHeader)
      assert.equal(again.status, 202, again.text)
      assert.equal(again.body.replayed, true)
      await eventually('the execution to be delivered again', 10_000, async () => {
        const r = await quick.journal.get(intentHash)
        return r?.state === 'mined' && r.final ? r : undefined
      })
      // The relayer's next execution goes through at once: nothing waits behind a gap.
      const next = await post(
        quick.baseUrl,
        '/intents/execute',
        await signedIntent(devnet, { nonce: '13' }),
        chainHeader,
      )
      assert.equal(next.status, 200, next.text)
      const [pending, latest] = await Promise.all([
        publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' }),
        publicClient.getTransactionCount({ address: relayer, blockTag: 'latest' }),
      ])
      assert.equal(pending, latest, 'no relayer transaction is stuck behind a nonce gap')
      const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
      const logs = await publicClient.getLogs({
        address: devnet.contracts.executor,
        event,
        args: { intentHash },
        fromBlock,
      })
      assert.equal(logs.length, 1, 'executed once on the chain as it is now')
    } finally {
      await quick.close()
    }
  })
})
