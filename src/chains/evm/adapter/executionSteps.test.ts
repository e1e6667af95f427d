import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { executionSteps } from './executionSteps.ts'

describe('executionSteps', () => {
  it('says how long each step took, each from the end of the one before', () => {
    assert.deepEqual(
      executionSteps(
        { receivedAt: 100, preparedAt: 112.34, askedAt: 137, simulatedAt: 172.5, claimedAt: 184, signedAt: 184.46 },
        242.5,
      ),
      { intake: 12.3, batching: 24.7, simulation: 35.5, turn: 11.5, signing: 0.5, broadcast: 58 },
    )
  })

  it('leaves out a step whose start is not known: no request time, no batch (an estimate), no claim or signature marked', () => {
    assert.deepEqual(
      executionSteps({ receivedAt: undefined, preparedAt: 10, askedAt: undefined, simulatedAt: 30 }, 45),
      {
        simulation: 20,
        broadcast: 15,
      },
    )
  })
})
