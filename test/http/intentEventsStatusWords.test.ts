// The one status vocabulary (docs/api-contract.md §18) in the answers: GET /intents/{hash}, its
// events and MCP tasks/get say the same words of the same execution, as statusVocabulary.ts
// holds them: a claim not signed yet (working, 100), broadcast (working, 110), mined and final
// (completed, 200). Against anvil, through real HTTP.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Hex } from 'viem'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { statusVocabulary } from '../../src/status/statusVocabulary.ts'
import { eventually } from '../support/eventually.ts'
import { claimed } from '../support/journalContract.ts'
import { post, request, rpc, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const modern = '2026-07-28'
const tasks = 'io.modelcontextprotocol/tasks'

function tasksGet(baseUrl: string, taskId: string) {
  return request(baseUrl, '/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': modern,
      'mcp-method': 'tasks/get',
      'mcp-name': taskId,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/get',
      params: {
        taskId,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': modern,
          'io.modelcontextprotocol/clientInfo': { name: 'words-test', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [tasks]: {} } },
        },
      },
    }),
  })
}

/** The events of an intent, as its stream sends them, up to its end. */
async function events(baseUrl: string, intentHash: string): Promise<Array<Record<string, any>>> {
  const res = await fetch(`${baseUrl}/intents/${intentHash}/events`, { headers: { accept: 'text/event-stream' } })
  assert.equal(res.status, 200)
  const text = await res.text()
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)))
}

describe('the status words of an execution (§18)', () => {
  let devnet: Devnet
  let gateway: TestGateway

  before(async () => {
    devnet = await startDevnet()
    gateway = await startTestGateway({ chains: [devnet.chain], receiptTimeoutMs: 300, reconcileIntervalMs: 200 })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  it('says working/100 of a claim, working/110 once broadcast, completed/200 once final: the same in GET, the events and tasks/get', async () => {
    const intent = await signedIntent(devnet, { nonce: '9401' })
    const validated = await post(gateway.baseUrl, '/intents/validate', intent)
    const intentHash = validated.headers.get('x-intent-hash') as Hex
    const b = intent as Record<string, string>
    const claim = await claimed(gateway.journal, {
      chainId: validated.headers.get('x-chain-id')!,
      intentHash,
      intent: {
        sender: b.sender!,
        target: b.target!,
        data: b.data as Hex,
        value: 0n,
        nonce: 9401n,
        validAfter: 0n,
        validBefore: 0n,
        policyId: b.policyId as Hex,
      },
    })
    const asClaimed = await request(gateway.baseUrl, `/intents/${intentHash}`)
    assert.equal(asClaimed.status, 202, asClaimed.text)
    assert.deepEqual(asClaimed.body.statusWords, {
      taskState: 'working',
      relayerStatus: 100,
      relayerMeaning: statusVocabulary.relayerMeanings[100],
    })
    assert.equal((await tasksGet(gateway.baseUrl, intentHash)).body.result.status, 'working')
    await gateway.journal.release(claim)

    await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const sent = await post(gateway.baseUrl, '/intents/execute', intent)
      assert.equal(sent.status, 202, sent.text)
      const pending = await request(gateway.baseUrl, `/intents/${intentHash}`)
      assert.deepEqual(pending.body.statusWords, {
        taskState: 'working',
        relayerStatus: 110,
        relayerMeaning: statusVocabulary.relayerMeanings[110],
      })
      assert.equal((await tasksGet(gateway.baseUrl, intentHash)).body.result.status, pending.body.statusWords.taskState)
    } finally {
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
    }
    const done = await eventually('executed', 15_000, async () => {
      const res = await request(gateway.baseUrl, `/intents/${intentHash}`)
      return res.status === 200 ? res : undefined
    })
    assert.deepEqual(done.body.statusWords, {
      taskState: 'completed',
      relayerStatus: 200,
      relayerMeaning: 'included and successful',
    })
    assert.equal((await tasksGet(gateway.baseUrl, intentHash)).body.result.status, 'completed')
    const stream = await events(gateway.baseUrl, intentHash)
    assert.deepEqual(
      stream.map((e) => [e.type, e.statusWords.taskState, e.statusWords.relayerStatus]),
      [
        ['submitted', 'working', 110],
        ['mined', 'working', 110],
        ['final', 'completed', 200],
      ],
    )
    // The final event and GET say the same.
    assert.deepEqual(stream.at(-1)!.statusWords, done.body.statusWords)
  })
})
