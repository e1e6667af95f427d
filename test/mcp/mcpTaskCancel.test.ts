// MCP tasks/cancel: only the identity that created a task (the API key id or OAuth identity the
// journal kept with the claim), only while its claim has signed nothing; a keyless task never.
// The race with the signer: on the SQLite and the PostgreSQL journals, a cancel and a
// recordSigned side by side end with exactly one winner, and a cancel that read `claimed` before
// the signer wrote never withdraws the signed record (a naive cancel, check then release, does).
// Then over /mcp on a gateway with API keys: a stranger, a keyless caller and a keyless task are
// refused with nothing changed; the creator cancels an unsigned claim, after which the same intent
// executes (its nonce unused); a signed task is not cancellable.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Hex } from 'viem'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { hashApiKey } from '../../src/crypto/hashApiKey.ts'
import { ClaimWithdrawnError } from '../../src/errors/claimWithdrawnError.ts'
import { cancelTask } from '../../src/http/mcp/cancelTask.ts'
import type { Intent } from '../../src/ports/intent.ts'
import type { Journal } from '../../src/ports/journal.ts'
import { openPostgresJournal } from '../../src/store/postgres/openPostgresJournal.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { claimed, claimOf, signedTx } from '../support/journalContract.ts'
import { createTestDatabase } from '../support/postgresDatabase.ts'
import { post, request, rpc, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const modern = '2026-07-28'

/** The journal's form of a request body (what execute claims with). */
function asIntent(body: Record<string, unknown>): Intent {
  const b = body as Record<string, string>
  return {
    sender: b.sender!,
    target: b.target!,
    data: b.data as Hex,
    value: BigInt(b.value!),
    nonce: BigInt(b.nonce!),
    validAfter: BigInt(b.validAfter ?? '0'),
    validBefore: BigInt(b.validBefore ?? '0'),
    policyId: b.policyId as Hex,
  }
}

/** A claim of a request that has signed nothing yet (preflight runs, or its payment settles), as execute makes it. */
async function claimFor(gateway: TestGateway, body: Record<string, unknown>, apiKeyId?: string) {
  const validated = await post(gateway.baseUrl, '/intents/validate', body)
  const intentHash = validated.headers.get('x-intent-hash') as Hex
  const chainId = validated.headers.get('x-chain-id')!
  const record = await claimed(gateway.journal, {
    chainId,
    intentHash,
    intent: asIntent(body),
    ...(apiKeyId ? { apiKeyId } : {}),
  })
  return { intentHash, record }
}
const tasks = 'io.modelcontextprotocol/tasks'

function modernMcp(baseUrl: string, id: number, method: string, params: Record<string, unknown>, key?: string) {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': modern,
    'io.modelcontextprotocol/clientInfo': { name: 'cancel-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [tasks]: {} } },
  }
  const name =
    typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined
  return request(baseUrl, '/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': modern,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } }),
  })
}

const backends: Array<{ name: string; open: () => Promise<{ journal: Journal; close: () => Promise<void> }> }> = [
  {
    name: 'SQLite',
    open: async () => {
      const journal = openJournal({ path: ':memory:' })
      return { journal, close: async () => void journal.close() }
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const database = await createTestDatabase('mcp_cancel')
      const journal = await openPostgresJournal({ url: database.url })
      return {
        journal,
        close: async () => {
          await journal.close()
          await database.drop()
        },
      }
    },
  },
]

