// Tasks (io.modelcontextprotocol/tasks, MCP 2026-07-28) on /mcp: an execute_intent not final yet
// answers a task whose id is the intent hash; tasks/get follows it from the journal, across a
// gateway restart on the same SQLite journal and from another instance on one PostgreSQL journal,
// to `completed` with the tool result inlined. The
// task methods answer only a client that declared the extension (-32021).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { eventually } from '../support/eventually.ts'
import { createTestDatabase } from '../support/postgresDatabase.ts'
import { request, rpc, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const modern = '2026-07-28'
const tasks = 'io.modelcontextprotocol/tasks'

/** A raw 2026-07-28 request; `withTasks`: the client declares the Tasks extension. */
function modernMcp(baseUrl: string, id: number, method: string, params: Record<string, unknown>, withTasks = true) {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': modern,
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': withTasks ? { extensions: { [tasks]: {} } } : {},
  }
  const name =
    typeof params.name === 'string'
      ? { 'mcp-name': params.name }
      : typeof params.taskId === 'string'
        ? { 'mcp-name': params.taskId }
        : {}
  return request(baseUrl, '/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': modern,
      'mcp-method': method,
      ...name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } }),
  })
}

describe('MCP Tasks: execute_intent followed with tasks/get', () => {
  let devnet: Devnet
  let dir: string
  let gateway: TestGateway | undefined
  const start = (journalPath: string) =>
    startTestGateway({
      chains: [devnet.chain],
      receiptTimeoutMs: 300,
      reconcileIntervalMs: 200,
      storageOptions: { sqlite: { path: journalPath, synchronous: 'full' } },
    })

  before(async () => {
    devnet = await startDevnet()
    dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-'))
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('offers the extension in server/discover, and answers tasks/get only to a client that declared it', async () => {
    gateway = await start(join(dir, 'gating.sqlite'))
    try {
      const discover = await modernMcp(gateway.baseUrl, 1, 'server/discover', {})
      assert.deepEqual(discover.body.result.capabilities.extensions, { [tasks]: {} })
      const taskId = `0x${'ab'.repeat(32)}`
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
        // Whatever the params: the capability is checked first.
        const undeclared = await modernMcp(gateway.baseUrl, 2, method, { taskId: 'not-a-hash' }, false)
        assert.equal(undeclared.status, 400, undeclared.text)
        assert.equal(undeclared.body.error.code, -32021)
        assert.deepEqual(undeclared.body.error.data.requiredCapabilities, { extensions: { [tasks]: {} } })
      }
      const unknown = await modernMcp(gateway.baseUrl, 3, 'tasks/get', { taskId })
      assert.equal(unknown.body.error.code, -32602, unknown.text)
      assert.match(unknown.body.error.message, /Unknown task/)
      const malformed = await modernMcp(gateway.baseUrl, 4, 'tasks/get', { taskId: 'not-a-hash' })
      assert.equal(malformed.body.error.code, -32602, malformed.text)
    } finally {
      await gateway.close()
      gateway = undefined
    }
  })

  it('answers an execute not mined yet with a working task (id: the intent hash), followed to completed across a restart', async () => {
    const journalPath = join(dir, 'journal.sqlite')
    gateway = await start(journalPath)
    const intent = await signedIntent(devnet, { nonce: '8101' })
    await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    let taskId: string
    try {
      const created = await modernMcp(gateway.baseUrl, 1, 'tools/call', {
        name: 'execute_intent',
        arguments: { intent },
      })
      assert.equal(created.status, 200, created.text)
      const task = created.body.result
      assert.equal(task.resultType, 'task', created.text)
      assert.equal(task.status, 'working')
      assert.match(task.taskId, /^0x[0-9a-f]{64}$/)
      assert.equal(task.task, undefined, 'flat: no nested task')
      assert.equal(task.result, undefined)
      assert.equal(typeof task.ttlMs, 'number')
      taskId = task.taskId
      const executed = await request(gateway.baseUrl, `/intents/${taskId}`)
      assert.equal(executed.status, 202, 'the task id is the intent hash GET /intents knows')

      const working = await modernMcp(gateway.baseUrl, 2, 'tasks/get', { taskId })
      assert.equal(working.body.result.status, 'working', working.text)
      assert.equal(working.body.result.taskId, taskId)

      // Made without a key: nobody can cancel or update it (mcpTaskCancel.test.ts has the keyed cases), and nothing changes.
      const cancel = await modernMcp(gateway.baseUrl, 5, 'tasks/cancel', { taskId })
      assert.equal(cancel.body.error.code, -32602, cancel.text)
      assert.equal(
        cancel.body.error.message,
        `Task ${taskId} cannot be cancelled: it was created without a credential, so nobody can show they created it`,
      )
      const update = await modernMcp(gateway.baseUrl, 6, 'tasks/update', { taskId, inputResponses: {} })
      assert.equal(update.body.error.code, -32602, update.text)
      assert.match(update.body.error.message, /cannot be updated: it was created without a credential/)
      assert.equal((await modernMcp(gateway.baseUrl, 7, 'tasks/get', { taskId })).body.result.status, 'working')

      // A client that did not declare the extension gets the tool result, as before (202, 0xF3).
      const plain = await modernMcp(
        gateway.baseUrl,
        3,
        'tools/call',
        { name: 'execute_intent', arguments: { intent: await signedIntent(devnet, { nonce: '8102' }) } },
        false,
      )
      assert.equal(plain.body.result.resultType, 'complete', plain.text)
      assert.equal(plain.body.result.structuredContent.httpStatus, 202)
    } finally {
      await gateway.close()
      gateway = undefined
    }
    // Mined while no gateway runs; a new one on the same journal follows the task to the end.
    await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
    await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
    gateway = await start(journalPath)
    const done = await eventually('the task completed', 15_000, async () => {
      const res = await modernMcp(gateway!.baseUrl, 4, 'tasks/get', { taskId })
      return res.body.result?.status === 'completed' ? res.body.result : undefined
    })
    assert.equal(done.taskId, taskId)
    assert.equal(done.result.structuredContent.httpStatus, 200)
    assert.equal(done.result.structuredContent.erc1066Status, '0x11')
    assert.equal(done.result.structuredContent.body.intentHash, taskId)
    assert.equal(done.result.isError, undefined)
  })

  it('answers tasks/get on another instance sharing the PostgreSQL journal', async () => {
    const database = await createTestDatabase('mcp_tasks')
    const startOn = (instanceId: string) =>
      startTestGateway({
        chains: [devnet.chain],
        receiptTimeoutMs: 300,
        reconcileIntervalMs: 200,
        storageOptions: { postgres: { url: database.url } },
        storage: { redisUrl: undefined, instanceId, relayerLeaseTtlMs: 1_000 },
      })
    const a = await startOn('tasks-a')
    try {
      const b = await startOn('tasks-b')
      try {
        await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
        let taskId: string
        try {
          const created = await modernMcp(a.baseUrl, 1, 'tools/call', {
            name: 'execute_intent',
            arguments: { intent: await signedIntent(devnet, { nonce: '8201' }) },
          })
          assert.equal(created.body.result.resultType, 'task', created.text)
          taskId = created.body.result.taskId
          const elsewhere = await modernMcp(b.baseUrl, 2, 'tasks/get', { taskId })
          assert.equal(elsewhere.body.result.status, 'working', elsewhere.text)
        } finally {
          await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
        }
        await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
        const done = await eventually('the task completed, read on the other instance', 15_000, async () => {
          const res = await modernMcp(b.baseUrl, 3, 'tasks/get', { taskId })
          return res.body.result?.status === 'completed' ? res.body.result : undefined
        })
        assert.equal(done.result.structuredContent.erc1066Status, '0x11')
      } finally {
        await b.close()
      }
    } finally {
      await a.close()
      await database.drop()
    }
  })
})
