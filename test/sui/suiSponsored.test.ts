// Sui account mode as a sponsored transaction (issue 46, item 2), against the gRPC stand-in: the
// agent is the transaction's sender and signs its TransactionData, the relayer owns the gas (paid
// from a coin split off for this sponsorship) and signs as sponsor only bytes it issued. The
// stand-in checks both signatures as a node does and executes the relayer's SplitCoins; it does not
// run Move, so what the module would do with the agent as sender is not shown here (docs/sui.md).
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519'
import { Transaction } from '@mysten/sui/transactions'
import { verifyTransactionSignature } from '@mysten/sui/verify'
import type { Hex } from 'viem'
import { buildSuiSponsoredTransaction } from '../../src/chains/sui/buildSuiTransaction.ts'
import { checkSponsorable } from '../../src/chains/sui/checkSponsorable.ts'
import { createSuiContext } from '../../src/chains/sui/createSuiContext.ts'
import { findGasCoinUse } from '../../src/chains/sui/findGasCoinUse.ts'
import { prepareSuiSponsoredExecution } from '../../src/chains/sui/prepareSuiSponsoredExecution.ts'
import { reconcileSuiTransaction } from '../../src/chains/sui/reconcileSuiTransaction.ts'
import type { SuiContext } from '../../src/chains/sui/suiContext.ts'
import { suiDeploymentOf } from '../../src/chains/sui/suiDeploymentOf.ts'
import { suiPolicyOf } from '../../src/chains/sui/suiPolicyOf.ts'
import { suiRuntime } from '../../src/chains/sui/suiRuntime.ts'
import { suiSponsoredTransaction } from '../../src/chains/sui/suiSponsoredTransaction.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { SignedExecution } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { type SuiWorld, startSuiWorld, suiRelayer, suiSender } from '../support/suiGateway.ts'

const sui = { 'x-chain-id': 'sui:localnet' }
const stranger = Ed25519Keypair.fromSecretKey(new Uint8Array(32).fill(42))
const relayer = suiRelayer.toSuiAddress()
const agent = suiSender.toSuiAddress()
const toHex = (base64: string): Hex => `0x${Buffer.from(base64, 'base64').toString('hex')}`
const signBytes = async (key: Ed25519Keypair, bytes: Uint8Array) => toHex((await key.signTransaction(bytes)).signature)