for (const backend of backends) {
  describe(`tasks/cancel against the signer (${backend.name} journal)`, () => {
    let journal: Journal
    let close: () => Promise<void>
    before(async () => ({ journal, close } = await backend.open()))
    after(async () => close?.())

    it('withdraws a claim for its creator only; the signer then finds nothing to sign, and the intent can be claimed again', async () => {
      const claim = { ...claimOf(9001), apiKeyId: 'key-a' }
      const record = await claimed(journal, claim)
      for (const [caller, reason] of [
        ['key-b', 'not-creator'],
        [undefined, 'not-creator'],
      ] as const) {
        assert.deepEqual(await cancelTask({ journal, intentHash: claim.intentHash, caller }), { ok: false, reason })
        assert.equal((await journal.get(claim.intentHash))?.state, 'claimed', 'nothing changed')
      }
      const cancelled = await cancelTask({ journal, intentHash: claim.intentHash, caller: 'key-a' })
      assert.equal(cancelled.ok, true)
      assert.equal(await journal.get(claim.intentHash), undefined, 'no outcome recorded')
      await assert.rejects(journal.recordSigned(record, signedTx(1)), ClaimWithdrawnError)
      assert.equal(await journal.get(claim.intentHash), undefined, 'nothing signed was recorded')
      // Its nonce unused: the same intent may run later.
      const again = await journal.claim(claim)
      assert.equal(again.ok, true)
      if (again.ok) await journal.release(again.record)
    })

    it('refuses a keyless claim, whoever asks', async () => {
      const claim = claimOf(9002)
      await claimed(journal, claim)
      for (const caller of [undefined, 'key-a'])
        assert.deepEqual(await cancelTask({ journal, intentHash: claim.intentHash, caller }), {
          ok: false,
          reason: 'keyless',
        })
      assert.equal((await journal.get(claim.intentHash))?.state, 'claimed')
    })

    it('never withdraws a record signed after the cancel read it as claimed (the naive check-then-release deletes it)', async () => {
      const claim = { ...claimOf(9003), apiKeyId: 'key-a' }
      const record = await claimed(journal, claim)
      // The cancel reads `claimed`; the signer journals its transaction before the cancel writes.
      const stale = { ...record }
      const racing: Pick<Journal, 'get' | 'withdraw'> = {
        get: async (hash) => {
          const now = await journal.get(hash)
          if (now?.state === 'claimed') {
            await journal.recordSigned(record, signedTx(3))
            return stale
          }
          return now
        },
        withdraw: (r) => journal.withdraw(r),
      }
      const answer = await cancelTask({ journal: racing, intentHash: claim.intentHash, caller: 'key-a' })
      assert.deepEqual(answer, { ok: false, reason: 'not-cancellable', state: 'pending' })
      const kept = await journal.get(claim.intentHash)
      assert.equal(kept?.state, 'pending', 'the signed transaction is still journaled, to be settled')
      assert.equal(kept?.transaction?.id, signedTx(3).id)
      assert.deepEqual(await cancelTask({ journal, intentHash: claim.intentHash, caller: 'key-a' }), {
        ok: false,
        reason: 'not-cancellable',
        state: 'pending',
      })
    })

    it('side by side with recordSigned, exactly one wins, every time', async () => {
      for (let n = 0; n < 20; n++) {
        const claim = { ...claimOf(9100 + n), apiKeyId: 'key-a' }
        const record = await claimed(journal, claim)
        const [cancelled, signed] = await Promise.allSettled([
          cancelTask({ journal, intentHash: claim.intentHash, caller: 'key-a' }),
          journal.recordSigned(record, signedTx(100 + n)),
        ])
        const now = await journal.get(claim.intentHash)
        if (cancelled.status === 'fulfilled' && cancelled.value.ok) {
          assert.equal(signed.status, 'rejected', 'a cancelled claim is never signed')
          assert.equal(now, undefined)
        } else {
          assert.equal(signed.status, 'fulfilled', 'the signer won: its record stands')
          assert.equal(now?.state, 'pending')
        }
      }
    })
  })
}

