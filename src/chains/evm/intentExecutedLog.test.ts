import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { decodeEventLog, encodeAbiParameters, encodeEventTopics, type Hex, toHex } from 'viem'
import { intentExecutorArtifact } from '../../contracts/intentExecutorArtifact.ts'
import { readIntentExecuted } from './intentExecutedLog.ts'

const abi = intentExecutorArtifact.abi

function log(status: Hex, returnData: Hex) {
  const topics = encodeEventTopics({
    abi,
    eventName: 'IntentExecuted',
    args: { intentHash: toHex(randomBytes(32)), executor: toHex(randomBytes(20)) },
  }) as Hex[]
  const data = encodeAbiParameters([{ type: 'bytes1' }, { type: 'bytes' }], [status, returnData])
  return { topics, data }
}

test('reads what viem decodes from 2,000 random IntentExecuted logs', () => {
  for (let i = 0; i < 2_000; i++) {
    const status = toHex(randomBytes(1))
    const returnData = toHex(randomBytes(Math.floor(Math.random() * (i % 10 === 0 ? 2_000 : 100))))
    const l = log(status, returnData)
    const viem = decodeEventLog({ abi, eventName: 'IntentExecuted', data: l.data, topics: l.topics as [Hex, ...Hex[]] })
    assert.deepEqual(readIntentExecuted(l), { status: viem.args.status, returnData: viem.args.returnData })
  }
})

test('another event, or data that is not abi.encode(bytes1, bytes), reads as nothing', () => {
  const good = log('0x11', '0xabcd')
  const other = encodeEventTopics({
    abi,
    eventName: 'NonceCancelled',
    args: { sender: toHex(randomBytes(20)), nonce: 1n },
  }) as Hex[]
  assert.equal(readIntentExecuted({ topics: other, data: good.data }), undefined)
  assert.equal(readIntentExecuted({ topics: good.topics.slice(0, 2), data: good.data }), undefined)
  assert.equal(readIntentExecuted({ topics: good.topics, data: '0x' }), undefined)
  assert.equal(
    readIntentExecuted({ topics: good.topics, data: good.data.slice(0, -64) as Hex }),
    undefined,
    'return data cut short',
  )
  const dirty = `0x11${'0'.repeat(61)}1${good.data.slice(66)}` as Hex
  assert.equal(
    readIntentExecuted({ topics: good.topics, data: dirty }),
    undefined,
    'bytes1 with bits set after its byte',
  )
  const badOffset =
    `${good.data.slice(0, 66)}${(1n << 70n).toString(16).padStart(64, '0')}${good.data.slice(130)}` as Hex
  assert.equal(readIntentExecuted({ topics: good.topics, data: badOffset }), undefined, 'an offset past the data')
  assert.deepEqual(readIntentExecuted(good), { status: '0x11', returnData: '0xabcd' })
})
