// The in-process facilitator's nonces under concurrent settlements when one send fails (CI run of
// 4e01764: "charges each of 50 concurrent paid requests exactly once, with no nonce collision"
// failed once). With viem's shared nonce manager one failed send reset the count to the node's
// pending one, which does not yet hold the nonces handed out and still on their way: the next
// settlements were given those again, collided ("replacement transaction underpriced", "nonce too
// low"), failed and reset it once more. Here a proxy loses one settlement's send on the way to
// anvil and, later in the same burst, the answer to another after anvil took it: every other
// settlement lands, no nonce is handed out twice, nothing is left queued behind a gap, and the
// payer pays exactly for what was served.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { inNodePool } from '../../src/payments/mechanisms/evm/createEvmChainReads.ts'
import {
  type PaymentsWorld,
  payingClient,
  postJson,
  price,
  startPaidApp,
  startPaymentsWorld,
} from '../support/paymentsWorld.ts'
import { type RpcResetProxy, startRpcResetProxy } from '../support/rpcResetProxy.ts'

const collision = /nonce too low|nonce too high|replacement transaction underpriced|already known/i

describe("the facilitator's nonces when one of many concurrent settlements fails to send (EVM)", () => {
  let world: PaymentsWorld
  let proxy: RpcResetProxy
  /** The paid route whose facilitator reaches anvil through the proxy. */
  let paid: Awaited<ReturnType<typeof startPaidApp>>
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const settler = privateKeyToAccount(devnetAccounts.facilitator).address
  const balanceOf = (who: `0x${string}`) => world.balanceOf(who)

  before(async () => {
    world = await startPaymentsWorld()
    proxy = await startRpcResetProxy(world.devnet.anvil.rpcUrl)
    paid = await startPaidApp({ devnet: world.devnet, ledger: world.ledger, rpcUrl: proxy.url })
  })
  after(async () => {
    await paid?.close()
    await proxy?.close()
    await world?.stop()
  })

  /** `count` paid requests, one every 15 ms, so that nonces are handed out before and after a failure. */
  async function burst(prefix: string, count: number) {
    const { fetch: pay } = payingClient(world.devnet)
    const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`)
    const responses = await Promise.all(
      ids.map(async (id, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 15))
        return pay(paid.url, postJson({ id }))
      }),
    )
    const statuses = responses.map((r) => r.status)
    return {
      ids,
      statuses,
      served: ids.filter((_, i) => statuses[i] === 200),
      report: JSON.stringify({ statuses, logs: paid.logs }),
    }
  }
  const settlerNonce = (blockTag: 'pending' | 'latest') =>
    world.clients.publicClient.getTransactionCount({ address: settler, blockTag })
  /** Nothing of the facilitator's waits in the node behind a gap, and the next payment settles with the next nonce. */
  async function assertNoGap() {
    assert.equal(await settlerNonce('pending'), await settlerNonce('latest'))
    assert.equal(await inNodePool(world.clients.publicClient, settler), false, 'nothing queued in the node')
    const latest = await settlerNonce('latest')
    const next = await payingClient(world.devnet).fetch(paid.url, postJson({ id: `next-${latest}` }))
    assert.equal(next.status, 200, await next.text())
    assert.equal(await settlerNonce('latest'), latest + 1)
  }

  /** Each gap's fill the burst logged also logged whether it was sent (one that never lands holds every settlement above it). */
  function assertFillsSaid(report: string) {
    const nonces = (msg: string) =>
      paid.logs
        .map((l) => JSON.parse(l) as { msg?: string; nonce?: number })
        .filter((l) => l.msg?.startsWith(msg))
        .map((l) => l.nonce)
        .sort()
    assert.deepEqual(
      nonces('x402 facilitator: the fill was'),
      nonces('x402 facilitator: a nonce no settlement took is filled'),
      report,
    )
  }

  it('a send lost on the way: that payment alone is refused (402, nothing moved), the next settlement takes its nonce, none collides', async () => {
    const [payerBefore, nonceBefore] = [await balanceOf(payer), await settlerNonce('latest')]
    proxy.resetBeforeForward('eth_sendRawTransaction', 1, 2)
    const { ids, statuses, served, report } = await burst('lost', 20)
    // The request that held the send may have held others (the calls of one turn go as one batch): all lost.
    const lostSends = proxy.lostCalls('eth_sendRawTransaction', 'before')
    assert.ok(lostSends >= 1, report)
    assert.ok(!paid.logs.some((l) => collision.test(l)), `no nonce collided: ${report}`)
    assert.equal(served.length, ids.length - lostSends, report)
    assert.equal(statuses.filter((s) => s === 402).length, lostSends, report)
    assert.deepEqual(paid.effects.filter((e) => e.startsWith('lost-')).sort(), [...served].sort())
    assert.equal(await balanceOf(payer), payerBefore - BigInt(served.length) * price, report)
    // One transaction a settlement served, and at most one of no effect filling a lost send's gap.
    const extra = (await settlerNonce('latest')) - nonceBefore - served.length
    assert.ok(extra >= 0 && extra <= lostSends, report)
    await assertNoGap()
  })

  it('sends lost at the end of a burst, nonces above them already sent: the gaps no settlement takes are filled, nothing waits in the node', async () => {
    paid.logs.length = 0
    const [payerBefore, lostBefore] = [await balanceOf(payer), proxy.lostCalls('eth_sendRawTransaction', 'before')]
    proxy.resetBeforeForward('eth_sendRawTransaction', 3, 14)
    const { ids, statuses, served, report } = await burst('end', 18)
    const lostSends = proxy.lostCalls('eth_sendRawTransaction', 'before') - lostBefore
    assert.ok(lostSends >= 3, report)
    assertFillsSaid(report)
    assert.equal(served.length, ids.length - lostSends, report)
    assert.equal(statuses.filter((s) => s === 402).length, lostSends, report)
    assert.equal(await balanceOf(payer), payerBefore - BigInt(served.length) * price, report)
    await assertNoGap()
  })

  it('an answer lost after the node took the send: that settlement is read from the chain (200), its nonce is not handed out again, none collides', async () => {
    paid.logs.length = 0
    const [payerBefore, nonceBefore] = [await balanceOf(payer), await settlerNonce('latest')]
    proxy.resetAfterForward('eth_sendRawTransaction', 1, 2)
    const { ids, served, report } = await burst('answer', 20)
    assert.ok(proxy.lostCalls('eth_sendRawTransaction', 'after') >= 1, report)
    assert.ok(!paid.logs.some((l) => collision.test(l)), `no nonce collided: ${report}`)
    assert.equal(served.length, ids.length, report)
    assert.equal(await balanceOf(payer), payerBefore - BigInt(ids.length) * price, report)
    assert.equal(await settlerNonce('latest'), nonceBefore + ids.length)
    await assertNoGap()
  })

  it('both in one burst, answers lost behind the gap a lost send left: their nonces are held in the node (queued), not handed out again; the gap is filled and they land, each paid once', async () => {
    paid.logs.length = 0
    const [payerBefore, nonceBefore] = [await balanceOf(payer), await settlerNonce('latest')]
    const lostBefore = proxy.lostCalls('eth_sendRawTransaction', 'before')
    proxy.resetBeforeForward('eth_sendRawTransaction', 1, 2)
    proxy.resetAfterForward('eth_sendRawTransaction', 1, 6)
    const { ids, statuses, served, report } = await burst('both', 20)
    const lostSends = proxy.lostCalls('eth_sendRawTransaction', 'before') - lostBefore
    assert.ok(!paid.logs.some((l) => collision.test(l)), `no nonce collided: ${report}`)
    // Every settlement the node took landed, once: the lost sends' payments alone moved nothing. One
    // whose answer was lost while it was queued behind the gap is answered pending (this test route
    // answers that 402; the gateway 202) and lands once the gap is filled: a credit, paid once.
    const charged = (payerBefore - (await balanceOf(payer))) / price
    assert.equal(charged, BigInt(ids.length - lostSends), report)
    assert.ok(served.length <= ids.length - lostSends, report)
    const extra = (await settlerNonce('latest')) - nonceBefore - (ids.length - lostSends)
    assert.ok(extra >= 0 && extra <= lostSends, report)
    assert.ok(
      statuses.every((s) => s === 200 || s === 402),
      report,
    )
    await assertNoGap()
  })
})
