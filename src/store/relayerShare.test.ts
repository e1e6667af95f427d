import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { relayerShare } from './relayerShare.ts'

const shares = (keys: number, ids: string[]) =>
  ids.map((instanceId) => relayerShare({ keys, instanceIds: ids, instanceId }))

describe('relayerShare', () => {
  it('gives each live instance ⌊K/N⌋ or ⌈K/N⌉ keys, adding up to K, the extra ones to the first instances by id', () => {
    assert.deepEqual(shares(4, ['b', 'a', 'c']), [1, 2, 1])
    assert.deepEqual(shares(5, ['a', 'b', 'c']), [2, 2, 1])
    assert.deepEqual(shares(3, ['a', 'b', 'c']), [1, 1, 1])
    assert.deepEqual(shares(2, ['a', 'b', 'c']), [1, 1, 0])
    assert.deepEqual(shares(7, ['a']), [7])
    for (let keys = 0; keys <= 12; keys++) {
      for (let live = 1; live <= 6; live++) {
        const ids = Array.from({ length: live }, (_, i) => `gw-${i}`)
        const got = shares(keys, ids)
        assert.equal(
          got.reduce((a, b) => a + b, 0),
          keys,
          `${keys} keys over ${live}: ${got}`,
        )
        assert.ok(
          got.every((s) => s === Math.floor(keys / live) || s === Math.ceil(keys / live)),
          `${keys} keys over ${live}: ${got}`,
        )
        if (keys >= live) assert.ok(got.every((s) => s >= 1))
      }
    }
  })

  it('counts this instance among the live ones even before its own heartbeat is seen', () => {
    assert.equal(relayerShare({ keys: 4, instanceIds: ['a', 'b'], instanceId: 'c' }), 1)
  })
})
