// A relayer nonce left empty under the relayer's own queued transactions, against anvil: what the
// fault campaign found (issue 34, item 6). A reorg (evm_revert here) takes away final executions;
// the later one's transaction comes back to the node (a peer gossips it again) and waits queued
// above the empty nonce, while every journal record is settled and the relayer is idle. The
// reconciler fills the empty nonce (with what the relayer had sent there, else a no-op), the
// queued transaction is mined, and nothing is executed twice. A journaled transaction above an
// empty nonce is delivered, the gap under it filled, rather than dropped; and with nothing queued,
// no filler is sent.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
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
  const timesExecuted = async (intentHash: Hex, fromBlock: bigint) =>
    (
      await clients().getLogs({
        address: devnet.contracts.executor,
        event: executedEvent,
        args: { intentHash },
        fromBlock,
      })
    ).length
  const counts = async (address: Address) => {
    const [latest, pending] = await Promise.all(
      ['latest', 'pending'].map((blockTag) =>
        clients().getTransactionCount({ address, blockTag: blockTag as 'latest' | 'pending' }),
      ),
    )
    return { latest: latest!, pending: pending! }
  }
  /** intent_gateway_relayer_nonce_gaps_filled_total for this chain and filler, from /metrics. */
  const gapsFilled = async (filler: 'resent' | 'noop') => {
    const text = await (await fetch(`${gateway.baseUrl}/metrics`)).text()
    const line = text
      .split('\n')
      .find((l) =>
        l.startsWith(
          `intent_gateway_relayer_nonce_gaps_filled_total{chain="${devnet.chain.chainId}",filler="${filler}"}`,
        ),
      )
    return line === undefined ? 0 : Number(line.split(' ').at(-1))
  }
  /**
   * A few reconciliation passes (every 200 ms here). A relayer transaction a pass found missing
   * from the node is still remembered when a peer gossips it back later (CI run 101 failed on this
   * interleaving, when it was forgotten at once and what came back waited unseen).
   */
  const reconciliationPasses = () => new Promise((r) => setTimeout(r, 1000))
  /** The relayer's transactions in anvil's pool (pending or queued). */
  const inPool = async (address: Address) => {
    const pool = (await rpc(devnet.anvil.rpcUrl, 'txpool_content', [])) as Record<
      'pending' | 'queued',
      Record<string, Record<string, unknown>>
    >
    return (['pending', 'queued'] as const).flatMap((kind) =>
      Object.entries(pool[kind])
        .filter(([a]) => a.toLowerCase() === address.toLowerCase())
        .flatMap(([, byNonce]) => Object.keys(byNonce).map(Number)),
    )
  }

  it('fills the empty nonce of an idle relayer whose settled transaction waits queued above it with a no-op, and the queue is mined', async () => {
    const fromBlock = await clients().getBlockNumber()
    const noopsBefore = await gapsFilled('noop')
    const snapshot = await rpc(devnet.anvil.rpcUrl, 'evm_snapshot', [])
    const relayer = privateKeyToAccount(devnetAccounts.relayer)
    // A transaction of the relayer key the gateway did not send (an unjournaled filler of an
    // earlier process, an operator's transfer) takes the next nonce; the gateway's execution goes above it.
    const gapNonce = await clients().getTransactionCount({ address: relayer.address, blockTag: 'pending' })
    const fees = await clients().estimateFeesPerGas()
    const outside = await relayer.signTransaction({
      chainId: devnet.anvil.chainId,
      type: 'eip1559',
      to: relayer.address,
      value: 0n,
      gas: 21_000n,
      nonce: gapNonce,
      ...fees,
    })
    await rpc(devnet.anvil.rpcUrl, 'eth_sendRawTransaction', [outside])
    const second = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '41' }),
      chainHeader,
    )
    assert.equal(second.status, 200, second.text)
    const b = (await gateway.journal.get(second.body.intentHash))!
    assert.equal(Number(b.transaction!.details.txNonce), gapNonce + 1)

    // The reorg takes both away (the execution final: nothing watches it any more); the execution
    // comes back to the node alone (a peer gossips it again, a few reconciliation passes later:
    // passes that found it missing) and waits above the empty nonce.
    await rpc(devnet.anvil.rpcUrl, 'evm_revert', [snapshot])
    await reconciliationPasses()
    await rpc(devnet.anvil.rpcUrl, 'eth_sendRawTransaction', [evmSignedExecution.rawTransaction(b.transaction!)])
    assert.deepEqual(await counts(relayer.address), { latest: gapNonce, pending: gapNonce })
    assert.deepEqual(await inPool(relayer.address), [gapNonce + 1])
    assert.equal(await gateway.journal.pendingCount(), 0, 'every record is settled: only the relayer can tell')

    // The reconciler sees the gap on two passes, fills it, and the queued transaction is mined.
    await eventually('the queued transaction to be mined', 15_000, async () =>
      (await counts(relayer.address)).latest === gapNonce + 2 ? true : undefined,
    )
    assert.deepEqual(await inPool(relayer.address), [])
    assert.ok(
      gateway.logs.some((l) => l.includes('waiting behind an empty nonce') && l.includes('a no-op transaction')),
    )
    assert.equal(await gapsFilled('noop'), noopsBefore + 1, 'the filled gap is counted in /metrics')
    const receipt = await clients().getTransactionReceipt({ hash: b.transaction!.id as Hex })
    assert.equal(receipt.status, 'success', 'the queued execution itself was mined')
    assert.equal(await timesExecuted(second.body.intentHash, fromBlock), 1)
    const next = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '42' }),
      chainHeader,
    )
    assert.equal(next.status, 200, next.text)
    const after = await counts(relayer.address)
    assert.equal(after.pending, after.latest, 'nothing of the relayer waits behind a gap')
  })

  it('fills the empty nonce with the transaction the relayer had sent there when the node lost it: both executions mined once, by their own transactions', async () => {
    const fromBlock = await clients().getBlockNumber()
    const resentBefore = await gapsFilled('resent')
    const snapshot = await rpc(devnet.anvil.rpcUrl, 'evm_snapshot', [])
    const first = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '45' }),
      chainHeader,
    )
    const second = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '46' }),
      chainHeader,
    )
    assert.equal(first.status, 200, first.text)
    assert.equal(second.status, 200, second.text)
    const [a, b] = await Promise.all([
      gateway.journal.get(first.body.intentHash),
      gateway.journal.get(second.body.intentHash),
    ])
    const relayer = a!.transaction!.relayer as Address
    const gapNonce = Number(a!.transaction!.details.txNonce)
    assert.equal(Number(b!.transaction!.details.txNonce), gapNonce + 1)
    await rpc(devnet.anvil.rpcUrl, 'evm_revert', [snapshot])
    // The second comes back (a peer gossips it again) only after passes that found both missing.
    await reconciliationPasses()
    await rpc(devnet.anvil.rpcUrl, 'eth_sendRawTransaction', [evmSignedExecution.rawTransaction(b!.transaction!)])
    assert.deepEqual(await inPool(relayer), [gapNonce + 1])

    await eventually('the queued transaction to be mined', 15_000, async () =>
      (await counts(relayer)).latest === gapNonce + 2 ? true : undefined,
    )
    assert.deepEqual(await inPool(relayer), [])
    assert.ok(
      gateway.logs.some((l) => l.includes('waiting behind an empty nonce') && l.includes('its own transaction again')),
    )
    assert.equal(await gapsFilled('resent'), resentBefore + 1, 'counted as resent')
    for (const record of [a!, b!]) {
      const receipt = await clients().getTransactionReceipt({ hash: record.transaction!.id as Hex })
      assert.equal(receipt.status, 'success', 'mined by its own transaction')
      assert.equal(await timesExecuted(record.intentHash, fromBlock), 1)
    }
  })

  it('delivers a journaled transaction that waits above an empty nonce, filling the gap under it, instead of dropping it', async () => {
    const fromBlock = await clients().getBlockNumber()
    const snapshot = await rpc(devnet.anvil.rpcUrl, 'evm_snapshot', [])
    const first = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '50' }),
      chainHeader,
    )
    const second = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '51' }),
      chainHeader,
    )
    assert.equal(first.status, 200, first.text)
    assert.equal(second.status, 200, second.text)
    const a = (await gateway.journal.get(first.body.intentHash))!
    const b = (await gateway.journal.get(second.body.intentHash))!
    const relayer = a.transaction!.relayer as Address
    const gapNonce = Number(a.transaction!.details.txNonce)
    assert.equal(Number(b.transaction!.details.txNonce), gapNonce + 1)
    // The reorg takes both away; the second's record is reopened (as a repeat, or CONFIRMATIONS > 1,
    // finds its block gone): journaled pending, above the nonce the first left empty, lost by the node.
    await rpc(devnet.anvil.rpcUrl, 'evm_revert', [snapshot])
    // A few passes first: the idle gap check finds the relayer's own transactions gone and forgets
    // them, so only the journal still knows the second one (the interleaving that once left the
    // gap seen but never filled).
    await new Promise((r) => setTimeout(r, 800))
    assert.ok(await gateway.journal.reopen(b, 'reopened: a reorganization took its block (test)'))
    const settled = await eventually('the second execution to be mined', 20_000, async () => {
      const r = await gateway.journal.get(second.body.intentHash)
      return r?.state !== 'pending' ? r : undefined
    })
    assert.equal(settled.state, 'mined', `delivered, not dropped: ${settled.detail}`)
    assert.equal(settled.transaction!.id, b.transaction!.id, 'by its own transaction')
    assert.ok(gateway.logs.some((l) => l.includes('a journaled transaction waits above an empty relayer nonce')))
    assert.equal(await timesExecuted(second.body.intentHash, fromBlock), 1)
    assert.ok((await timesExecuted(first.body.intentHash, fromBlock)) <= 1)
    const after = await counts(relayer)
    assert.deepEqual(after, { latest: gapNonce + 2, pending: gapNonce + 2 })
    assert.deepEqual(await inPool(relayer), [])
  })

  it('sends no filler when nothing of the relayer waits above the empty nonce: its next send takes that nonce', async () => {
    const snapshot = await rpc(devnet.anvil.rpcUrl, 'evm_snapshot', [])
    const first = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '60' }),
      chainHeader,
    )
    assert.equal(first.status, 200, first.text)
    const a = (await gateway.journal.get(first.body.intentHash))!
    const relayer = a.transaction!.relayer as Address
    const gapNonce = Number(a.transaction!.details.txNonce)
    await rpc(devnet.anvil.rpcUrl, 'evm_revert', [snapshot])
    const fillers = () =>
      gateway.logs.filter((l) => l.includes('relayer transactions were waiting behind an empty nonce')).length
    const before = fillers()
    // A few reconciliation passes, idle: nothing is queued, so nothing is filled.
    await new Promise((r) => setTimeout(r, 1500))
    assert.deepEqual(await counts(relayer), { latest: gapNonce, pending: gapNonce })
    const next = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signedIntent(devnet, { nonce: '61' }),
      chainHeader,
    )
    assert.equal(next.status, 200, next.text)
    const b = (await gateway.journal.get(next.body.intentHash))!
    assert.equal(Number(b.transaction!.details.txNonce), gapNonce, 'the next send took the empty nonce itself')
    assert.equal(fillers(), before, 'no filler was sent')
  })
})
