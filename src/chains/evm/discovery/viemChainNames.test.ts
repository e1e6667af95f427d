import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { collectViemChainNames, findViemChain, findViemChainName } from './findViemChain.ts'
import { viemChainNames } from './viemChainNames.ts'

describe('viemChainNames', () => {
  it("is the installed viem's chain table (else run npm run build:chain-names)", async () => {
    assert.deepEqual(viemChainNames, await collectViemChainNames())
  })

  it('answers names and currencies as the table does', async () => {
    for (const id of [1, 10, 137, 8453, 31337, 11155111]) {
      const chain = (await findViemChain(id))!
      assert.deepEqual(findViemChainName(id), { name: chain.name, nativeCurrency: { ...chain.nativeCurrency } })
    }
    assert.equal(findViemChainName(999_999_999_999), undefined)
  })
})
