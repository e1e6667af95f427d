// The transactions the Sui adapter puts on the wire, decoded back with the SDK
// (`Transaction.from(bytes).getData()`): exact package, module, function, BCS arguments, gas and
// sender for validate and execute. This is as far as execute is verified here: the Move module
// that would run them is not compiled or executed on this machine.
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { GrpcTypes } from '@mysten/sui/grpc'
import { TransactionDataBuilder } from '@mysten/sui/transactions'
import { verifyTransactionSignature } from '@mysten/sui/verify'
import { encodeSuiIntent } from '../../src/chains/sui/encodeSuiIntent.ts'
import { suiSignedTransaction } from '../../src/chains/sui/suiSignedTransaction.ts'
import type { SignedExecution } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { type SuiWorld, startSuiWorld, suiRelayer, suiSender } from '../support/suiGateway.ts'

const b64 = (bytes: Uint8Array | number[]) => Buffer.from(bytes).toString('base64')
const u64 = (n: bigint) => {
  const buf = Buffer.alloc(8)
  buf.writeBigUInt64LE(n)
  return b64(buf)
}
const address = (hex: string) => b64(Buffer.from(hex.slice(2), 'hex'))

describe('Sui transactions as sent, decoded back (Move not compiled or executed here)', () => {
  let world: SuiWorld
  const relayer = suiRelayer.toSuiAddress()
  let nonce = 500n
  const intent = (): Intent => ({
    sender: suiSender.toSuiAddress(),
    target: `0x${'22'.repeat(32)}`,
    data: '0x',
    value: 123_456_789n,
    nonce,
    validAfter: 1_700_000_000n,
    validBefore: 2n ** 64n - 1n,
    policyId: world.standIn.policyId as `0x${string}`,
  })

  before(async () => {
    world = await startSuiWorld()
  })
  after(async () => {
    await world?.stop()
  })
  beforeEach(() => {
    nonce++
    world.standIn.calls.length = 0
    world.standIn.answers.validate = { status: 0x01 }
  })

  const shared = (objectId: string, initialSharedVersion: string, mutable: boolean) => ({
    Object: { SharedObject: { objectId, initialSharedVersion, mutable }, $kind: 'SharedObject' },
    $kind: 'Object',
  })
  const pure = (bytes: string) => ({ Pure: { bytes }, $kind: 'Pure' })
  const intentInputs = (i: Intent) => [
    pure(address(i.sender)),
    pure(address(i.target)),
    pure(u64(i.value)),
    pure(u64(i.nonce)),
    pure(u64(i.validAfter)),
    pure(u64(i.validBefore)),
  ]
  const clock = () => shared('0x0000000000000000000000000000000000000000000000000000000000000006', '1', false)
  const call = (fn: string, count: number) => [
    {
      MoveCall: {
        package: world.standIn.packageId,
        module: 'intents',
        function: fn,
        typeArguments: [],
        arguments: Array.from({ length: count }, (_, n) => ({ Input: n, $kind: 'Input' })),
      },
      $kind: 'MoveCall',
    },
  ]

  it('validate: intents::validate(hub, policy, clock, sender, target, value, nonce, valid_after, valid_before), read-only, relayer as sender', async () => {
    const i = intent()
    assert.equal(await world.adapter.validate(i), 0x01)
    const simulated = world.standIn.calls.filter((c) => c.method === 'SimulateTransaction')
    assert.equal(simulated.length, 1)
    assert.deepEqual(simulated[0]!.transaction, {
      version: 2,
      sender: relayer,
      expiration: { None: true, $kind: 'None' },
      gasData: { budget: '50000000', price: '1000', owner: relayer, payment: [] },
      inputs: [
        shared(world.standIn.hubId, world.standIn.hubInitialVersion, false),
        shared(world.standIn.policyId, world.standIn.policyInitialVersion, false),
        clock(),
        ...intentInputs(i),
      ],
      commands: call('validate', 9),
    })
  })

  it('execute: intents::execute(…, signature) with the wallet signature as vector<u8>, relayer as sender and gas owner, budget from the simulation', async () => {
    const i = intent()
    const { signature } = await suiSender.signPersonalMessage(encodeSuiIntent(i))
    const raw = Buffer.from(signature, 'base64')
    const preflight = await world.adapter.prepareExecution(i, `0x${raw.toString('hex')}`)
    assert.equal(preflight.ok, true)
    if (!preflight.ok) return
    let signed: SignedExecution | undefined
    const submission = await preflight.send({ onSigned: (tx) => void (signed = tx) })
    const receipt = await submission.receipt
    assert.equal(receipt.status, 0x11)
    // What the relayer paid, for the budgets (issue 40, item 5): the stand-in's computation + storage - rebate, in MIST.
    assert.equal(receipt.fee, 1_000_000n + 2_964_000n - 1_956_240n)

    const [trial, sent] = [
      world.standIn.calls.filter((c) => c.method === 'SimulateTransaction')[1]!,
      world.standIn.calls.find((c) => c.method === 'ExecuteTransaction')!,
    ]
    assert.equal(
      trial.request.checks,
      GrpcTypes.SimulateTransactionRequest_TransactionChecks.ENABLED,
      'the execute simulation runs with checks enabled',
    )
    const inputs = [
      shared(world.standIn.hubId, world.standIn.hubInitialVersion, true),
      shared(world.standIn.policyId, world.standIn.policyInitialVersion, true),
      clock(),
      ...intentInputs(i),
      // uleb128(97) then flag || signature || public key, as signPersonalMessage returns it.
      pure(b64([97, ...raw])),
    ]
    const coin = sent.transaction!.gasData.payment![0]!
    assert.equal(coin.objectId, `0x${'ce'.repeat(32)}`)
    assert.deepEqual(sent.transaction, {
      version: 2,
      sender: relayer,
      expiration: { None: true, $kind: 'None' },
      // Reference gas price from GetEpoch; budget = (computation 1000000 + storage 988000) × 1.2.
      gasData: { budget: '2385600', price: '750', owner: relayer, payment: [coin] },
      inputs,
      commands: call('execute', 10),
    })
    // The trial differs only in its budget (the ceiling).
    assert.equal(trial.transaction!.gasData.budget, '500000000')
    assert.deepEqual(trial.transaction!.inputs, inputs)

    // What the journal got before the broadcast: the digest of these bytes (base58), the bytes signed
    // by the relayer (base64), and the gas coin at the version the transaction spends.
    assert.equal(signed!.id, TransactionDataBuilder.getDigestFromBytes(sent.bytes!))
    assert.match(signed!.id, /^[1-9A-HJ-NP-Za-km-z]{43,44}$/)
    assert.equal(receipt.transactionHash, signed!.id)
    assert.equal(signed!.relayer, relayer)
    assert.deepEqual(signed!.details, { gasCoin: { objectId: coin.objectId, version: coin.version } })
    const journaled = suiSignedTransaction.parse(Buffer.from(signed!.bytes, 'base64'))
    assert.deepEqual(new Uint8Array(journaled.transaction), new Uint8Array(sent.bytes!))
    const signer = await verifyTransactionSignature(new Uint8Array(journaled.transaction), b64(journaled.signature))
    assert.equal(signer.toSuiAddress(), relayer)
  })

  it('execute without a signature passes an empty vector<u8> (the module accepts it only from the sender itself)', async () => {
    const preflight = await world.adapter.prepareExecution(intent())
    assert.equal(preflight.ok, true)
    const trial = world.standIn.calls.filter((c) => c.method === 'SimulateTransaction')[1]!
    assert.deepEqual(trial.transaction!.inputs.at(-1), pure(b64([0])))
  })

  it('reconcile: a journaled transaction the node lost and whose gas coin moved on is dropped; executed is what validate says of the nonce', async () => {
    const first = await world.adapter.prepareExecution(intent())
    assert.ok(first.ok)
    let journaled: SignedExecution | undefined
    await (await first.send({ onSigned: (tx) => void (journaled = tx) })).receipt
    const lostIntent = intent()
    world.standIn.forget()
    // Another transaction of the relayer used the coin version since.
    const second = await world.adapter.prepareExecution({ ...intent(), nonce: nonce + 1000n })
    assert.ok(second.ok)
    await (await second.send({ onSigned: () => undefined })).receipt

    world.standIn.answers.validate = { status: 0x22 }
    const executed = await world.adapter.reconcile({ ...journaled!, intent: lostIntent })
    assert.equal(executed.kind, 'dropped')
    assert.equal(executed.kind === 'dropped' && executed.executed, true)
    world.standIn.answers.validate = { status: 0x01 }
    const notExecuted = await world.adapter.reconcile({ ...journaled!, intent: lostIntent })
    assert.equal(notExecuted.kind === 'dropped' && notExecuted.executed, false)
  })
})
