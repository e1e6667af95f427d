import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { devnetListenHost } from './devnetListenHost.ts'

describe('devnetListenHost', () => {
  it('is loopback when HOST is unset or blank, whatever the production default says', () => {
    assert.equal(devnetListenHost({ env: {}, host: '0.0.0.0' }), '127.0.0.1')
    assert.equal(devnetListenHost({ env: { HOST: '  ' }, host: '0.0.0.0' }), '127.0.0.1')
  })
  it('keeps the host HOST asked for, all interfaces included', () => {
    assert.equal(devnetListenHost({ env: { HOST: '0.0.0.0' }, host: '0.0.0.0' }), '0.0.0.0')
    assert.equal(devnetListenHost({ env: { HOST: '10.0.0.5' }, host: '10.0.0.5' }), '10.0.0.5')
  })
})
