import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Hex } from 'viem'
import { ExecutionRefusedError } from '../errors/executionRefusedError.ts'
import { RelayerLeaseMovedError } from '../errors/relayerLeaseMovedError.ts'
import type { ChainAdapter } from '../ports/chainAdapter.ts'
import type { Intent } from '../ports/intent.ts'
import { Status } from '../status/statusCodes.ts'
import { openJournal } from '../store/sqlite/openJournal.ts'
import { executeIntent, paymentCredited } from './executeIntent.ts'

const intent: Intent = {
  sender: '0x00000000000000000000000000000000000000a1',
  target: '0x00000000000000000000000000000000000000b1',
  data: '0x',
  value: 0n,
  nonce: 7n,
  validAfter: 0n,
  validBefore: 0n,
  policyId: `0x${'11'.repeat(32)}`,
}
const intentHash: Hex = `0x${'22'.repeat(32)}`

/** An EVM-like chain whose execution passes its first simulation and is refused when simulated again before its signature. */
function refusingAtSignature() {
  let sends = 0
  const adapter = {
    chainId: 'eip155:31337',
    chainType: 'evm',
    canExecute: true,
    signingRequest: () => ({}),
    prepareExecution: async () => ({
      ok: true,
      send: async () => {
        sends++
        throw new ExecutionRefusedError(Status.DISALLOWED, 'the execution reverts at the state it will meet')
      },
    }),
  } as unknown as ChainAdapter
  return { adapter, sends: () => sends }
}

for (const paid of [false, true]) {
  test(`an execution refused when simulated again before its signature answers the refusal${paid ? ', its settled payment credited' : ''}, and gives its claim back`, async () => {
    const journal = openJournal({ path: ':memory:' })
    const { adapter, sends } = refusingAtSignature()
    const outcome = await executeIntent({
      adapter,
      intent,
      intentHash,
      signature: '0x01',
      journal,
      receiptTimeoutMs: 1_000,
      paid,
    })
    assert.equal(sends(), 1)
    assert.equal(outcome.status, Status.DISALLOWED)
    assert.equal(outcome.detail, 'the execution reverts at the state it will meet')
    assert.deepEqual(outcome.payment, paid ? paymentCredited : undefined)
    assert.equal(outcome.execution, undefined, 'nothing was sent')
    assert.equal(await journal.get(intentHash, adapter.chainId), undefined, 'the claim was given back')
    await journal.close?.()
  })
}

/**
 * A fleet instance whose key goes to another instance between an execution's simulation and its
 * signature (the journal or the key's lease refuses it: nothing recorded or sent), `moves` times;
 * then the execution is refused when simulated on the next key (a refusal ends the test without a
 * chain). `holdsAnother`: what canSendNow says.
 */
function keyMovingAtSignature(moves: number, holdsAnother: boolean) {
  let prepares = 0
  let sends = 0
  /** Whether each preparation was asked with a transaction to run before the execution (a paid one's settlement). */
  const preceded: boolean[] = []
  const adapter = {
    chainId: 'eip155:31337',
    chainType: 'evm',
    canExecute: true,
    canSendNow: async () => holdsAnother || prepares === 0,
    signingRequest: () => ({}),
    prepareExecution: async (_intent: Intent, _signature: Hex, options: { precededBy?: unknown }) => {
      prepares++
      preceded.push(options.precededBy !== undefined)
      return {
        ok: true,
        send: async () => {
          sends++
          if (sends <= moves) throw new RelayerLeaseMovedError('eip155:31337', `0x${'c1'.repeat(20)}`, 3)
          throw new ExecutionRefusedError(Status.DISALLOWED, `refused on the key of preparation ${prepares}`)
        },
      }
    },
  } as unknown as ChainAdapter
  return { adapter, prepares: () => prepares, sends: () => sends, preceded }
}

type Journal = ReturnType<typeof openJournal>
const execute = (adapter: ChainAdapter, journal: Journal, more: Partial<Parameters<typeof executeIntent>[0]> = {}) =>
  executeIntent({ adapter, intent, intentHash, signature: '0x01', journal, receiptTimeoutMs: 1_000, ...more })

/** Answered 503 no-relayer-key to send again: nothing sent, the claim given back. */
async function assertNoRelayerKey(outcome: Awaited<ReturnType<typeof executeIntent>>, journal: Journal) {
  assert.equal(outcome.status, Status.UNAVAILABLE)
  assert.equal(outcome.problemType, 'urn:intent-gateway:problem:no-relayer-key')
  assert.equal(outcome.retryAfterSeconds, 2)
  assert.match(outcome.detail!, /its claim was given back/)
  assert.equal(outcome.execution, undefined, 'nothing was sent')
  assert.equal(await journal.get(intentHash, 'eip155:31337'), undefined, 'the claim was given back')
  await journal.close?.()
}

test('an execution whose key moved to another instance before its signature is prepared again on a key the instance still holds, under the same claim', async () => {
  const journal = openJournal({ path: ':memory:' })
  const { adapter, prepares, sends } = keyMovingAtSignature(1, true)
  const outcome = await execute(adapter, journal)
  assert.equal(prepares(), 2, 'simulated again on the other key')
  assert.equal(sends(), 2)
  // The second send's own answer, not a 503 to send it again.
  assert.equal(outcome.status, Status.DISALLOWED)
  assert.equal(outcome.detail, 'refused on the key of preparation 2')
  assert.equal(await journal.get(intentHash, adapter.chainId), undefined, 'the claim was given back after the refusal')
  await journal.close?.()
})

test('an execution whose key moved answers 503 no-relayer-key, its claim given back, when the instance holds no other key', async () => {
  const journal = openJournal({ path: ':memory:' })
  const { adapter, prepares } = keyMovingAtSignature(1, false)
  const outcome = await execute(adapter, journal)
  assert.equal(prepares(), 1, 'not prepared again')
  await assertNoRelayerKey(outcome, journal)
})

test('an execution whose keys keep moving is prepared again twice at most, then answered 503 no-relayer-key', async () => {
  const journal = openJournal({ path: ':memory:' })
  const { adapter, prepares, sends } = keyMovingAtSignature(10, true)
  const outcome = await execute(adapter, journal)
  assert.equal(prepares(), 3)
  assert.equal(sends(), 3)
  await assertNoRelayerKey(outcome, journal)
})

test('an account-mode execution whose key moved is not prepared again (the sender may have signed what names the key): 503 no-relayer-key', async () => {
  const journal = openJournal({ path: ':memory:' })
  const { adapter, prepares } = keyMovingAtSignature(1, true)
  const outcome = await execute(adapter, journal, { account: {} })
  assert.equal(prepares(), 1)
  await assertNoRelayerKey(outcome, journal)
})

test("a paid execution whose key moved after its payment settled is prepared again without the settlement before it (it is mined), and a refusal there keeps the payment as the intent's credit", async () => {
  const journal = openJournal({ path: ':memory:' })
  const { adapter, preceded } = keyMovingAtSignature(1, true)
  const outcome = await execute(adapter, journal, {
    paid: true,
    precededBy: { from: `0x${'d1'.repeat(20)}`, to: `0x${'d2'.repeat(20)}`, data: '0x' } as never,
  })
  assert.deepEqual(preceded, [true, false])
  assert.equal(outcome.status, Status.DISALLOWED)
  assert.deepEqual(outcome.payment, paymentCredited)
  await journal.close?.()
})
