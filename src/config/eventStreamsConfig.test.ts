import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { eventStreamsConfig } from './eventStreamsConfig.ts'

describe('eventStreamsConfig', () => {
  it('defaults to 4 per client, 16 per intent and a quarter of MAX_CONNECTIONS in all', () => {
    assert.deepEqual(eventStreamsConfig({}, { maxConnections: 512 }), {
      value: { maxPerClient: 4, maxPerIntent: 16, max: 128 },
      problems: [],
    })
    assert.equal(eventStreamsConfig({}, { maxConnections: 2 }).value.max, 1)
    assert.deepEqual(
      eventStreamsConfig({ SSE_MAX_STREAMS_PER_CLIENT: '2', SSE_MAX_STREAMS: '50' }, { maxConnections: 512 }).value,
      { maxPerClient: 2, maxPerIntent: 16, max: 50 },
    )
  })

  it('names a bad value, and a total that would leave no connection to anything else', () => {
    assert.deepEqual(
      eventStreamsConfig({ SSE_MAX_STREAMS_PER_CLIENT: '0', SSE_MAX_STREAMS: '512' }, { maxConnections: 512 }).problems,
      [
        'SSE_MAX_STREAMS_PER_CLIENT: "0" is not an integer between 1 and 100000',
        'SSE_MAX_STREAMS: 512 would let event streams hold every connection (MAX_CONNECTIONS is 512); keep it below, by default a quarter',
      ],
    )
  })
})
