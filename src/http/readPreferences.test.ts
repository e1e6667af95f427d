import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readReceiptWait } from './readPreferences.ts'

describe('readReceiptWait (RFC 7240 Prefer on execute)', () => {
  const timeout = 60_000

  it('waits RECEIPT_TIMEOUT_MS without a Prefer header, and says nothing applied', () => {
    assert.deepEqual(readReceiptWait(undefined, timeout), { waitMs: timeout, applied: undefined })
    assert.deepEqual(readReceiptWait('', timeout), { waitMs: timeout, applied: undefined })
  })

  it('answers once sent for respond-async, in any case and among other preferences', () => {
    const once = { waitMs: 0, applied: 'respond-async' }
    assert.deepEqual(readReceiptWait('respond-async', timeout), once)
    assert.deepEqual(readReceiptWait('Respond-Async', timeout), once)
    assert.deepEqual(readReceiptWait('return=minimal, respond-async', timeout), once)
    assert.deepEqual(readReceiptWait(['handling=lenient', 'respond-async'], timeout), once)
  })

  it("waits N seconds for wait=N (alone or with respond-async), within the gateway's own bound", () => {
    assert.deepEqual(readReceiptWait('wait=5', timeout), { waitMs: 5_000, applied: 'wait=5' })
    assert.deepEqual(readReceiptWait('respond-async, wait=0', timeout), { waitMs: 0, applied: 'respond-async, wait=0' })
    assert.deepEqual(readReceiptWait('respond-async; foo=bar, wait=3', timeout), {
      waitMs: 3_000,
      applied: 'respond-async, wait=3',
    })
    // At or past RECEIPT_TIMEOUT_MS the gateway's bound answers: nothing applied.
    assert.deepEqual(readReceiptWait('wait=60', timeout), { waitMs: timeout, applied: undefined })
    assert.deepEqual(readReceiptWait('wait=600', timeout), { waitMs: timeout, applied: undefined })
    assert.deepEqual(readReceiptWait('respond-async, wait=600', timeout), { waitMs: 0, applied: 'respond-async' })
  })

  it('ignores what it does not understand, never refusing (RFC 7240 §2)', () => {
    for (const header of [
      'wait=soon',
      'wait=-1',
      'wait=1.5',
      'wait=',
      'wait=99999999999',
      'handling=strict',
      ',,;',
      '"',
    ])
      assert.deepEqual(readReceiptWait(header, timeout), { waitMs: timeout, applied: undefined }, header)
    assert.deepEqual(readReceiptWait('wait=soon, respond-async', timeout), { waitMs: 0, applied: 'respond-async' })
  })
})
