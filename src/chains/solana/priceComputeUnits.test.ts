import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { computeUnitLimitFor, computeUnitPriceFor, raisedComputeUnitPrice } from './priceComputeUnits.ts'

describe('the compute budget of a Solana execute', () => {
  it('asks for the simulated units plus a tenth and 1,000, at most 1,400,000', () => {
    assert.equal(computeUnitLimitFor(20_000n), 23_000)
    assert.equal(computeUnitLimitFor(0n), 1_000)
    assert.equal(computeUnitLimitFor(1_300_000n), 1_400_000)
  })
  it('bids the market price up to the ceiling', () => {
    assert.equal(computeUnitPriceFor(5_000n, 1_000_000n), 5_000n)
    assert.equal(computeUnitPriceFor(2_000_000n, 1_000_000n), 1_000_000n)
    assert.equal(computeUnitPriceFor(5_000n, 0n), 0n, 'a ceiling of 0 bids nothing')
  })
  it('raises a re-signed attempt by half (at least 1,000), or to the market if higher, within the ceiling', () => {
    assert.equal(raisedComputeUnitPrice(10_000n, 0n, 1_000_000n), 15_000n)
    assert.equal(raisedComputeUnitPrice(0n, 0n, 1_000_000n), 1_000n)
    assert.equal(raisedComputeUnitPrice(10_000n, 40_000n, 1_000_000n), 40_000n)
    assert.equal(raisedComputeUnitPrice(900_000n, 0n, 1_000_000n), 1_000_000n)
    assert.equal(raisedComputeUnitPrice(1_000_000n, 0n, 1_000_000n), 1_000_000n, 'at the ceiling it stays there')
    assert.equal(raisedComputeUnitPrice(0n, 0n, 0n), 0n, 'a ceiling of 0 never bids')
  })
})
