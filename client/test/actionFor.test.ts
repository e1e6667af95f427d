// The next step for each kind of answer: the table agents branch on.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { actionFor } from '../src/index.ts'

describe('actionFor', () => {
  const rows: [number, string, boolean, string][] = [
    [200, '0x01', false, 'done'],
    [200, '0x11', false, 'done'],
    [202, '0xF3', false, 'retry'],
    [202, '0x20', false, 'retry'],
    [409, '0xF8', false, 'retry'],
    [429, '0xF6', false, 'retry'],
    [503, '0xF4', false, 'retry'],
    [402, '0x55', false, 'pay'],
    [402, '0x52', false, 'pay'],
    [402, '0x54', false, 'fund'],
    [401, '0xE5', true, 'sign'],
    [401, '0xE4', true, 'sign'],
    [401, '0xE4', false, 'deny'],
    [400, '0xA0', false, 'deny'],
    [403, '0x10', false, 'deny'],
    [409, '0x22', false, 'deny'],
    [410, '0x21', false, 'deny'],
    [421, '0xA2', false, 'deny'],
    [422, '0x50', false, 'deny'],
    [501, '0xA1', false, 'deny'],
    [502, '0xF0', false, 'deny'],
  ]
  for (const [httpStatus, status, signing, action] of rows) {
    it(`${httpStatus} ${status}${signing ? ' with signing' : ''} → ${action}`, () => {
      assert.equal(actionFor({ httpStatus, status, ...(signing ? { signing: {} } : {}) }), action)
    })
  }
})
