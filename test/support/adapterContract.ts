// The ChainAdapter port's contract: one suite of behaviours every runtime's adapter must show,
// run by test/house/adapterContract.test.ts against each runtime's real chain (anvil, LiteSVM, the Sui
// stand-in). A runtime that legitimately cannot show a behaviour says why in its world, and the
// case is skipped with that reason; no assertion is weakened for one runtime.
import assert from 'node:assert/strict'
import { after, before, describe, it, type TestContext } from 'node:test'
import type { Hex } from 'viem'
import { ChainUnavailableError } from '../../src/errors/chainUnavailableError.ts'
import type {
  ChainAdapter,
  ExecutionReceipt,
  Preflight,
  SignedExecution,
  SigningRequest,
} from '../../src/ports/chainAdapter.ts'
import type { ChainType } from '../../src/ports/chainId.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { Status } from '../../src/status/statusCodes.ts'

/**
 * Either what the suite needs for a case, or why this runtime cannot show it (`skip`), or a known
 * divergence from the port that the runtime has today (`todo`: the case runs and its failure is
 * reported as TODO, so it stays visible without failing the run).
 */
export type Capability<T> =
  | { ok: true; value: T }
  | { ok: false; skip: string }
  | { ok: 'todo'; todo: string; value: T }

export type AdapterWorld = {
  /** The adapter under test, over the world's chain, with the relayer key. */
  adapter: ChainAdapter
  expected: {
    chainId: string
    chainType: ChainType
    contracts: { validator: string; executor: string; registry: string; accountDelegate?: string }
    /** The relayer's address as the runtime writes it. */
    relayer: string
  }
  /** The relayer key in every encoding a leak could take (hex, base64, base58, …). */
  secrets: string[]
  /** A valid intent of the demo sender (a fresh nonce each call). */
  intent(overrides?: Partial<Intent>): Intent
  /** An intent of the demo sender the validator refuses, and the code it refuses it with. */
  refused: { intent(): Intent; status: number }
  /** An address in another runtime's form, which this runtime's checkAddress must refuse. */
  foreignAddress: string
  /** The demo sender's signature of what `signingRequest` asks it to sign (the request only, not the intent). */
  sign(request: SigningRequest): Promise<Hex>
  /** Checks that the request is the runtime's own signing shape for this intent. */
  checkSigning(request: SigningRequest, intent: Intent): void
  /** A stranger's (not the sender's, not a delegate's) signature of the request. */
  stranger: Capability<(request: SigningRequest) => Promise<Hex>>
  /** Whether the world's chain can answer the relayer's balance read. */
  relayerBalance: Capability<true>
  /** Whether validate(intent, signature) checks the signature on chain, as the port says (a stranger's answers 0xE4). */
  validateSignature: Capability<true>
  /** Whether an unsigned execution is refused with 0xE5 by the chain (not by a script). */
  unsigned: Capability<true>
  /** Whether the chain itself answers NONCE_USED (0x22) for an intent once executed (not a script). */
  nonces: Capability<true>
  /** Empties the demo sender's deposit: the returned intent then answers 0x54; restore() puts it back. */
  unfund: Capability<() => Promise<{ intent: Intent; restore(): Promise<void> }>>
  /** What sending would change on the chain for the relayer (nonce, balance, calls received): equal before and after means nothing was sent. */
  relayerState(): Promise<unknown>
  /** Whether the chain (or its node's pool) has this transaction. */
  hasTransaction(id: string): Promise<boolean>
  /** Another adapter on the same chain; `missing`: its validator address points at nothing (returned in `address`). */
  makeAdapter(options?: { missing?: boolean }): Promise<{ adapter: ChainAdapter; address?: string }>
  /** Stops the chain (the suite closes the adapter itself). */
  stop(): Promise<void>
}

/** A receipt on these devnets comes within a second; a send that never lands fails the case instead of hanging the file. */
const receiptTimeoutMs = 20_000

const skipped = <T>(t: TestContext, c: Capability<T>): c is { ok: false; skip: string } => {
  if (c.ok === 'todo') t.todo(c.todo)
  if (c.ok !== false) return false
  t.skip(c.skip)
  return true
}

