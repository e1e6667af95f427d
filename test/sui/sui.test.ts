// Sui through the HTTP app: the real @mysten/sui gRPC client against the local stand-in (grpc-web,
// responses encoded with the SDK's generated types). The Move module is not compiled or run here:
// what it answers is scripted, so these tests verify the gateway up to the transactions it sends
// and how it reads the node's answers, not the Move code.
import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import { GrpcTypes } from '@mysten/sui/grpc'
import { suiRuntime } from '../../src/chains/sui/suiRuntime.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import { getStatusCode } from '../../src/status/statusCodes.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { type SuiWorld, startSuiWorld, suiRelayer, suiSender } from '../support/suiGateway.ts'

const sui = { chainId: 'sui:localnet', chainType: 'sui' }

describe('Sui gateway against the gRPC stand-in (Move not compiled or executed here)', () => {
  let world: SuiWorld
  let nonce = 0
  const intent = (overrides: Record<string, unknown> = {}) => ({
    sender: suiSender.toSuiAddress(),
    target: `0x${'22'.repeat(32)}`,
    data: '0x',
    value: '1000',
    nonce: String(nonce),
    policyId: world.standIn.policyId,
    ...overrides,
  })
  const hashOf = (body: Record<string, unknown>) => suiRuntime.hashIntent(parseIntent(body as never, suiRuntime))

  before(async () => {
    world = await startSuiWorld()
  })
  after(async () => {
    await world?.stop()
  })
  beforeEach(() => {
    nonce++
    world.standIn.answers.validate = { status: 0x01 }
    world.standIn.answers.simulateExecute = { success: true }
    world.standIn.answers.execute = { success: true }
    world.standIn.faults.clear()
    world.standIn.checkpointOnExecute = true
    world.standIn.calls.length = 0
  })
  afterEach(() => {
    world.standIn.faults.clear()
  })

  describe('POST /intents/validate', () => {
    it('answers 200 SUCCESS (0x01) from the u8 the simulated validate call returns, with the Sui headers and body', async () => {
      const body = intent()
      const res = await world.post('/intents/validate', body)
      assert.equal(res.status, 200)
      assertCommonHeaders(res, { status: '0x01', ...sui, intentHash: hashOf(body) })
      assert.deepEqual(res.body, {
        status: '0x01',
        erc1066Status: '0x01',
        statusName: 'SUCCESS',
        description: 'Intent validated',
        intentHash: hashOf(body),
        ...sui,
      })
      const simulate = world.standIn.calls.find((c) => c.method === 'SimulateTransaction')!
      assert.equal(simulate.transaction?.commands[0]?.MoveCall?.function, 'validate')
      // Checks off (a read, like devInspect); no gas selection.
      assert.equal(simulate.request.checks, GrpcTypes.SimulateTransactionRequest_TransactionChecks.DISABLED)
      assert.equal(simulate.request.doGasSelection, false)
    })

    it('maps a code from every category and reason the module could return to its HTTP status and headers', async () => {
      const body = intent()
      // Every 7th code (each category and each reason nibble is hit) plus the rows with names of their own.
      const codes = new Set([
        ...Array.from({ length: 256 }, (_, i) => i).filter((i) => i % 7 === 0),
        0x01,
        0x10,
        0x11,
        0x16,
        0x20,
        0x21,
        0x22,
        0x50,
        0x51,
        0x54,
        0xa2,
        0xe4,
        0xe5,
        0xf4,
      ])
      for (const code of codes) {
        world.standIn.answers.validate = { status: code }
        const res = await world.post('/intents/validate', body)
        const entry = getStatusCode(code)
        assert.equal(res.status, entry.httpStatus, entry.hex)
        assertCommonHeaders(res, { status: entry.hex, ...sui, intentHash: hashOf(body) })
        assert.equal(res.body.statusName, entry.statusName)
      }
    })

    it('answers the codes the Move validate returns, in the Solidity validator order, with their HTTP statuses', async () => {
      const rows: Array<[number, number, string]> = [
        [0x22, 409, 'NONCE_USED'],
        [0x16, 403, 'REVOKED_OR_BANNED'],
        [0x10, 403, 'DISALLOWED'],
        [0x20, 202, 'TOO_EARLY'],
        [0x21, 410, 'TOO_LATE'],
        [0x54, 402, 'INSUFFICIENT_FUNDS'],
      ]
      for (const [code, http, name] of rows) {
        world.standIn.answers.validate = { status: code }
        const res = await world.post('/intents/validate', intent())
        assert.equal(res.status, http, name)
        assert.equal(res.body.statusName, name)
        assert.equal(res.headers.get('x-payment-required'), http === 402 ? 'true' : 'false')
      }
    })

    it('answers 403 DISALLOWED for a policy id that is no object, or not a Policy of this package, without simulating', async () => {
      for (const policyId of [`0x${'77'.repeat(32)}`, world.standIn.otherObjectId]) {
        world.standIn.calls.length = 0
        const res = await world.post('/intents/validate', intent({ policyId }))
        assert.equal(res.status, 403, policyId)
        assertCommonHeaders(res, { status: '0x10', ...sui })
        assert.deepEqual(
          world.standIn.calls.map((c) => c.method),
          ['BatchGetObjects'],
        )
      }
    })

    it('refuses data other than 0x, short addresses and numbers above u64 with 400 naming the fields', async () => {
      const res = await world.post(
        '/intents/validate',
        intent({ data: '0xdeadbeef', target: '0x2', value: (2n ** 64n).toString() }),
      )
      assert.equal(res.status, 400)
      assertCommonHeaders(res, { status: '0xA0', ...sui })
      assert.deepEqual(res.body.errors, [
        {
          field: 'target',
          message:
            'must be a Sui address: 0x followed by 64 hex digits (short forms such as 0x2 are not accepted: write all 64 digits)',
        },
      ])
      // Addresses are checked first; the runtime's own rules run once the addresses are right.
      const second = await world.post(
        '/intents/validate',
        intent({ data: '0xdeadbeef', value: (2n ** 64n).toString() }),
      )
      assert.equal(second.status, 400)
      assert.deepEqual(second.body.errors, [
        {
          field: 'data',
          message: 'must be "0x" on Sui: a Sui intent moves value only, the Move module cannot call a target with data',
        },
        { field: 'value', message: 'must be below 2^64 on Sui (a Move u64)' },
      ])
      assert.equal(world.standIn.calls.length, 0, 'nothing reached the node')
    })
  })

  describe('unreachable node → 503 (0xF4) with Retry-After', () => {
    const faults = [
      ['a node that does not answer in time', { kind: 'hang' }],
      ['a connection reset', { kind: 'drop' }],
      ['gRPC UNAVAILABLE', { kind: 'grpc', code: 14, message: 'upstream connect error' }],
      ['an HTTP 503 from a proxy', { kind: 'http', status: 503 }],
    ] as const
    for (const [name, fault] of faults) {
      it(`validate: ${name}`, async () => {
        world.standIn.faults.set('*', fault)
        const res = await world.post(
          '/intents/validate',
          intent({ policyId: `0x${((nonce % 200) + 16).toString(16)}${'ab'.repeat(31)}` }),
        )
        assert.equal(res.status, 503, res.text)
        assertCommonHeaders(res, { status: '0xF4', ...sui })
        assert.equal(res.headers.get('retry-after'), '2')
        assert.equal(res.body.statusName, 'OFF_CHAIN_SERVICE_UNREACHABLE')
      })
    }

    it('execute: a timeout in the execute simulation sends nothing and answers 503', async () => {
      world.standIn.faults.set('SimulateTransaction', { kind: 'hang' })
      const res = await world.post('/intents/execute', intent())
      assert.equal(res.status, 503)
      assertCommonHeaders(res, { status: '0xF4', ...sui })
      assert.equal(world.standIn.calls.filter((c) => c.method === 'ExecuteTransaction').length, 0)
    })

    it('health reports the chain unreachable, then reachable with its checkpoint', async () => {
      world.standIn.faults.set('*', { kind: 'drop' })
      const down = await world.get('/health')
      assert.equal(down.body.chains[0].reachable, false)
      assert.match(down.body.chains[0].error, /Chain sui:localnet is unreachable/)
      world.standIn.faults.clear()
      const up = await world.get('/health')
      assert.equal(up.body.chains[0].reachable, true)
      assert.equal(up.body.chains[0].blockNumber, '1042')
      assert.equal(up.body.chains[0].chainType, 'sui')
    })
  })

  it('GET /chains/sui:localnet describes the chain: package, Hub, relayer, endpoint', async () => {
    const res = await world.get('/chains/sui:localnet')
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.chainType, 'sui')
    assert.equal(res.body.reference, 'localnet')
    assert.deepEqual(res.body.nativeCurrency, { name: 'Sui', symbol: 'SUI', decimals: 9 })
    assert.deepEqual(res.body.contracts, {
      validator: world.standIn.packageId,
      executor: world.standIn.packageId,
      registry: world.standIn.hubId,
    })
    assert.equal(res.body.relayer, suiRelayer.toSuiAddress())
    assert.equal(res.body.endpoints[0].url, `${world.standIn.url}/`)
  })

  describe('POST /intents/execute', () => {
    it('executes with the relayer as sender and gas owner: 200 EXECUTED (0x11) with the digest and checkpoint, journaled', async () => {
      const body = intent()
      const res = await world.post('/intents/execute', body)
      assert.equal(res.status, 200, res.text)
      assertCommonHeaders(res, { status: '0x11', ...sui, intentHash: hashOf(body) })
      const sent = world.standIn.calls.find((c) => c.method === 'ExecuteTransaction')!
      assert.equal(sent.transaction?.sender, suiRelayer.toSuiAddress())
      assert.equal(sent.transaction?.gasData.owner, suiRelayer.toSuiAddress())
      assert.equal(sent.transaction?.commands[0]?.MoveCall?.function, 'execute')
      assert.deepEqual(res.body, {
        status: '0x11',
        erc1066Status: '0x11',
        statusName: 'EXECUTED',
        description: 'Intent executed successfully',
        intentHash: hashOf(body),
        ...sui,
        state: 'mined',
        transactionHash: res.body.transactionHash,
        blockNumber: '1042',
        gasUsed: String(1000000 + 2964000 - 1956240),
        final: true,
      })
      assert.ok(world.standIn.executed.has(res.body.transactionHash), 'the digest is the one the node executed')
      const record = await world.get(`/intents/${hashOf(body)}`)
      assert.equal(record.status, 200)
      assert.equal(record.body.state, 'mined')

      const again = await world.post('/intents/execute', body)
      assert.equal(again.status, 200)
      assertCommonHeaders(again, { status: '0x11', ...sui })
      assert.equal(again.body.replayed, true)
    })

    it('reads the checkpoint from the node when the execute answer came before it', async () => {
      world.standIn.checkpointOnExecute = false
      const res = await world.post('/intents/execute', intent())
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.blockNumber, '1042')
      assert.ok(
        world.standIn.calls.some((c) => c.method === 'GetTransaction' && c.request.digest === res.body.transactionHash),
      )
    })

    it('Prefer: respond-async answers the outcome when the execute answer already holds it (effects and checkpoint), else 202 0xF3 with Preference-Applied', async () => {
      const prefer = { 'x-chain-id': 'sui:localnet', prefer: 'respond-async' }
      const known = await world.post('/intents/execute', intent(), prefer)
      assert.equal(known.status, 200, known.text)
      assertCommonHeaders(known, { status: '0x11', ...sui })
      assert.equal(known.headers.get('preference-applied'), null)
      assert.equal(known.body.blockNumber, '1042')

      // No checkpoint in the answer: the watch reads it later, and the request does not wait for it.
      world.standIn.checkpointOnExecute = false
      world.standIn.faults.set('GetTransaction', { kind: 'hang' })
      nonce++
      const body = intent()
      const res = await world.post('/intents/execute', body, prefer)
      assert.equal(res.status, 202, res.text)
      assertCommonHeaders(res, { status: '0xF3', ...sui })
      assert.equal(res.headers.get('preference-applied'), 'respond-async')
      assert.equal(res.headers.get('location'), `/intents/${hashOf(body)}`)
      assert.equal(world.standIn.calls.filter((c) => c.method === 'ExecuteTransaction').length, 2, 'each sent once')
    })

    it('answers a refusal of validate as validate would, and sends nothing', async () => {
      world.standIn.answers.validate = { status: 0x21 }
      const res = await world.post('/intents/execute', intent())
      assert.equal(res.status, 410)
      assertCommonHeaders(res, { status: '0x21', ...sui })
      assert.deepEqual(
        world.standIn.calls.map((c) => c.method).filter((m) => m === 'ExecuteTransaction' || m === 'ListOwnedObjects'),
        [],
      )
    })

    const aborts = [
      ['the structured MoveAbort field', 'structured', 0xe5, 401],
      ['the MoveAbort(MoveLocation …) message only', 'debug', 0x16, 403],
      ['the "Move Runtime Abort … Abort Code:" message only', 'runtime', 0x54, 402],
    ] as const
    for (const [name, form, code, http] of aborts) {
      it(`decodes a Move abort in the execute simulation from ${name}: ${http}, nothing sent`, async () => {
        world.standIn.answers.simulateExecute = { abort: code, form }
        const res = await world.post('/intents/execute', intent())
        assert.equal(res.status, http, res.text)
        assertCommonHeaders(res, { status: getStatusCode(code).hex, ...sui })
        assert.equal(res.body.detail, `the Move module aborted with ${code}`)
        assert.equal(world.standIn.calls.filter((c) => c.method === 'ExecuteTransaction').length, 0)
      })
    }

    it('an abort in another module (not a status) answers 422 (0x50) naming it', async () => {
      world.standIn.answers.simulateExecute = { abort: 2, module: 'balance' }
      const res = await world.post('/intents/execute', intent())
      assert.equal(res.status, 422)
      assert.match(res.body.detail, /aborted in 0x4a7b.*::balance with code 2/)
    })

    it('an abort on-chain after a clean simulation settles the record as reverted with the module code', async () => {
      world.standIn.answers.execute = { abort: 0x22, form: 'structured' }
      const body = intent()
      const res = await world.post('/intents/execute', body)
      assert.equal(res.status, 409, res.text)
      assertCommonHeaders(res, { status: '0x22', ...sui })
      assert.equal(res.body.state, 'reverted')
      assert.ok(res.body.transactionHash)
    })

    it('no answer to the broadcast: 202 (0xF3) with Location, the record stays pending for reconciliation', async () => {
      world.standIn.faults.set('ExecuteTransaction', { kind: 'hang' })
      const body = intent()
      const res = await world.post('/intents/execute', body)
      assert.equal(res.status, 202, res.text)
      assertCommonHeaders(res, { status: '0xF3', ...sui })
      assert.equal(res.headers.get('location'), `/intents/${hashOf(body)}`)
      assert.equal((await world.journal.pending({ chainId: 'sui:localnet' })).length, 1)
      world.standIn.faults.clear()
      // The node lost it: reconciliation broadcasts the journaled bytes again, as signed.
      const [record] = await world.journal.pending({ chainId: 'sui:localnet' })
      const outcome = await world.adapter.reconcile({ ...record!.transaction!, intent: record!.intent })
      assert.equal(outcome.kind, 'settled')
      assert.ok(world.standIn.executed.has(record!.transaction!.id))
      await world.journal.settle(record!, {
        state: 'mined',
        status: 0x11,
        blockNumber: 1042n,
        gasUsed: 0n,
        returnData: undefined,
        detail: undefined,
      })
    })

    it('two deliveries of one lost transaction at once (a new key holder and its reconciler) both settle it: the refused one finds it ran', async () => {
      world.standIn.faults.set('ExecuteTransaction', { kind: 'hang' })
      const res = await world.post('/intents/execute', intent())
      assert.equal(res.status, 202, res.text)
      world.standIn.faults.clear()
      const [record] = await world.journal.pending({ chainId: 'sui:localnet' })
      const request = { ...record!.transaction!, intent: record!.intent }
      const callsBefore = world.standIn.calls.length
      const outcomes = await Promise.all([world.adapter.reconcile(request), world.adapter.reconcile(request)])
      assert.deepEqual(
        outcomes.map((o) => o.kind),
        ['settled', 'settled'],
        JSON.stringify(outcomes, (_, v) => (typeof v === 'bigint' ? v.toString() : v)),
      )
      const broadcasts = world.standIn.calls.slice(callsBefore).filter((c) => c.method === 'ExecuteTransaction')
      assert.equal(
        broadcasts.length,
        2,
        'both broadcast it: the stand-in refused the second (its gas coin version was spent)',
      )
      assert.ok(world.standIn.executed.has(record!.transaction!.id))
      await world.journal.settle(record!, {
        state: 'mined',
        status: 0x11,
        blockNumber: 1043n,
        gasUsed: 0n,
        returnData: undefined,
        detail: undefined,
      })
    })
  })
})
