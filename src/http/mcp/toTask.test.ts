import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { toTask, toTaskState } from './toTask.ts'

const answer = (httpStatus: number, code: string, body: unknown = {}) => ({
  httpStatus,
  headers: { 'x-erc1066-status': code },
  body,
})
const hash = `0x${'1'.repeat(64)}`

describe('toTaskState: docs/api-contract.md §18', () => {
  it('maps the execution answers: working, completed, input_required, failed', () => {
    assert.equal(toTaskState(answer(202, '0xF3')), 'working')
    assert.equal(toTaskState(answer(202, '0x44')), 'working')
    assert.equal(toTaskState(answer(200, '0x11')), 'completed')
    for (const code of ['0xE5', '0x52', '0x55', '0x15'])
      assert.equal(toTaskState(answer(401, code)), 'input_required', code)
    for (const [status, code] of [
      [422, '0x50'],
      [409, '0x22'],
      [410, '0x46'],
      [403, '0x10'],
      [503, '0x40'],
      [402, '0x54'],
      [202, '0x20'],
    ] as const) {
      assert.equal(toTaskState(answer(status, code)), 'failed', code)
    }
  })

  it('is flat: the id the intent hash, no result while working, the tool result inlined once finished', () => {
    const now = new Date('2026-11-28T00:00:00.000Z')
    const working = toTask(hash, answer(202, '0xF3', { detail: 'not mined yet' }), undefined, now)
    assert.deepEqual(working, {
      taskId: hash,
      status: 'working',
      statusMessage: 'not mined yet',
      createdAt: now.toISOString(),
      lastUpdatedAt: now.toISOString(),
      ttlMs: 86_400_000,
      pollIntervalMs: 1000,
    })
    const reverted = toTask(hash, answer(422, '0x50', { status: '0x50' }), undefined, now) as {
      status: string
      result: { isError?: boolean; structuredContent: { httpStatus: number } }
    }
    assert.equal(reverted.status, 'failed')
    assert.equal(reverted.result.isError, true)
    assert.equal(reverted.result.structuredContent.httpStatus, 422)
  })
})
