import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { hashApiKey } from '../crypto/hashApiKey.ts'
import { createApiKeyCheck } from './createApiKeyCheck.ts'

describe('createApiKeyCheck', () => {
  it('recognises configured keys by hash and names them by a short id', () => {
    const check = createApiKeyCheck([hashApiKey('first-key-0123456789'), hashApiKey('second-key-0123456789')])
    assert.equal(
      check.identify('second-key-0123456789'),
      hashApiKey('second-key-0123456789').toString('hex').slice(0, 8),
    )
    assert.equal(check.identify('first-key-0123456789x'), undefined)
    assert.equal(check.identify(''), undefined)
    assert.equal(createApiKeyCheck([]).identify('anything'), undefined)
  })
})
