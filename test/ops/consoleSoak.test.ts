// The console's page under load: executions stream through the feed for OPS_SOAK_SECONDS (30 by
// default in `npm test`; `OPS_SOAK_SECONDS=300 node --import tsx --test test/ops/consoleSoak.test.ts`
// for the 5-minute run) while a second viewer never reads its stream. The page's lists stay at
// their bounds the whole time, its JS heap after a collection does not grow with the load, and the
// stalled viewer costs the gateway nothing it keeps (its queue is bounded; see createOpsFeed.test.ts).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { post } from '../support/testGateway.ts'
import { type ConsoleWorld, startConsoleWorld } from './consoleWorld.ts'

const seconds = Number(process.env.OPS_SOAK_SECONDS ?? 30)
let world: ConsoleWorld

describe(`operator console under load (${seconds} s)`, () => {
  before(async () => {
    world = await startConsoleWorld({ rateLimitMax: 0, feedBuffer: 32 })
  })
  after(async () => {
    await world?.stop()
  })

  it('keeps the page at its bounds and its heap flat', { timeout: (seconds + 120) * 1000 }, async () => {
    const page = await world.openConsole()
    const cdp = await page.context().newCDPSession(page)
    const heap = async () => {
      await cdp.send('HeapProfiler.collectGarbage')
      return (await cdp.send('Runtime.getHeapUsage')).usedSize
    }
    // A viewer that never reads: the gateway must not buffer for it without bound.
    const stalled = await fetch(`${world.base}/ops/events`, { headers: { authorization: `Bearer ${world.opsKey}` } })
    assert.equal(stalled.status, 200)

    const warm = async (n: number) => {
      for (let i = 0; i < n; i++)
        assert.equal(
          (
            await post(world.base, '/intents/execute', await world.intent(), {
              authorization: `Bearer ${world.agentKey}`,
            })
          ).status,
          200,
        )
    }
    // Past the lists' bounds once before measuring, so the baseline holds full lists.
    await warm(30)
    await page.locator('#settled tbody tr').nth(19).waitFor()
    const baseline = await heap()

    const until = Date.now() + seconds * 1000
    let sent = 0
    let most = { settled: 0, inflight: 0 }
    const sender = async () => {
      while (Date.now() < until) {
        const r = await post(world.base, '/intents/execute', await world.intent(), {
          authorization: `Bearer ${world.agentKey}`,
        })
        assert.equal(r.status, 200, JSON.stringify(r.body))
        sent++
      }
    }
    const sampler = async () => {
      while (Date.now() < until) {
        const [settled, inflight] = await Promise.all([
          page.locator('#settled tbody tr').count(),
          page.locator('#inflight tbody tr[data-key]').count(),
        ])
        most = { settled: Math.max(most.settled, settled), inflight: Math.max(most.inflight, inflight) }
        await new Promise((r) => setTimeout(r, 1000))
      }
    }
    await Promise.all([sender(), sampler()])
    const end = await heap()
    await stalled.body?.cancel()
    assert.ok(sent >= seconds, `only ${sent} executions in ${seconds} s`)
    assert.equal(most.settled, 20)
    assert.ok(most.inflight <= 500)
    // Flat: the lists are full at both ends; what the load left behind must be collectable.
    assert.ok(end < baseline * 1.5 + 2_000_000, `heap ${baseline} → ${end} bytes after ${sent} executions`)
    console.log(
      `ops soak: ${seconds} s, ${sent} executions, page heap ${baseline} → ${end} bytes, settled rows ≤ ${most.settled}, in-flight rows ≤ ${most.inflight}`,
    )
  })
})
