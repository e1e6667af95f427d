import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseChainList } from './parseChainList.ts'
import { selectEndpoints } from './selectEndpoints.ts'

describe('parseChainList', () => {
  it('reads both rpc forms and the chain metadata', () => {
    const { entries, skipped } = parseChainList([
      {
        name: 'Base Sepolia',
        chainId: 84532,
        nativeCurrency: { name: 'Sepolia Ether', symbol: 'ETH', decimals: 18 },
        rpc: [
          'https://a.example',
          { url: 'https://b.example', tracking: 'none', isOpenSource: true },
          { url: 'https://c.example' },
        ],
      },
    ])
    assert.equal(skipped, 0)
    assert.deepEqual(entries.get(84532), {
      chainId: 84532,
      name: 'Base Sepolia',
      nativeCurrency: { name: 'Sepolia Ether', symbol: 'ETH', decimals: 18 },
      rpcs: [
        { url: 'https://a.example', tracking: 'unspecified' },
        { url: 'https://b.example', tracking: 'none' },
        { url: 'https://c.example', tracking: 'unspecified' },
      ],
    })
  })

  it('skips malformed chains and rpc entries, and refuses a document that is not an array', () => {
    const { entries, skipped } = parseChainList([
      null,
      5,
      { chainId: '1', rpc: [] },
      { chainId: 2 },
      { chainId: -1, rpc: [] },
      { chainId: 3, rpc: [7, null, { url: 9 }, 'https://ok.example'], nativeCurrency: 'ETH' },
    ])
    assert.equal(skipped, 5)
    assert.deepEqual(entries.get(3)?.rpcs, [{ url: 'https://ok.example', tracking: 'unspecified' }])
    assert.equal(entries.get(3)?.nativeCurrency, undefined)
    assert.throws(() => parseChainList({ chains: [] }), /not a JSON array of chains \(got object\)/)
    assert.throws(() => parseChainList(null), /got null/)
  })
})

describe('selectEndpoints', () => {
  it('keeps usable http(s) URLs, non-tracking first, in registry order otherwise, deduplicated and bounded', () => {
    const urls = selectEndpoints([
      { url: 'https://tracks.example', tracking: 'yes' },
      { url: 'https://key.example/${INFURA_API_KEY}', tracking: 'none' },
      { url: 'wss://socket.example', tracking: 'none' },
      { url: 'not a url', tracking: 'none' },
      { url: 'https://limited.example', tracking: 'limited' },
      { url: 'https://private.example', tracking: 'none' },
      { url: 'https://private.example', tracking: 'none' },
      { url: 'http://plain.example', tracking: 'unspecified' },
    ])
    assert.deepEqual(urls, [
      'https://private.example',
      'https://limited.example',
      'http://plain.example',
      'https://tracks.example',
    ])
    assert.equal(
      selectEndpoints(
        Array.from({ length: 9 }, (_, i) => ({ url: `https://n${i}.example`, tracking: 'none' as const })),
        3,
      ).length,
      3,
    )
  })
})
