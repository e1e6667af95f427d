import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { solanaModule } from './index.ts'
import { defaultSolanaOptions, readSolanaOptions } from './solanaOptions.ts'

describe('SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS', () => {
  it('defaults to 1,000,000 micro-lamports per compute unit; reads a whole number, 0 included', () => {
    const problems: string[] = []
    assert.deepEqual(readSolanaOptions({}, problems), { maxPriorityFeeMicroLamports: 1_000_000 })
    assert.deepEqual(readSolanaOptions({ SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: ' 250000 ' }, problems), {
      maxPriorityFeeMicroLamports: 250_000,
    })
    assert.deepEqual(readSolanaOptions({ SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: '0' }, problems), {
      maxPriorityFeeMicroLamports: 0,
    })
    assert.deepEqual(problems, [])
  })
  it('names the setting for anything else', () => {
    for (const value of ['-1', '1.5', 'lots', '1000000000001', '1e6']) {
      const problems: string[] = []
      assert.deepEqual(
        readSolanaOptions({ SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: value }, problems),
        defaultSolanaOptions,
      )
      assert.equal(problems.length, 1, value)
      assert.match(
        problems[0]!,
        /^SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: must be a whole number of micro-lamports per compute unit from 0 to 1000000000000/,
      )
    }
  })
  it('is what the Solana module hands back as its options', () => {
    const problems: string[] = []
    const settings = solanaModule.readSettings(
      { SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: '5000' },
      { production: false, problems },
    )
    assert.deepEqual([settings.options, problems], [{ maxPriorityFeeMicroLamports: 5_000 }, []])
  })
})
