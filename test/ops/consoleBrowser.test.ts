// The operator console in a real browser (the system's Chromium, headless) against anvil: the key
// typed once and kept in memory; an agent's key and a wrong key get nothing; an intent sent during
// the test goes from in flight to mined without a reload; the relayer's balance falls; a throttled
// client appears; the page's Pause makes the next execute answer 503 and its Resume makes it run;
// attacker-written text stays text.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { hashApiKey } from '../../src/crypto/hashApiKey.ts'
import { eventually } from '../support/eventually.ts'
import { post } from '../support/testGateway.ts'
import { type ConsoleWorld, startConsoleWorld } from './consoleWorld.ts'

const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return ((await res.json()) as { result: unknown }).result
}

let world: ConsoleWorld
let page: Page

describe('operator console in a browser', () => {
  before(async () => {
    world = await startConsoleWorld({ rateLimitMax: 40 })
  })
  after(async () => {
    await world?.stop()
  })

  it("shows nothing for an agent's key or a wrong key, and never puts a key in the URL or storage", async () => {
    const p = await world.browser.newPage()
    const requests: Array<{ url: string; authorization: string | undefined }> = []
    p.on('request', (r) => requests.push({ url: r.url(), authorization: r.headers().authorization }))
    await p.goto(`${world.base}/ops`)
    for (const key of [world.agentKey, 'not-anyones-key-at-all-123']) {
      await p.getByLabel('Operator key').fill(key)
      await p.getByRole('button', { name: 'Connect' }).click()
      await p.getByRole('alert').filter({ hasText: 'Refused' }).waitFor()
      assert.equal(await p.locator('#console').isVisible(), false)
      assert.equal(await p.locator('#chains table').count(), 0)
    }
    assert.deepEqual(await p.evaluate('[localStorage.length, sessionStorage.length, document.cookie]'), [0, 0, ''])
    assert.ok(requests.every((r) => !r.url.includes(world.agentKey)))
    await p.close()
  })

  it('connects with the operator key and follows an intent from in flight to mined without a reload; the balance falls', async () => {
    page = await world.openConsole()
    let navigations = 0
    page.on('framenavigated', () => navigations++)
    const chainId = world.devnet.chain.chainId
    const balanceCell = page.locator('#relayers tbody tr').first().locator('td.balance')
    const before = await balanceCell.textContent()
    assert.match(String(before), /ETH/)

    // Held in the mempool until mined below: the page sees it in flight first.
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    let answer: Promise<{ status: number }> | undefined
    try {
      answer = post(world.base, '/intents/execute', await world.intent(), { authorization: `Bearer ${world.agentKey}` })
      const row = page.locator('#inflight tbody tr[data-key]')
      await row.first().waitFor({ timeout: 10_000 })
      const hash = await row.first().getAttribute('data-key')
      assert.match(String(hash), /^0x[0-9a-f]{64}$/)
      // The row comes once the intent is claimed, and says pending once its transaction is signed
      // and sent (held in the mempool: automine is off).
      await page.locator(`#inflight tbody tr[data-key="${hash}"]`, { hasText: 'pending' }).waitFor({ timeout: 10_000 })
      await rpc(world.devnet.anvil.rpcUrl, 'evm_mine')
      const settledRow = page.locator(`#settled tbody tr[data-key="${hash}"]`)
      await settledRow.waitFor({ timeout: 10_000 })
      assert.match(String(await settledRow.textContent()), /mined/)
      assert.match(String(await settledRow.textContent()), new RegExp(chainId))
      await page.locator(`#inflight tbody tr[data-key="${hash}"]`).waitFor({ state: 'detached' })
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
    }
    assert.equal((await answer)?.status, 200)
    await eventually('the balance shown falls', 10_000, async () => {
      const now = await balanceCell.textContent()
      return now !== before &&
        Number.parseFloat(String(now).replace(/,/g, '')) < Number.parseFloat(String(before).replace(/,/g, ''))
        ? now
        : undefined
    })
    assert.equal(navigations, 0)
  })

  it('shows a throttled client', async () => {
    const noisyId = hashApiKey(world.noisyKey).toString('hex').slice(0, 8)
    let limited = 0
    for (let i = 0; i < 45 && limited === 0; i++) {
      const r = await post(world.base, '/intents/validate', await world.intent(), {
        authorization: `Bearer ${world.noisyKey}`,
      })
      if (r.status === 429) limited++
    }
    assert.equal(limited, 1)
    await page.locator('#throttled tbody tr', { hasText: `key:${noisyId}` }).waitFor({ timeout: 10_000 })
  })

  it('pauses from the page (next execute 503), resumes from the page (it runs)', async () => {
    const chainId = world.devnet.chain.chainId
    await page.getByRole('button', { name: `Pause ${chainId}` }).click()
    await page.locator('#chains tbody tr', { hasText: 'PAUSED' }).waitFor()
    const body = await world.intent()
    const refused = await post(world.base, '/intents/execute', body, { authorization: `Bearer ${world.agentKey}` })
    assert.equal(refused.status, 503)
    assert.equal(refused.headers.get('x-erc1066-status'), '0x42')
    await page.locator('#audit tbody tr', { hasText: 'pause' }).waitFor()
    await page.getByRole('button', { name: `Resume ${chainId}` }).click()
    await page.getByRole('button', { name: `Pause ${chainId}` }).waitFor()
    const runs = await post(world.base, '/intents/execute', body, { authorization: `Bearer ${world.agentKey}` })
    assert.equal(runs.status, 200, JSON.stringify(runs.body))
    if (process.env.OPS_SCREENSHOT) await page.screenshot({ path: process.env.OPS_SCREENSHOT, fullPage: true })
  })

  it('sets attacker-written text as text, never as markup', async () => {
    const marker = '<img src=x onerror="window.__owned=1">'
    const chainId = world.devnet.chain.chainId
    // A reason is free text kept in the audit; the page shows it like any journal or chain value.
    const paused = await post(
      world.base,
      `/ops/chains/${chainId}/pause`,
      { reason: marker },
      { authorization: `Bearer ${world.opsKey}` },
    )
    assert.equal(paused.status, 200)
    const cell = page.locator('#audit tbody tr', { hasText: marker }).first()
    await cell.waitFor()
    assert.equal(await page.locator('#audit img').count(), 0)
    assert.equal(await page.evaluate('window.__owned'), undefined)
    assert.equal(
      (await post(world.base, `/ops/chains/${chainId}/resume`, {}, { authorization: `Bearer ${world.opsKey}` })).status,
      200,
    )
  })
})
