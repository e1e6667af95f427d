// A relayer nonce left empty under the relayer's own queued transactions, against anvil: what the
// fault campaign found (issue 34, item 6). A reorg (evm_revert here) takes away two final
// executions; the later one's transaction comes back to the node (a peer gossips it again) and
// waits queued above the empty nonce, while every journal record is settled and the relayer is
// idle. The reconciler fills the empty nonce with a no-op, the queued transaction is mined, and
// nothing is executed twice. And a journaled transaction above an empty nonce is delivered, the gap
// under it filled, rather than dropped.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Address, Hex } from 'viem'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { evmSignedExecution } from '../../src/chains/evm/evmSignedExecution.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { post, rpc, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const chainHeader = { 'x-chain-id': '31337' }

describe('a relayer nonce left empty under queued transactions', () => {
  let devnet: Devnet
  let gateway: TestGateway
  before(async () => {
    devnet = await startDevnet()
    gateway = await startTestGateway({ chains: [devnet.chain], reconcileIntervalMs: 200 })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  const clients = () => createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId).publicClient
  const executedEvent = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
  const timesExecuted = async (intentHash: Hex, fromBlock: bigint) => (await clients().getLogs({ address: devnet.contracts.executor, event: executedEvent, args: { intentHash }, fromBlock })).length
  const counts = async (address: Address) => {
    const [latest, pending] = await Promise.all(['latest', 'pending'].map((blockTag) => clients().getTransactionCount({ address, blockTag: blockTag as 'latest' | 'pending' })))
    return { latest: latest!, pending: pending! }
  }
  /** The relayer's transactions in anvil's pool (pending or queued). */
  const inPool = async (address: Address) => {
    const pool = (await rpc(devnet.anvil.rpcUrl, 'txpool_content', [])) as Record<'pending' | 'queued', Record<string, Record<string, unknown>>>
    return (['pending', 'queued'] as const).flatMap((kind) =>
      Object.entries(pool[kind])
        .filter(([a]) => a.toLowerCase() === address.toLowerCase())
        .flatMap(([, byNonce]) => Object.keys(byNonce).map(Number)),
    )
  }

  it('fills the empty nonce of an idle relayer whose settled transaction waits queued above it, and the queue is mined', async () => {
    const fromBlock = await clients().getBlockNumber()
    const snapshot = await rpc(devnet.anvil.rpcUrl, 'evm_snapshot', [])
    const first = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '40' }), chainHeader)
    const second = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '41' }), chainHeader)
    assert.equal(first.status, 200, first.text)
    assert.equal(second.status, 200, second.text)
    const [a, b] = await Promise.all([gateway.journal.get(first.body.intentHash), gateway.journal.get(second.body.intentHash)])
    const relayer = a!.transaction!.relayer as Address
    const gapNonce = Number(a!.transaction!.details.txNonce)
    assert.equal(Number(b!.transaction!.details.txNonce), gapNonce + 1)

    // The reorg takes both away (final: nothing watches them any more); the second comes back to
    // the node alone and waits above the empty nonce of the first.
    await rpc(devnet.anvil.rpcUrl, 'evm_revert', [snapshot])
    await rpc(devnet.anvil.rpcUrl, 'eth_sendRawTransaction', [evmSignedExecution.rawTransaction(b!.transaction!)])
    assert.deepEqual(await counts(relayer), { latest: gapNonce, pending: gapNonce })
    assert.deepEqual(await inPool(relayer), [gapNonce + 1])
    assert.equal(await gateway.journal.pendingCount(), 0, 'every record is settled: only the relayer can tell')

    // The reconciler sees the gap on two passes, fills it, and the queued transaction is mined.
    await eventually('the queued transaction to be mined', 15_000, async () => ((await counts(relayer)).latest === gapNonce + 2 ? true : undefined))
    assert.deepEqual(await inPool(relayer), [])
    assert.ok(gateway.logs.some((l) => l.includes('relayer transactions were waiting behind an empty nonce')))
    const receipt = await clients().getTransactionReceipt({ hash: b!.transaction!.id as Hex })
    assert.equal(receipt.status, 'success', 'the queued execution itself was mined')
    assert.equal(await timesExecuted(second.body.intentHash, fromBlock), 1)
    assert.equal(await timesExecuted(first.body.intentHash, fromBlock), 0, 'the execution the reorg took away and nothing sent again')

    // The first intent, sent again, finds its execution gone and runs once; the relayer goes on without a gap.
    const again = await eventually('the first intent to run again', 15_000, async () => {
      const r = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '40' }), chainHeader)
      return r.status === 200 ? r : undefined
    })
    assert.equal(again.body.intentHash, first.body.intentHash)
    const next = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '42' }), chainHeader)
    assert.equal(next.status, 200, next.text)
    assert.equal(await timesExecuted(first.body.intentHash, fromBlock), 1)
    assert.equal(await timesExecuted(second.body.intentHash, fromBlock), 1)
    const after = await counts(relayer)
    assert.equal(after.pending, after.latest, 'nothing of the relayer waits behind a gap')
  })

  it('delivers a journaled transaction that waits above an empty nonce, filling the gap under it, instead of dropping it', async () => {
    const fromBlock = await clients().getBlockNumber()
    const snapshot = await rpc(devnet.anvil.rpcUrl, 'evm_snapshot', [])
    const first = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '50' }), chainHeader)
    assert.equal(first.status, 200, first.text)
    const a = (await gateway.journal.get(first.body.intentHash))!
    const relayer = a.transaction!.relayer as Address
    const gapNonce = Number(a.transaction!.details.txNonce)
    // The reorg takes the first away; the relayer still counts its nonce as used, so the second
    // goes above the empty one and waits there, journaled pending.
    await rpc(devnet.anvil.rpcUrl, 'evm_revert', [snapshot])
    const second = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '51' }), chainHeader)
    const b = (await gateway.journal.get(second.body.intentHash))!
    assert.equal(Number(b.transaction!.details.txNonce), gapNonce + 1)
    const settled = await eventually('the second execution to be mined', 20_000, async () => {
      const r = await gateway.journal.get(second.body.intentHash)
      return r?.state !== 'pending' ? r : undefined
    })
    assert.equal(settled.state, 'mined', `delivered, not dropped: ${settled.detail}`)
    assert.equal(settled.transaction!.id, b.transaction!.id, 'by its own transaction')
    assert.equal(await timesExecuted(second.body.intentHash, fromBlock), 1)
    const after = await counts(relayer)
    assert.deepEqual(after, { latest: gapNonce + 2, pending: gapNonce + 2 })
    assert.deepEqual(await inPool(relayer), [])
  })
  it('sends no filler when nothing of the relayer waits above the empty nonce: its next send takes that nonce', async () => {
    const snapshot = await rpc(devnet.anvil.rpcUrl, 'evm_snapshot', [])
    const first = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '60' }), chainHeader)
    assert.equal(first.status, 200, first.text)
    const a = (await gateway.journal.get(first.body.intentHash))!
    const relayer = a.transaction!.relayer as Address
    const gapNonce = Number(a.transaction!.details.txNonce)
    await rpc(devnet.anvil.rpcUrl, 'evm_revert', [snapshot])
    const fillers = () => gateway.logs.filter((l) => l.includes('relayer transactions were waiting behind an empty nonce')).length
    const before = fillers()
    // A few reconciliation passes, idle: nothing is queued, so nothing is filled.
    await new Promise((r) => setTimeout(r, 1500))
    assert.deepEqual(await counts(relayer), { latest: gapNonce, pending: gapNonce })
    const next = await post(gateway.baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '61' }), chainHeader)
    assert.equal(next.status, 200, next.text)
    const b = (await gateway.journal.get(next.body.intentHash))!
    assert.equal(Number(b.transaction!.details.txNonce), gapNonce, 'the next send took the empty nonce itself')
    assert.equal(fillers(), before, 'no filler was sent')
  })
})
