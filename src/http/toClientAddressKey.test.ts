import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { toClientAddressKey } from './toClientAddressKey.ts'

describe('toClientAddressKey', () => {
  it('keeps an IPv4 address as it is', () => {
    assert.equal(toClientAddressKey('203.0.113.7'), '203.0.113.7')
    assert.equal(toClientAddressKey('127.0.0.2'), '127.0.0.2')
  })

  it('reads an IPv4-mapped IPv6 address as its IPv4, however it is written', () => {
    assert.equal(toClientAddressKey('::ffff:203.0.113.7'), '203.0.113.7')
    assert.equal(toClientAddressKey('::FFFF:127.0.0.1'), '127.0.0.1')
    assert.equal(toClientAddressKey('::ffff:cb00:7107'), '203.0.113.7')
    assert.equal(toClientAddressKey('0:0:0:0:0:ffff:203.0.113.7'), '203.0.113.7')
  })

  it('counts every address of one IPv6 /64 as one client', () => {
    const key = toClientAddressKey('2001:db8:1:2::1')
    assert.equal(key, '2001:db8:1:2::/64')
    for (const other of [
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:abcd::9',
      '2001:db8:1:2:0:0:1.2.3.4',
    ]) {
      assert.equal(toClientAddressKey(other), key, other)
    }
    assert.notEqual(toClientAddressKey('2001:db8:1:3::1'), key, 'the next /64 is another client')
    assert.equal(toClientAddressKey('::1'), '0:0:0:0::/64')
    assert.equal(toClientAddressKey('::'), '0:0:0:0::/64')
    assert.equal(toClientAddressKey('fe80::1%eth0'), 'fe80:0:0:0::/64')
    assert.equal(toClientAddressKey('::1.2.3.4'), '0:0:0:0::/64', 'an IPv4-compatible address is IPv6, not mapped')
  })

  it('leaves anything that is not an IP address as it is', () => {
    assert.equal(toClientAddressKey(''), '')
    assert.equal(toClientAddressKey('not-an-ip'), 'not-an-ip')
    assert.equal(toClientAddressKey('1.2.3.999'), '1.2.3.999')
  })
})
