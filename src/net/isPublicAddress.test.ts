import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isPublicAddress } from './isPublicAddress.ts'

describe('isPublicAddress', () => {
  it('refuses loopback, private, link-local and other internal addresses, in every form', () => {
    for (const ip of [
      '127.0.0.1',
      '127.1.2.3',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      '[::1]',
      'fe80::1',
      'fe80::1%eth0',
      'fd00::1',
      'fc12::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a00:1',
      '2002:7f00:1::1',
      'ff02::1',
      'not an ip',
      '',
    ]) {
      assert.equal(isPublicAddress(ip), false, ip)
    }
  })

  it('accepts public addresses', () => {
    for (const ip of ['1.1.1.1', '8.8.8.8', '172.32.0.1', '104.16.0.1', '2606:4700::1111', '[2a00:1450:4001::200e]'])
      assert.equal(isPublicAddress(ip), true, ip)
  })
})
