import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { claimOf, hash, mined, signedTx } from '../../test/support/journalContract.ts'
import { createLogger } from '../logging/createLogger.ts'
import { openJournal } from './sqlite/openJournal.ts'
import { startRetention } from './startRetention.ts'

describe('startRetention', () => {
  it('prunes settled records older than the retention time on its interval, and starts nothing at 0', async () => {
    const journal = openJournal({ path: ':memory:' })
    const claim = await journal.claim(claimOf(1))
    assert.ok(claim.ok)
    await journal.recordSigned(claim.record, signedTx(0))
    await journal.settle(claim.record, mined)
    const logger = createLogger({ level: 'silent' })

    const off = startRetention({ journal, retentionMs: 0, intervalMs: 10, logger })
    await new Promise((r) => setTimeout(r, 50))
    await off.stop()
    assert.equal((await journal.get(hash(1)))?.state, 'mined', 'RETENTION_DAYS=0 keeps everything')

    const on = startRetention({ journal, retentionMs: 1, intervalMs: 10, logger })
    for (let i = 0; i < 100 && (await journal.get(hash(1))) !== undefined; i++)
      await new Promise((r) => setTimeout(r, 10))
    await on.stop()
    assert.equal(await journal.get(hash(1)), undefined)
    journal.close()
  })
})
