import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Hex } from 'viem'
import { ExecutionRefusedError } from '../errors/executionRefusedError.ts'
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
