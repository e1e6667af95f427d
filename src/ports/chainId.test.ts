import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseChainId } from './chainId.ts'

describe('parseChainId', () => {
  it('reads a decimal EVM id and its CAIP-2 form as the same chain', () => {
    assert.deepEqual(parseChainId('84532'), parseChainId('eip155:84532'))
    assert.deepEqual(parseChainId('84532'), {
      caip2: 'eip155:84532',
      namespace: 'eip155',
      reference: '84532',
      chainType: 'evm',
    })
  })

  it('knows the solana and sui namespaces and leaves unknown ones without a runtime', () => {
    assert.equal((parseChainId('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp') as { chainType: string }).chainType, 'solana')
    assert.equal((parseChainId('sui:mainnet') as { chainType: string }).chainType, 'sui')
    assert.equal((parseChainId('cosmos:cosmoshub-4') as { chainType?: string }).chainType, undefined)
  })

  it('says what is wrong with a bad id', () => {
    assert.match(parseChainId('0x14a34') as string, /"0x14a34" is not a chain id/)
    assert.match(parseChainId('eip155:abc') as string, /reference after eip155: must be a positive decimal integer/)
    assert.match(parseChainId('0') as string, /is not a chain id/)
    assert.match(parseChainId('99999999999999999999') as string, /is not a chain id/)
  })
})