describe('tasks/cancel over /mcp (API keys)', () => {
  const keyA = 'cancel-test-key-a-0123456789abcdef'
  const keyB = 'cancel-test-key-b-0123456789abcdef'
  const idA = hashApiKey(keyA).toString('hex').slice(0, 8)
  let devnet: Devnet
  let gateway: TestGateway

  before(async () => {
    devnet = await startDevnet()
    gateway = await startTestGateway({
      chains: [devnet.chain],
      receiptTimeoutMs: 300,
      reconcileIntervalMs: 200,
      auth: { keyHashes: [hashApiKey(keyA), hashApiKey(keyB)], requireForValidate: false },
    })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  it('cancels an unsigned claim for the key that made it only; the intent then runs, its nonce unused', async () => {
    const intent = await signedIntent(devnet, { nonce: '9301' })
    // A claim held by a request of key A that has signed nothing yet.
    const { intentHash, record } = await claimFor(gateway, intent, idA)

    const stranger = await modernMcp(gateway.baseUrl, 1, 'tasks/cancel', { taskId: intentHash }, keyB)
    assert.equal(stranger.body.error?.code, -32602, stranger.text)
    assert.match(stranger.body.error.message, /can be cancelled only by the API key or OAuth identity that created it/)
    const anonymous = await modernMcp(gateway.baseUrl, 2, 'tasks/cancel', { taskId: intentHash })
    assert.equal(anonymous.body.error?.code, -32602, anonymous.text)
    const update = await modernMcp(gateway.baseUrl, 3, 'tasks/update', { taskId: intentHash, inputResponses: {} }, keyB)
    assert.match(update.body.error.message, /only by the API key or OAuth identity that created it/)
    // The creator's input goes by calling execute_intent again, not through tasks/update.
    const own = await modernMcp(gateway.baseUrl, 3, 'tasks/update', { taskId: intentHash, inputResponses: {} }, keyA)
    assert.match(
      own.body.error?.message ?? '',
      /tasks\/update is not accepted: give a signature or a payment by calling execute_intent again/,
      own.text,
    )
    assert.equal((await gateway.journal.get(intentHash))?.state, 'claimed', 'nothing changed')

    const cancelled = await modernMcp(gateway.baseUrl, 4, 'tasks/cancel', { taskId: intentHash }, keyA)
    assert.equal(cancelled.status, 200, cancelled.text)
    assert.equal(cancelled.body.result.status, 'cancelled', cancelled.text)
    assert.equal(cancelled.body.result.taskId, intentHash)
    assert.equal((await request(gateway.baseUrl, `/intents/${intentHash}`)).status, 404, 'no outcome recorded')
    // The request that held the claim cannot sign it any more.
    await assert.rejects(gateway.journal.recordSigned(record, signedTx(9301)), ClaimWithdrawnError)

    const executed = await post(gateway.baseUrl, '/intents/execute', intent, { authorization: `Bearer ${keyA}` })
    assert.equal(executed.status, 200, executed.text)
    assert.equal(executed.body.erc1066Status, '0x11')
  })

  it('answers a signed task as not cancellable, and a keyless one as cancellable by nobody, nothing changed', async () => {
    await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    let taskId: string
    try {
      const created = await modernMcp(
        gateway.baseUrl,
        5,
        'tools/call',
        { name: 'execute_intent', arguments: { intent: await signedIntent(devnet, { nonce: '9302' }) } },
        keyA,
      )
      assert.equal(created.body.result?.resultType, 'task', created.text)
      taskId = created.body.result.taskId
      const cancel = await modernMcp(gateway.baseUrl, 6, 'tasks/cancel', { taskId }, keyA)
      assert.equal(cancel.body.error?.code, -32602, cancel.text)
      assert.equal(cancel.body.error.message, `Task ${taskId} is not cancellable: its transaction is signed and sent`)
      assert.equal((await modernMcp(gateway.baseUrl, 7, 'tasks/get', { taskId })).body.result.status, 'working')
    } finally {
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
    }
    // A claim made without a key (as a keyless x402 payer's execute is).
    const { intentHash, record } = await claimFor(gateway, await signedIntent(devnet, { nonce: '9303' }))
    for (const key of [keyA, undefined]) {
      const refused = await modernMcp(gateway.baseUrl, 8, 'tasks/cancel', { taskId: intentHash }, key)
      assert.match(
        refused.body.error?.message ?? '',
        /cannot be cancelled: it was created without a credential/,
        refused.text,
      )
    }
    assert.equal((await gateway.journal.get(intentHash))?.state, 'claimed')
    await gateway.journal.release(record)
  })
})