export function adapterContract(name: string, makeWorld: () => Promise<AdapterWorld>) {
  describe(`ChainAdapter contract: ${name}`, () => {
    let world: AdapterWorld
    let adapter: ChainAdapter
    /** The valid execution's submission and what onSigned got, for the reconcile case. */
    let executed: { signed: SignedExecution; receipt: ExecutionReceipt; intent: Intent } | undefined

    before(async () => {
      world = await makeWorld()
      adapter = world.adapter
      // As the composition root does before serving (EVM starts its relayer pool here).
      await adapter.preflight()
    })
    after(async () => {
      await adapter?.close()
      await world?.stop()
    })

    const signedBy = async (intent: Intent) => world.sign(adapter.signingRequest(intent))
    /** Nothing left held by a preflight the test does not send. */
    const release = (p: Preflight) => {
      if (p.ok) p.cancel?.()
    }

    it('describe() names the chain id, type, contracts and relayer, and never the relayer key', () => {
      const d = adapter.describe()
      assert.equal(d.chainId, world.expected.chainId)
      assert.equal(d.chainType, world.expected.chainType)
      assert.equal(adapter.chainId, world.expected.chainId)
      assert.equal(adapter.chainType, world.expected.chainType)
      assert.deepEqual(d.contracts, world.expected.contracts)
      assert.equal(d.relayer, world.expected.relayer)
      assert.equal(d.available, true)
      assert.equal(d.unavailableReason, undefined)
      assert.equal(adapter.canExecute, true)
      const text = JSON.stringify(d).toLowerCase()
      assert.ok(world.secrets.length > 0)
      for (const secret of world.secrets)
        assert.ok(!text.includes(secret.toLowerCase()), `describe() carries the relayer key (${secret.slice(0, 4)}…)`)
    })

    it('getHealth() is reachable with a block number', async () => {
      const health = await adapter.getHealth()
      assert.equal(health.chainId, world.expected.chainId)
      assert.equal(health.chainType, world.expected.chainType)
      assert.equal(health.reachable, true, health.error)
      assert.equal(health.available, true)
      assert.equal(health.error, undefined)
      assert.match(health.blockNumber ?? '', /^\d+$/)
    })

    it('preflight() is ok on the devnet deployment', async () => {
      assert.deepEqual(await adapter.preflight(), { ok: true })
    })

    it('preflight() names the missing contract when the validator address holds nothing', async () => {
      const { adapter: other, address } = await world.makeAdapter({ missing: true })
      try {
        const result = await other.preflight()
        assert.equal(result.ok, false, JSON.stringify(result))
        assert.ok(!result.ok && 'missing' in result, JSON.stringify(result))
        assert.ok(
          result.missing.some((m) => m.includes(address!)),
          `${JSON.stringify(result.missing)} names ${address}`,
        )
      } finally {
        await other.close()
      }
    })

    it('runtime.hashIntent is stable, 32 bytes, and differs between intents', () => {
      const intent = world.intent()
      const hash = adapter.runtime.hashIntent(intent)
      assert.match(hash, /^0x[0-9a-f]{64}$/)
      assert.equal(adapter.runtime.hashIntent({ ...intent }), hash)
      assert.notEqual(adapter.runtime.hashIntent({ ...intent, nonce: intent.nonce + 1n }), hash)
      assert.notEqual(adapter.runtime.hashIntent({ ...intent, value: intent.value + 1n }), hash)
      assert.notEqual(adapter.runtime.hashIntent(world.refused.intent()), hash)
    })

    it('runtime.checkIntent finds nothing wrong with a valid intent', () => {
      assert.deepEqual(adapter.runtime.checkIntent(world.intent()), [])
    })

    it("relayerBalance() answers the relayer's funds in the smallest unit", async (t) => {
      if (skipped(t, world.relayerBalance)) return
      assert.equal(typeof adapter.relayerBalance, 'function')
      const balance = await adapter.relayerBalance!()
      assert.equal(typeof balance, 'bigint')
      assert.ok(balance > 0n, String(balance))
    })

    it('runtime.checkAddress accepts its own form and refuses a foreign one', () => {
      const intent = world.intent()
      assert.equal(adapter.runtime.checkAddress(intent.sender), undefined)
      assert.equal(adapter.runtime.checkAddress(world.expected.relayer), undefined)
      const refusal = adapter.runtime.checkAddress(world.foreignAddress)
      assert.equal(typeof refusal, 'string')
      assert.ok(refusal!.length > 0)
      assert.equal(adapter.runtime.chainType, world.expected.chainType)
    })

    it('validate() answers 0x01 for a valid intent and the refusal code for a refused one, sending nothing', async () => {
      const before = await world.relayerState()
      assert.equal(await adapter.validate(world.intent()), Status.SUCCESS)
      assert.equal(await adapter.validate(world.refused.intent()), world.refused.status)
      assert.notEqual(world.refused.status, Status.SUCCESS)
      assert.deepEqual(await world.relayerState(), before, 'validate sent nothing')
    })

    it("validate() answers INSUFFICIENT_FUNDS (0x54) once the sender's deposit is gone, and 0x01 once it is back", async (t) => {
      if (skipped(t, world.unfund)) return
      const { intent, restore } = await world.unfund.value()
      try {
        assert.equal(await adapter.validate(intent), Status.INSUFFICIENT_FUNDS)
      } finally {
        await restore()
      }
      assert.equal(await adapter.validate(intent), Status.SUCCESS)
    })

    it("prepareExecution() of a refused intent is ok: false with the chain's code, and sends nothing", async () => {
      const before = await world.relayerState()
      const intent = world.refused.intent()
      const preflight = await adapter.prepareExecution(intent, await signedBy(intent))
      release(preflight)
      assert.equal(preflight.ok, false)
      assert.ok(!preflight.ok && preflight.status === world.refused.status, JSON.stringify(preflight))
      assert.deepEqual(await world.relayerState(), before)
    })

    it("prepareExecution() refuses a stranger's signature with 0xE4, and sends nothing", async (t) => {
      if (skipped(t, world.stranger)) return
      const before = await world.relayerState()
      const intent = world.intent()
      const preflight = await adapter.prepareExecution(
        intent,
        await world.stranger.value(adapter.signingRequest(intent)),
      )
      release(preflight)
      assert.ok(!preflight.ok && preflight.status === Status.UNAUTHORIZED, JSON.stringify(preflight))
      assert.deepEqual(await world.relayerState(), before)
    })

    it("validate() with a stranger's signature answers UNAUTHORIZED (0xE4), as the port says; with the sender's, 0x01", async (t) => {
      if (skipped(t, world.validateSignature) || skipped(t, world.stranger)) return
      const intent = world.intent()
      const request = adapter.signingRequest(intent)
      assert.equal(await adapter.validate(intent, await world.sign(request)), Status.SUCCESS)
      assert.equal(await adapter.validate(intent, await world.stranger.value(request)), Status.UNAUTHORIZED)
    })

    it('prepareExecution() refuses an unsigned intent with 0xE5, and sends nothing', async (t) => {
      if (skipped(t, world.unsigned)) return
      const before = await world.relayerState()
      const preflight = await adapter.prepareExecution(world.intent())
      release(preflight)
      assert.ok(!preflight.ok && preflight.status === Status.SIGNATURE_REQUIRED, JSON.stringify(preflight))
      assert.deepEqual(await world.relayerState(), before)
    })

    it("signingRequest() returns the runtime's signing shape, and what the sender signs from it alone is accepted", async () => {
      const intent = world.intent()
      const request = adapter.signingRequest(intent)
      world.checkSigning(request, intent)
      assert.deepEqual(adapter.signingRequest({ ...intent }), request, 'the same intent, the same request')
      assert.notDeepEqual(adapter.signingRequest({ ...intent, nonce: intent.nonce + 1n }), request)
      const preflight = await adapter.prepareExecution(intent, await world.sign(request))
      release(preflight)
      assert.equal(preflight.ok, true, JSON.stringify(preflight))
    })

    it('a prepared execution that is cancelled sends nothing, and the next execution lands', {
      timeout: receiptTimeoutMs,
    }, async () => {
      const intent = world.intent()
      const before = await world.relayerState()
      const preflight = await adapter.prepareExecution(intent, await signedBy(intent))
      assert.ok(preflight.ok, JSON.stringify(preflight))
      preflight.cancel?.()
      assert.deepEqual(await world.relayerState(), before)
      const next = await adapter.prepareExecution(intent, await signedBy(intent))
      assert.ok(next.ok, JSON.stringify(next))
      const receipt = await (await next.send({ onSigned: () => {} })).receipt
      assert.equal(receipt.state, 'mined', receipt.detail)
      assert.equal(receipt.status, Status.EXECUTED)
    })

    it('two executions sent at once both settle mined with 0x11, each its own transaction', {
      timeout: receiptTimeoutMs,
    }, async () => {
      const intents = [world.intent(), world.intent()]
      const preflights = await Promise.all(intents.map(async (i) => adapter.prepareExecution(i, await signedBy(i))))
      for (const p of preflights) assert.ok(p.ok, JSON.stringify(p))
      const submissions = await Promise.all(
        preflights.map((p) => (p.ok ? p.send({ onSigned: () => {} }) : Promise.reject(new Error('refused')))),
      )
      assert.notEqual(submissions[0]!.transactionHash, submissions[1]!.transactionHash)
      for (const s of submissions) {
        const receipt = await s.receipt
        assert.equal(receipt.state, 'mined', receipt.detail)
        assert.equal(receipt.status, Status.EXECUTED)
        assert.equal(receipt.transactionHash, s.transactionHash)
      }
    })

    it('when onSigned throws, send() rejects with its error and nothing is broadcast; the next execution lands', {
      timeout: receiptTimeoutMs,
    }, async () => {
      const intent = world.intent()
      const preflight = await adapter.prepareExecution(intent, await signedBy(intent))
      assert.ok(preflight.ok, JSON.stringify(preflight))
      const before = await world.relayerState()
      let signed: SignedExecution | undefined
      const refusal = new Error('the journal is full')
      await assert.rejects(
        preflight.send({
          onSigned(tx) {
            signed = tx
            throw refusal
          },
        }),
        (err) => err === refusal || (err as { cause?: unknown }).cause === refusal,
      )
      assert.ok(signed, 'onSigned was called')
      assert.equal(await world.hasTransaction(signed.id), false, 'the chain has no such transaction')
      assert.deepEqual(await world.relayerState(), before)
      // The relayer is not left stuck (a nonce handed out and never used): the next execution lands.
      const next = world.intent()
      const again = await adapter.prepareExecution(next, await signedBy(next))
      assert.ok(again.ok, JSON.stringify(again))
      const submission = await again.send({ onSigned: () => {} })
      const receipt = await submission.receipt
      assert.equal(receipt.state, 'mined', receipt.detail)
      assert.equal(receipt.status, Status.EXECUTED)
    })

    it('send() calls onSigned before the broadcast with the SignedExecution, and the receipt settles mined with 0x11', {
      timeout: receiptTimeoutMs,
    }, async () => {
      const intent = world.intent()
      const preflight = await adapter.prepareExecution(intent, await signedBy(intent))
      assert.ok(preflight.ok, JSON.stringify(preflight))
      let signed: SignedExecution | undefined
      let onChainWhenSigned: boolean | undefined
      const submission = await preflight.send({
        async onSigned(tx) {
          signed = tx
          onChainWhenSigned = await world.hasTransaction(tx.id)
        },
      })
      assert.ok(signed, 'onSigned was called')
      assert.equal(onChainWhenSigned, false, 'onSigned ran before the broadcast')
      assert.equal(typeof signed.id, 'string')
      assert.equal(signed.id, submission.transactionHash)
      assert.equal(signed.relayer, world.expected.relayer)
      assert.ok(signed.bytes.length > 0)
      assert.equal(Buffer.from(signed.bytes, 'base64').toString('base64'), signed.bytes, 'bytes are base64')
      assert.equal(typeof signed.details, 'object')
      assert.doesNotThrow(() => JSON.stringify(signed!.details))
      assert.equal(submission.accepted, true)
      const receipt = await submission.receipt
      assert.equal(receipt.state, 'mined', receipt.detail)
      assert.equal(receipt.status, Status.EXECUTED)
      assert.equal(receipt.transactionHash, signed.id)
      assert.equal(typeof receipt.blockNumber, 'bigint')
      assert.equal(await world.hasTransaction(signed.id), true)
      executed = { signed, receipt, intent }
    })

    it('an executed intent answers NONCE_USED (0x22) to validate and to prepareExecution, which sends nothing', async (t) => {
      if (!executed) return t.skip('the execution case did not run')
      if (skipped(t, world.nonces)) return
      const before = await world.relayerState()
      assert.equal(await adapter.validate(executed.intent), Status.NONCE_USED)
      const again = await adapter.prepareExecution(executed.intent, await signedBy(executed.intent))
      release(again)
      assert.ok(!again.ok && again.status === Status.NONCE_USED, JSON.stringify(again))
      assert.deepEqual(await world.relayerState(), before)
    })

    it('reconcile() of the journaled transaction answers settled with the same receipt', async (t) => {
      if (!executed) return t.skip('the execution case did not run')
      const before = await world.relayerState()
      const answer = await adapter.reconcile({ ...executed.signed, intent: executed.intent })
      assert.deepEqual(answer, { kind: 'settled', receipt: executed.receipt })
      assert.deepEqual(await world.relayerState(), before, 'reconcile of a mined transaction sends nothing')
    })

    it('markUnavailable() makes every request a ChainUnavailableError naming the reason, and describe() says so', async () => {
      const { adapter: other } = await world.makeAdapter()
      try {
        assert.equal(await other.validate(world.intent()), Status.SUCCESS)
        other.markUnavailable('contracts missing at start-up')
        const unavailable = (err: unknown) =>
          err instanceof ChainUnavailableError && err.details === 'contracts missing at start-up'
        await assert.rejects(other.validate(world.intent()), unavailable)
        const intent = world.intent()
        await assert.rejects(other.prepareExecution(intent, await signedBy(intent)), unavailable)
        assert.equal(other.describe().available, false)
        assert.equal(other.describe().unavailableReason, 'contracts missing at start-up')
        assert.equal((await other.getHealth()).available, false)
      } finally {
        await other.close()
      }
    })

    it('close() resolves', async () => {
      const { adapter: other } = await world.makeAdapter()
      await other.preflight()
      await other.close()
    })
  })
}
