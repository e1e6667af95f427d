import assert from 'node:assert/strict'
import { describe, it, mock } from 'node:test'
import type { Hex } from 'viem'
import { createReceiptWatcher } from './createReceiptWatcher.ts'

type Receipt = { transactionHash: Hex; blockNumber: bigint }
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex

/** A chain of blocks the test mines by hand, counting what the watcher asks it. */
function fakeChain({ blockReceipts = true } = {}) {
  const blocks: Receipt[][] = [[]]
  const calls = { blockNumber: 0, blockReceipts: 0, receipt: 0 }
  return {
    calls,
    blocksMined: () => blocks.length - 1,
    mine(...hashes: Hex[]) {
      blocks.push(hashes.map((h) => ({ transactionHash: h, blockNumber: BigInt(blocks.length) })))
    },
    parameters: {
      blockNumber: async () => {
        calls.blockNumber++
        return BigInt(blocks.length - 1)
      },
      blockReceipts: async (n: bigint) => {
        calls.blockReceipts++
        return blockReceipts ? blocks[Number(n)] : undefined
      },
      receipt: async (h: Hex) => {
        calls.receipt++
        return blocks.flat().find((r) => r.transactionHash === h)
      },
      hashOf: (r: Receipt) => r.transactionHash,
      intervalMs: 5,
      limitMs: 60_000,
    },
  }
}
const tick = () => new Promise((r) => setTimeout(r, 30))