describe('Sui account mode: sponsored transactions against the stand-in (Move not compiled or executed here)', () => {
  let world: SuiWorld
  let nonce = 7_000
  const body = (overrides: Record<string, unknown> = {}) => ({
    sender: agent,
    target: `0x${'22'.repeat(32)}`,
    data: '0x',
    value: '1000',
    nonce: String(nonce),
    policyId: world.standIn.policyId,
    mode: 'account',
    ...overrides,
  })
  const intentOf = (b: Record<string, unknown>): Intent => parseIntent(b as never, suiRuntime)
  const executes = () => world.standIn.calls.filter((c) => c.method === 'ExecuteTransaction')
  const sponsoredExecutes = () => executes().filter((c) => c.transaction?.sender === agent)
  /** A context of its own on the same stand-in, for the adapter's functions with other settings. */
  const contextWith = (settings: { maxSponsoredGasBudget?: bigint; sponsorshipCapacity?: number } = {}): SuiContext =>
    createSuiContext({
      chain: {
        chainId: 'sui:localnet',
        rpcUrl: world.standIn.url,
        packageId: world.standIn.packageId,
        hubId: world.standIn.hubId,
      },
      relayerSecretKey: suiRelayer.getSecretKey(),
      rpcTimeoutMs: 1_000,
      logger: createLogger({ level: 'silent' }),
      maxGasBudget: 500_000_000n,
      ...settings,
    })

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
    world.standIn.calls.length = 0
  })

  it('happy path: 401 0xE5 with the TransactionData to sign (agent sender, relayer gas owner, a fresh split coin, capped budget), then 200 0x11 with both signatures; a replay is answered as one', async () => {
    const b = body()
    const splitsBefore = world.standIn.splits.length
    const asked = await world.post('/intents/execute', b, sui)
    assert.equal(asked.status, 401, asked.text)
    assert.equal(asked.body.erc1066Status, '0xE5')
    const signing = asked.body.signing
    assert.equal(signing.mode, 'account')
    assert.equal(signing.intentHash, suiRuntime.hashIntent(intentOf(b)))
    assert.equal(signing.gasOwner, relayer)
    assert.equal(executes().length, 1, 'the only transaction so far is the relayer splitting a coin')
    assert.equal(world.standIn.splits.length, splitsBefore + 1)
    const split = world.standIn.splits.at(-1)!
    assert.equal(split.amount, 50_000_000n, "the sponsorship coin holds the cap, not the relayer's balance")

    const txBytes = new Uint8Array(Buffer.from(signing.txBytes, 'base64'))
    const data = Transaction.from(txBytes).getData()
    assert.equal(data.sender, agent)
    assert.equal(data.gasData.owner, relayer)
    assert.equal(data.gasData.budget, '2385600', 'the simulation (1000000 + 988000) × 1.2, under the 50000000 cap')
    assert.deepEqual(
      data.gasData.payment?.map((c) => c.objectId),
      [split.objectId],
    )
    assert.equal(findGasCoinUse(txBytes), undefined)
    assert.equal(data.commands.length, 1)
    assert.equal(data.commands[0]?.MoveCall?.function, 'execute')
    // The signature argument is empty: the agent is the transaction's own signer.
    assert.deepEqual(data.inputs.at(-1), { Pure: { bytes: Buffer.from([0]).toString('base64') }, $kind: 'Pure' })

    // Asked again without a signature: the same bytes, no second coin.
    const again = await world.post('/intents/execute', b, sui)
    assert.equal(again.status, 401)
    assert.equal(again.body.signing.txBytes, signing.txBytes)
    assert.equal(world.standIn.splits.length, splitsBefore + 1)

    const res = await world.post('/intents/execute', { ...b, signature: await signBytes(suiSender, txBytes) }, sui)
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.erc1066Status, '0x11')
    const [sent] = sponsoredExecutes()
    assert.ok(sent)
    assert.deepEqual(new Uint8Array(sent.bytes!), txBytes, 'sent exactly the bytes issued')
    const signers = await Promise.all(
      sent.request.signatures.map((s: { bcs: { value: Uint8Array } }) =>
        verifyTransactionSignature(txBytes, Buffer.from(s.bcs.value).toString('base64')),
      ),
    )
    assert.deepEqual(
      signers.map((k) => k.toSuiAddress()),
      [agent, relayer],
    )
    assert.equal(res.body.transactionHash, signing.digest)

    const replay = await world.post('/intents/execute', { ...b, signature: await signBytes(suiSender, txBytes) }, sui)
    assert.equal(replay.status, 200)
    assert.equal(replay.body.replayed, true)
    assert.equal(sponsoredExecutes().length, 1, 'nothing was signed or sent again')
  })

  it('altered bytes: a signature over bytes other than those issued is refused 0xE4, the relayer signs nothing', async () => {
    const b = body()
    const asked = await world.post('/intents/execute', b, sui)
    const issued = new Uint8Array(Buffer.from(asked.body.signing.txBytes, 'base64'))
    // The agent raises the budget it asks the sponsor for, and signs that.
    const tx = Transaction.from(issued)
    tx.setGasBudget(49_000_000n)
    const altered = await tx.build()
    assert.notDeepEqual(altered, issued)
    const res = await world.post('/intents/execute', { ...b, signature: await signBytes(suiSender, altered) }, sui)
    assert.equal(res.status, 401, res.text)
    assert.equal(res.body.erc1066Status, '0xE4')
    assert.equal(sponsoredExecutes().length, 0)
  })

  it("a stranger's signature of the very bytes issued is refused 0xE4, the relayer signs nothing", async () => {
    const b = body()
    const asked = await world.post('/intents/execute', b, sui)
    const issued = new Uint8Array(Buffer.from(asked.body.signing.txBytes, 'base64'))
    const res = await world.post('/intents/execute', { ...b, signature: await signBytes(stranger, issued) }, sui)
    assert.equal(res.status, 401, res.text)
    assert.equal(res.body.erc1066Status, '0xE4')
    assert.equal(sponsoredExecutes().length, 0)
    // A signature that is not one at all: refused the same way, never a 500.
    const junk = await world.post('/intents/execute', { ...b, signature: '0x0102' }, sui)
    assert.equal(junk.body.erc1066Status, '0xE4', junk.text)
    assert.equal(sponsoredExecutes().length, 0)
  })

  it('a signature sent before any bytes were issued here is not sponsored: 401 0xE5 with fresh bytes', async () => {
    const b = body()
    const guess = await buildSuiSponsoredTransaction({
      deployment: await suiDeploymentOf(contextWith()),
      policy: (await suiPolicyOf(contextWith(), intentOf(b))) as never,
      intent: intentOf(b),
      sponsor: relayer,
      gas: {
        price: 750n,
        budget: 2_385_600n,
        payment: [{ objectId: `0x${'ce'.repeat(32)}`, version: '1', digest: '11111111111111111111111111111111' }],
      },
    })
    const res = await world.post('/intents/execute', { ...b, signature: await signBytes(suiSender, guess) }, sui)
    assert.equal(res.status, 401, res.text)
    assert.equal(res.body.erc1066Status, '0xE5')
    assert.ok(res.body.signing.txBytes)
    assert.equal(sponsoredExecutes().length, 0)
  })

  it('an EIP-7702 authorization in Sui account mode is bad input: 400 naming `authorization`, nothing split or signed', async () => {
    const splitsBefore = world.standIn.splits.length
    const authorization = {
      chainId: 1,
      address: `0x${'11'.repeat(20)}`,
      nonce: 0,
      yParity: 0,
      r: `0x${'22'.repeat(32)}`,
      s: `0x${'33'.repeat(32)}`,
    }
    const res = await world.post('/intents/execute', body({ authorization }), sui)
    assert.equal(res.status, 400, res.text)
    assert.ok(
      res.body.errors.some((e: { field: string }) => e.field === 'authorization'),
      res.text,
    )
    assert.equal(world.standIn.splits.length, splitsBefore)
    assert.equal(executes().length, 0)
  })

  it('a transaction whose commands use GasCoin is never sponsored, even one the agent signed', async () => {
    const ctx = contextWith()
    const intent = intentOf(body())
    // First a genuine sponsorship, so that a coin and bytes exist; then the bytes are swapped for a
    // crafted transaction (a SplitCoins of the sponsor's gas to the agent), as a faulty builder would.
    const first = await prepareSuiSponsoredExecution(ctx, intent, undefined, {})
    assert.equal(first.ok, false)
    const intentHash = suiRuntime.hashIntent(intent)
    const issued = ctx.sponsorships.get(intentHash)!
    const crafted = Transaction.from(issued.txBytes)
    const [stolen] = crafted.splitCoins(crafted.gas, [crafted.pure.u64(40_000_000n)])
    crafted.transferObjects([stolen!], crafted.pure.address(agent))
    const craftedBytes = await crafted.build()
    assert.equal(findGasCoinUse(craftedBytes), 1)
    ctx.sponsorships.put(intentHash, { ...issued, txBytes: craftedBytes })
    await assert.rejects(
      prepareSuiSponsoredExecution(ctx, intent, await signBytes(suiSender, craftedBytes), {}),
      (err: Error & { details?: string }) => {
        assert.match(err.details ?? '', /GasCoin/)
        return true
      },
    )
    assert.equal(sponsoredExecutes().length, 0)
    assert.equal(ctx.sponsorships.get(intentHash), undefined, 'the bad sponsorship is dropped')
    // The check on its own: GasCoin anywhere in a command's arguments (here a Move call's).
    const direct = new Transaction()
    direct.moveCall({ target: `${world.standIn.packageId}::intents::execute`, arguments: [direct.gas] })
    direct.setSender(agent)
    direct.setGasOwner(relayer)
    direct.setGasPrice(750n)
    direct.setGasBudget(1_000n)
    direct.setGasPayment([issued.gasCoin])
    assert.match(
      checkSponsorable(ctx, await direct.build(), {
        sender: agent,
        sponsor: relayer,
        gasCoin: issued.gasCoin,
        maxBudget: 50_000_000n,
      }) ?? '',
      /GasCoin/,
    )
  })

  it('a gas budget above the cap: 0x06 before any coin is split or anything signed; bytes over the cap are never sponsored', async () => {
    const ctx = contextWith({ maxSponsoredGasBudget: 2_000_000n })
    const splitsBefore = world.standIn.splits.length
    const refused = await prepareSuiSponsoredExecution(ctx, intentOf(body()), undefined, {})
    assert.equal(refused.ok, false)
    assert.equal(!refused.ok && refused.status, 0x06)
    assert.match((!refused.ok && refused.detail) || '', /2385600 MIST, above the 2000000/)
    assert.equal(world.standIn.splits.length, splitsBefore)
    assert.equal(executes().length, 0)

    // Bytes whose budget exceeds the cap (a faulty builder, a cap lowered since): refused before signing.
    const wide = contextWith()
    const intent = intentOf({ ...body(), nonce: String(nonce + 100_000) })
    await prepareSuiSponsoredExecution(wide, intent, undefined, {})
    const intentHash = suiRuntime.hashIntent(intent)
    const issued = wide.sponsorships.get(intentHash)!
    wide.maxSponsoredGasBudget = 2_000_000n
    await assert.rejects(
      prepareSuiSponsoredExecution(wide, intent, await signBytes(suiSender, issued.txBytes), {}),
      /refused to sponsor/,
    )
    assert.equal(sponsoredExecutes().length, 0)
  })

  it('a replay of an executed intent is answered as a replay by the chain too: no sponsorship is left, validate says 0x22', async () => {
    const ctx = contextWith()
    const intent = intentOf(body())
    await prepareSuiSponsoredExecution(ctx, intent, undefined, {})
    const issued = ctx.sponsorships.get(suiRuntime.hashIntent(intent))!
    const signature = await signBytes(suiSender, issued.txBytes)
    const ready = await prepareSuiSponsoredExecution(ctx, intent, signature, {})
    assert.ok(ready.ok)
    let journaled: SignedExecution | undefined
    const receipt = await (await ready.send({ onSigned: (tx) => void (journaled = tx) })).receipt
    assert.equal(receipt.status, 0x11)
    assert.deepEqual(journaled!.details, {
      mode: 'account',
      gasCoin: { objectId: issued.gasCoin.objectId, version: issued.gasCoin.version },
    })
    const { signatures } = suiSponsoredTransaction.parse(Buffer.from(journaled!.bytes, 'base64'))
    assert.equal(signatures.length, 2)

    // The same signed request again (another instance's journal would not know it): the module's nonce answers.
    world.standIn.answers.validate = { status: 0x22 }
    const again = await prepareSuiSponsoredExecution(ctx, intent, signature, {})
    assert.equal(again.ok, false)
    assert.equal(!again.ok && again.status, 0x22)
    assert.equal(sponsoredExecutes().length, 1)
  })

  it('reconcile broadcasts a lost sponsored transaction again with both signatures', async () => {
    const ctx = contextWith()
    const intent = intentOf(body())
    await prepareSuiSponsoredExecution(ctx, intent, undefined, {})
    const issued = ctx.sponsorships.get(suiRuntime.hashIntent(intent))!
    const ready = await prepareSuiSponsoredExecution(ctx, intent, await signBytes(suiSender, issued.txBytes), {})
    assert.ok(ready.ok)
    let journaled: SignedExecution | undefined
    await (await ready.send({ onSigned: (tx) => void (journaled = tx) })).receipt
    world.standIn.forget()
    const sentBefore = sponsoredExecutes().length
    const outcome = await reconcileSuiTransaction(ctx, { ...journaled!, intent })
    // The node refuses it (its coin's version moved on), as a node would a spent version: dropped, not re-signed.
    assert.equal(outcome.kind, 'dropped')
    assert.equal(sponsoredExecutes().length, sentBefore + 1, 'broadcast again, with the journaled signatures')
    assert.equal(sponsoredExecutes().at(-1)!.request.signatures.length, 2)
  })

  it('bounded: an evicted, never-signed sponsorship hands its coin to the next one (no new split)', async () => {
    const ctx = contextWith({ sponsorshipCapacity: 1 })
    const splitsBefore = world.standIn.splits.length
    const a = intentOf(body())
    const b = intentOf({ ...body(), nonce: String(nonce + 200_000) })
    const c = intentOf({ ...body(), nonce: String(nonce + 300_000) })
    await prepareSuiSponsoredExecution(ctx, a, undefined, {})
    const coinOfA = ctx.sponsorships.get(suiRuntime.hashIntent(a))!.gasCoin
    await prepareSuiSponsoredExecution(ctx, b, undefined, {})
    assert.equal(ctx.sponsorships.size, 1)
    assert.equal(ctx.sponsorships.get(suiRuntime.hashIntent(a)), undefined)
    await prepareSuiSponsoredExecution(ctx, c, undefined, {})
    assert.deepEqual(ctx.sponsorships.get(suiRuntime.hashIntent(c))!.gasCoin, coinOfA)
    assert.equal(world.standIn.splits.length, splitsBefore + 2)
    // A's agent comes back with a signature of A's old bytes: nothing is sponsored, fresh bytes are issued.
  })
})