describe('createReceiptWatcher', () => {
  it('answers every transaction of a block from one read of its receipts, with one head read per interval', async () => {
    const chain = fakeChain()
    // The recheck far away (it has a case of its own below): on a stalled machine one came due before
    // the block's answers and asked 15 of the waits alone again (CI run 160: 65 asks, not 50).
    const watcher = createReceiptWatcher({ ...chain.parameters, recheckEvery: 10_000 })
    const hashes = Array.from({ length: 50 }, (_, i) => hash(i + 1))
    const waits = hashes.map((h) => watcher.wait(h))
    await tick()
    const asked = { ...chain.calls }
    chain.mine(...hashes)
    const receipts = await Promise.all(waits)
    assert.deepEqual(
      receipts.map((r) => r.transactionHash),
      hashes,
    )
    assert.equal(chain.calls.blockReceipts - asked.blockReceipts, 1, 'the block is read once')
    assert.equal(chain.calls.receipt, 50, 'each transaction was asked alone only once, when its wait began')
    assert.ok(chain.calls.blockNumber < 20, `head reads per interval, not per transaction: ${chain.calls.blockNumber}`)
    watcher.close()
  })

  it('answers a wait that begins after its block was read from the receipts the watch keeps, without asking the node', async () => {
    const chain = fakeChain()
    const watcher = createReceiptWatcher(chain.parameters)
    const other = watcher.wait(hash(99)) // keeps the watch running
    await tick()
    chain.mine(hash(1)) // mined on broadcast, before its wait begins
    await tick()
    const asked = chain.calls.receipt
    assert.equal((await watcher.wait(hash(1))).blockNumber, 1n)
    assert.equal(chain.calls.receipt, asked, 'answered from the block already read')
    chain.mine(hash(99))
    await other
    watcher.close()
  })

  it('answers a wait begun before the broadcast from a block read after it, however many blocks came before the answer, without asking the node', async () => {
    const chain = fakeChain()
    // A recheck far away: the blocks read must find it.
    const watcher = createReceiptWatcher({ ...chain.parameters, recheckEvery: 10_000, recentBlocks: 4 })
    const other = watcher.wait(hash(99)) // keeps the watch running
    await tick()
    const asked = chain.calls.receipt
    const wait = watcher.wait(hash(1), { unsent: true }) // signed and journaled: waited for before its broadcast
    chain.mine(hash(1)) // mined on broadcast...
    for (let i = 0; i < 6; i++) chain.mine() // ...and more blocks than the watch keeps before the broadcast is answered
    const receipt = await Promise.race([wait, new Promise<undefined>((r) => setTimeout(() => r(undefined), 500))])
    assert.equal(receipt?.blockNumber, 1n, 'answered by the block read, not at a recheck')
    assert.equal(chain.calls.receipt, asked, 'nothing asked alone')
    chain.mine(hash(99))
    await other
    watcher.close()
  })

  it('counts a wait begun before its broadcast from the broadcast at the recheck: not asked alone for the time the broadcast took', async () => {
    const chain = fakeChain()
    /** When each hash was asked alone (performance.now()). */
    const asked = new Map<Hex, number[]>()
    const watcher = createReceiptWatcher({
      ...chain.parameters,
      intervalMs: 20,
      recheckEvery: 5, // every fifth step, for waits of 100 ms or more
      receipt: async (h: Hex) => void asked.set(h, [...(asked.get(h) ?? []), performance.now()]),
    })
    const period = 5 * 20
    void watcher.wait(hash(1)).catch(() => {}) // starts the watch
    await new Promise((r) => setTimeout(r, 50))
    void watcher.wait(hash(2), { unsent: true }).catch(() => {}) // signed: waited for before its broadcast
    await new Promise((r) => setTimeout(r, 150)) // a slow broadcast, longer than a recheck period
    assert.equal(asked.get(hash(2)), undefined, 'not asked before its broadcast either')
    const broadcastAt = performance.now()
    watcher.broadcast(hash(2))
    // Past the next recheck step (every fifth; one head read each). On a loaded machine that step may
    // come a whole period after the broadcast: only then may it ask.
    const recheck = Math.floor(chain.calls.blockNumber / 5) * 5 + 5
    while (chain.calls.blockNumber < recheck + 1) await new Promise((r) => setTimeout(r, 2))
    for (const at of asked.get(hash(2)) ?? [])
      assert.ok(
        at - broadcastAt >= period,
        `its period counts from the broadcast: asked ${Math.round(at - broadcastAt)} ms after it`,
      )
    watcher.close()
  })

  it('places a watch that starts from nothing before a wait begun unsent goes: the blocks read find it, nothing is asked alone (a new watch, after a long lull, after a failed step)', async () => {
    const chain = fakeChain()
    let failNext = false
    const watcher = createReceiptWatcher({
      ...chain.parameters,
      intervalMs: 10,
      recheckEvery: 10_000, // no recheck: the blocks read must find each one
      blockNumber: async () => {
        chain.calls.blockNumber++
        if (failNext) {
          failNext = false
          throw new Error('the node did not answer')
        }
        return BigInt(chain.blocksMined())
      },
    })
    const broadcastOnce = async (h: Hex) => {
      const mined = watcher.wait(h, { unsent: true }) // signed and journaled
      await watcher.placed() // the broadcast goes once the watch has its place...
      chain.mine(h) // ...and the node mines it at once,
      for (let i = 0; i < 2; i++) chain.mine() // with blocks after it before the watch steps again
      watcher.broadcast(h)
      return mined
    }
    assert.equal((await broadcastOnce(hash(1))).blockNumber, 1n, 'a new watch')
    await new Promise((r) => setTimeout(r, 50)) // a lull: nothing waited for
    assert.equal((await broadcastOnce(hash(2))).blockNumber, 4n, 'after a short lull')
    await new Promise((r) => setTimeout(r, 150)) // longer than a recheck period: the watch starts from the head
    assert.equal((await broadcastOnce(hash(3))).blockNumber, 7n, 'after a long lull')
    const keep = watcher.wait(hash(99)) // keeps the watch stepping
    keep.catch(() => {})
    failNext = true
    while (failNext) await new Promise((r) => setTimeout(r, 2)) // a step failed: the watch has no place
    assert.equal((await broadcastOnce(hash(4))).blockNumber, 10n, 'after a failed step')
    assert.equal(chain.calls.receipt, 0, 'nothing asked alone: each was in a block read after the watch had its place')
    chain.mine(hash(99))
    await keep
    watcher.close()
    await watcher.placed() // a closed watch holds no broadcast
    await createReceiptWatcher(chain.parameters).placed() // nor one that waits for nothing
  })

  it('reads on from the last block read whole after a failed step: a block whose read failed, or mined while the head read failed, is read at the next step (CI runs 63, 89)', async () => {
    for (const failing of ['head', 'block'] as const) {
      const chain = fakeChain()
      let failAt: bigint | 'head' | undefined
      const failed: string[] = []
      const watcher = createReceiptWatcher({
        ...chain.parameters,
        intervalMs: 5,
        recheckEvery: 10_000, // no recheck: the blocks read must find it
        blockNumber: async () => {
          if (failAt === 'head') {
            failAt = undefined
            throw new Error('the node did not answer')
          }
          return chain.parameters.blockNumber()
        },
        blockReceipts: async (n: bigint) => {
          if (failAt === n) {
            failAt = undefined
            throw new Error(`the node has no block ${n} yet`)
          }
          return chain.parameters.blockReceipts(n)
        },
        onError: (err) => failed.push((err as Error).message),
      })
      const mined = watcher.wait(hash(7), { unsent: true })
      await watcher.placed()
      // Its block and one after it come at once; the step that meets them fails (at the head read,
      // or at its block's receipts), and the next one sees a head past its block.
      failAt = failing === 'head' ? 'head' : BigInt(chain.blocksMined() + 1)
      chain.mine(hash(7))
      chain.mine()
      watcher.broadcast(hash(7))
      while (failAt !== undefined) await new Promise((r) => setTimeout(r, 2))
      chain.mine()
      const answer = await Promise.race([mined, new Promise((r) => setTimeout(r, 1_000, 'not found'))])
      assert.notEqual(answer, 'not found', `${failing}: the block that mined it was skipped (${failed})`)
      assert.equal((answer as Receipt).blockNumber, 1n, failing)
      assert.equal(failed.length, 1, failing)
      assert.equal(chain.calls.receipt, 0, `${failing}: found by reading its block, not by asking it alone`)
      watcher.close()
    }
  })

  it('forgets a transaction the node refused: it is no longer waited for', async () => {
    const chain = fakeChain()
    const watcher = createReceiptWatcher(chain.parameters)
    void watcher.wait(hash(5), { unsent: true })
    assert.equal(watcher.waiting(), 1)
    watcher.forget(hash(5))
    assert.equal(watcher.waiting(), 0)
    watcher.close()
  })

  it('finds a transaction mined before its wait began, and reads every block after a short gap', async () => {
    const chain = fakeChain()
    chain.mine(hash(1))
    const watcher = createReceiptWatcher(chain.parameters)
    assert.equal((await watcher.wait(hash(1))).blockNumber, 1n)
    const later = watcher.wait(hash(3))
    await tick()
    chain.mine(hash(2))
    chain.mine(hash(3))
    assert.equal((await later).blockNumber, 3n)
    watcher.close()
  })

  it('asks each transaction alone where the node has no eth_getBlockReceipts, or after a long gap', async () => {
    for (const setup of [
      { blockReceipts: false, gap: 1 },
      { blockReceipts: true, gap: 40 },
    ]) {
      const chain = fakeChain({ blockReceipts: setup.blockReceipts })
      const watcher = createReceiptWatcher({ ...chain.parameters, intervalMs: 50, maxBlocksPerTick: 16 })
      const waits = [watcher.wait(hash(7)), watcher.wait(hash(8))]
      await tick()
      for (let i = 1; i < setup.gap; i++) chain.mine()
      chain.mine(hash(7), hash(8))
      assert.deepEqual(
        (await Promise.all(waits)).map((r) => r.transactionHash),
        [hash(7), hash(8)],
      )
      assert.ok(chain.calls.blockReceipts <= 1, JSON.stringify(chain.calls))
      watcher.close()
    }
  })

  it('finds by the periodic recheck a receipt no block read showed (a reorg moved it)', async () => {
    const chain = fakeChain()
    let minedElsewhere = false
    let alone = 0
    const watcher = createReceiptWatcher({
      ...chain.parameters,
      recheckEvery: 3,
      // Blocks keep coming, but none the watch reads holds it.
      blockReceipts: async () => (chain.mine(), []),
      receipt: async (h: Hex) => (alone++, minedElsewhere ? { transactionHash: h, blockNumber: 1n } : undefined),
    })
    const wait = watcher.wait(hash(9))
    await tick()
    minedElsewhere = true
    assert.equal((await wait).transactionHash, hash(9))
    assert.ok(alone >= 2, 'asked at the start and again by the recheck')
    watcher.close()
  })

  it('asks alone, at a recheck, only the transactions waited for a whole recheck period', async () => {
    // Rechecks go by the clock, not by steps: on a loaded machine a step can come late, so the
    // test reads the times of the asks, not a count of steps (it stalled once in CI, run 109).
    const chain = fakeChain()
    const asks: { hash: Hex; at: number }[] = []
    const watcher = createReceiptWatcher({
      ...chain.parameters,
      intervalMs: 20,
      recheckEvery: 5, // a recheck period of 100 ms
      receipt: async (h: Hex) => void asks.push({ hash: h, at: Date.now() }),
    })
    const period = 100
    /** The asks of the older transaction after `t`: one at each recheck. */
    const rechecksAfter = (t: number) => asks.filter((a) => a.hash === hash(1) && a.at >= t).length
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((r) => setTimeout(r, 2))
    }
    void watcher.wait(hash(1)).catch(() => {}) // starts the watch: asked alone at once
    await until(() => chain.calls.blockNumber >= 4)
    const before = Date.now()
    void watcher.wait(hash(2)).catch(() => {}) // the watch runs: not asked at once
    const after = Date.now()
    // A recheck's clock is read when its step begins. The second recheck whose ask came after the
    // wait began began its step after that; the third comes a whole period later still: it asks.
    await until(() => rechecksAfter(after) >= 3)
    const second = asks.filter((a) => a.hash === hash(2))
    assert.ok(second.length >= 1, 'a recheck a whole period after its wait began asks it')
    for (const a of second)
      assert.ok(a.at - before >= period, `asked ${a.at - before} ms after its wait began, before a whole period`)
    watcher.close()
  })

  it('keeps its place through a short lull: the next wait asks nothing alone and is answered by the blocks read since; after a long lull it starts from the head', async () => {
    const chain = fakeChain()
    const watcher = createReceiptWatcher({ ...chain.parameters, intervalMs: 10, recheckEvery: 10 })
    const first = watcher.wait(hash(1))
    await tick()
    chain.mine(hash(1))
    await first
    await tick() // nothing waited for: the steps stop
    const asked = chain.calls.receipt
    chain.mine(hash(2)) // mined during the lull, before its wait begins
    const second = watcher.wait(hash(2))
    assert.equal((await second).blockNumber, 2n)
    assert.equal(chain.calls.receipt, asked, 'found in the block read since, not asked alone')
    await new Promise((r) => setTimeout(r, 150)) // longer than a recheck period (100 ms)
    const third = watcher.wait(hash(3))
    assert.equal(chain.calls.receipt, asked + 1, 'after a long lull the watch starts again from the head: asked alone')
    chain.mine(hash(3))
    await third
    watcher.close()
  })

  it('rejects a wait past its limit, and every wait when it closes', async () => {
    const chain = fakeChain()
    const watcher = createReceiptWatcher({ ...chain.parameters, limitMs: 20 })
    await assert.rejects(watcher.wait(hash(1)), /no receipt for 0x0+1 within/)
    const open = watcher.wait(hash(2))
    watcher.close()
    await assert.rejects(open, /the gateway closed while watching/)
    await assert.rejects(watcher.wait(hash(3)), /the gateway closed while watching/)
  })

  it('ends only the waits past their limit: a later wait for the same transaction, and other transactions, go on', async () => {
    const chain = fakeChain()
    const watcher = createReceiptWatcher({ ...chain.parameters, limitMs: 150 })
    const early = watcher.wait(hash(1))
    await new Promise((r) => setTimeout(r, 100))
    const late = watcher.wait(hash(1))
    const other = watcher.wait(hash(2))
    await assert.rejects(early, /no receipt for 0x0+1 within/)
    chain.mine(hash(1), hash(2))
    assert.equal((await late).blockNumber, 1n, 'the later wait, within its limit, got the receipt')
    assert.equal((await other).blockNumber, 1n)
    watcher.close()
  })

  it('counts the transactions waited for, and tells of each new block once its receipts were read', async () => {
    const chain = fakeChain()
    let blocks = 0
    const watcher = createReceiptWatcher({ ...chain.parameters, onBlock: () => blocks++ })
    const waits = [watcher.wait(hash(101)), watcher.wait(hash(102))]
    assert.equal(watcher.waiting(), 2)
    await tick()
    const before = blocks
    chain.mine(hash(101))
    await waits[0]
    await tick()
    assert.equal(blocks - before, 1, 'one new block, told once')
    assert.equal(watcher.waiting(), 1)
    chain.mine(hash(102))
    await waits[1]
    assert.equal(watcher.waiting(), 0)
    watcher.close()
  })

  it('once it has seen the chain keep its pace, reads the head finely around each due block: a block is seen within 10 ms, not within the interval', async () => {
    // Time is mocked: blocks every 200 ms, the head read at most every 100 ms.
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 })
    try {
      const chain = fakeChain()
      const watcher = createReceiptWatcher({ ...chain.parameters, intervalMs: 100, recheckEvery: 10_000 })
      const hashes = Array.from({ length: 15 }, (_, i) => hash(i + 1))
      const answeredAt: number[] = []
      hashes.forEach((h, i) => void watcher.wait(h, { unsent: true }).then(() => (answeredAt[i] = Date.now())))
      const settle = async () => {
        for (let i = 0; i < 20; i++) await Promise.resolve()
      }
      await settle()
      // Block i + 1 at 200 i + 250: half an interval after a read at the interval.
      const minedAt = (i: number) => 200 * i + 250
      for (let t = 1; t <= minedAt(hashes.length); t++) {
        mock.timers.tick(1)
        const i = (t - 250) / 200
        if (Number.isInteger(i) && i >= 0 && i < hashes.length) chain.mine(hashes[i]!)
        await settle()
      }
      const lags = answeredAt.map((at, i) => at - minedAt(i))
      assert.ok(
        lags.slice(0, 3).some((lag) => lag > 10),
        `before the pace is known a block waits for the next read: ${lags}`,
      )
      assert.ok(
        lags.slice(6).every((lag) => lag >= 0 && lag <= 10),
        `after it, each block is seen within 10 ms: ${lags}`,
      )
      assert.ok(chain.calls.blockNumber < 15 * 8, `a few head reads a block: ${chain.calls.blockNumber}`)
      watcher.close()
    } finally {
      mock.timers.reset()
    }
  })
})
