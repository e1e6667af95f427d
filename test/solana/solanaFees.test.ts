// Priority fees and the compute budget of Solana executions, against the LiteSVM devnet through
// its JSON-RPC front (LiteSVM has no fee market: a test sets the recent fees with
// litesvm_setPrioritizationFees). The signed transaction carries [SetComputeUnitLimit,
// SetComputeUnitPrice, Ed25519, execute]: the limit measured by simulation with a margin, the
// price the market's for the accounts it writes, within the ceiling; an attempt re-signed after
// its blockhash expired bids more.
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import {
  type Address,
  createKeyPairSignerFromPrivateKeyBytes,
  decompileTransactionMessage,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Instruction,
} from '@solana/kit'
import { computeBudgetProgram, readComputeBudget } from '../../src/chains/solana/computeBudget.ts'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { ed25519Program } from '../../src/chains/solana/intentGatewayProgram.ts'
import { createReconciler } from '../../src/intents/createReconciler.ts'
import type { ChainAdapter, SignedExecution } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { demoIntents, quietLogger, solanaAdapterFor, startSolanaDevnet } from '../support/solanaGateway.ts'

/** The compute budget and program order of a signed transaction (base64). */
function inspect(bytes: string) {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(bytes))
  const instructions = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(tx.messageBytes))
    .instructions as readonly Instruction[]
  const budget = Object.assign({}, ...instructions.map((ix) => readComputeBudget(ix) ?? {})) as {
    computeUnitLimit?: number
    computeUnitPrice?: bigint
  }
  return { programs: instructions.map((ix) => ix.programAddress), ...budget }
}

describe('Solana priority fees and compute budget', () => {
  let devnet: SolanaDevnet
  let adapter: ChainAdapter
  const journal = openJournal({ path: ':memory:' })

  before(async () => {
    devnet = await startSolanaDevnet()
    adapter = solanaAdapterFor(devnet, { relayer: true, options: { maxPriorityFeeMicroLamports: 100_000 } })
  })
  after(async () => {
    journal.close()
    await devnet?.stop()
  })
  beforeEach(async () => {
    // No fees anywhere unless a test sets them.
    await devnet.control('litesvm_setPrioritizationFees', [[]])
    await devnet.control('litesvm_setPrioritizationFees', [[], [await vault()]])
  })

  const vault = () => devnet.program.vaultAddress(devnet.demo.sender as Address)
  const { intent, hashOf, sign } = demoIntents(() => devnet, 5_000n)
  const balance = async (address: Address) => (await devnet.rpc.getBalance(address).send()).value

  /** Prepares and sends through `adapter`, keeping the signed transaction. */
  async function execute(i: Intent, through = adapter, { broadcast = true, watch = true } = {}) {
    const claim = await journal.claim({ chainId: devnet.chainId, intentHash: hashOf(i), intent: i })
    assert.ok(claim.ok)
    const preflight = await through.prepareExecution(i, sign(i))
    assert.ok(preflight.ok, JSON.stringify(preflight))
    let signed: SignedExecution | undefined
    const sending = preflight.send({
      onSigned: async (tx) => {
        await journal.recordSigned(claim.record, tx)
        signed = tx
        if (!broadcast) throw new Error('stopped before the broadcast')
      },
    })
    if (!broadcast) {
      await assert.rejects(sending, /stopped before the broadcast/)
      return { signed: signed!, receipt: undefined }
    }
    const submission = await sending
    if (!watch) {
      submission.receipt.catch(() => undefined)
      return { signed: signed!, receipt: undefined }
    }
    return { signed: signed!, receipt: await submission.receipt }
  }

  it('puts the compute budget in front of the Ed25519 and execute instructions: a measured limit, and the price it paid for', async () => {
    await devnet.control('litesvm_setPrioritizationFees', [[20_000]])
    const relayer = (await createKeyPairSignerFromPrivateKeyBytes(devnet.relayerSecretKey)).address
    const before = await balance(relayer)
    const { signed, receipt } = await execute(intent())
    assert.equal(receipt?.status, 0x11, receipt?.detail)
    const seen = inspect(signed.bytes)
    assert.deepEqual(seen.programs, [computeBudgetProgram, computeBudgetProgram, ed25519Program, devnet.programId])
    assert.equal(seen.computeUnitPrice, 20_000n)
    // Measured, not the maximum: what the execute used plus the margin; and it was enough (it landed).
    assert.ok(seen.computeUnitLimit! > 1_000 && seen.computeUnitLimit! < 200_000, String(seen.computeUnitLimit))
    assert.deepEqual(
      [signed.details.computeUnitLimit, signed.details.computeUnitPrice],
      [String(seen.computeUnitLimit), '20000'],
    )
    // The relayer paid the base fee (5,000 per signature: its own and the one the Ed25519 instruction
    // verifies) and the priority fee: price × limit, in micro-lamports, rounded up.
    const priority = (20_000n * BigInt(seen.computeUnitLimit!) + 999_999n) / 1_000_000n
    assert.equal(before - (await balance(relayer)), 2n * 5_000n + priority)
  })

  it('bids the 75th percentile of the recent fees of the accounts it writes, not of accounts it does not touch', async () => {
    // 20 recent slots at 0, 1,000, …, 19,000 for transactions writing the sender's vault.
    await devnet.control('litesvm_setPrioritizationFees', [
      Array.from({ length: 20 }, (_, i) => i * 1_000),
      [await vault()],
    ])
    const unrelated = (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(9))).address
    await devnet.control('litesvm_setPrioritizationFees', [[90_000], [unrelated]])
    const { signed } = await execute(intent())
    assert.equal(inspect(signed.bytes).computeUnitPrice, 14_000n)
  })

  it("bids no more than the ceiling however high the market (a sender bidding up its own accounts cannot spend the relayer's SOL beyond it)", async () => {
    await devnet.control('litesvm_setPrioritizationFees', [[5_000_000], [await vault()]])
    const { signed, receipt } = await execute(intent())
    assert.equal(receipt?.status, 0x11)
    assert.equal(inspect(signed.bytes).computeUnitPrice, 100_000n)
  })

  it('bids nothing with a ceiling of 0', async () => {
    await devnet.control('litesvm_setPrioritizationFees', [[50_000]])
    const { signed } = await execute(
      intent(),
      solanaAdapterFor(devnet, { relayer: true, options: { maxPriorityFeeMicroLamports: 0 } }),
    )
    assert.equal(inspect(signed.bytes).computeUnitPrice, 0n)
  })

  it('raises the price of an attempt re-signed after its blockhash expired unmined (by half, or to the market), within the ceiling; it runs once', async () => {
    const reconciler = createReconciler({ journal, adapters: [adapter], intervalMs: 60_000, logger: quietLogger })
    const priceOf = async (i: Intent) => {
      const row = await journal.get(hashOf(i), devnet.chainId)
      return [row?.attempt, inspect(row!.transaction!.bytes).computeUnitPrice]
    }
    const reprice = async () => {
      await devnet.control('litesvm_expireBlockhash', [])
      const pass = await reconciler.runOnce()
      assert.equal(pass.repriced, 1, JSON.stringify(pass))
    }
    const recipientBefore = await balance(devnet.demo.recipient)
    try {
      // Congested: the market says 10,000, but nothing under 14,000 lands.
      await devnet.control('litesvm_setPrioritizationFees', [[10_000]])
      await devnet.control('litesvm_setMinimumPriorityFee', [14_000])
      const first = intent()
      const { signed: stuck } = await execute(first, adapter, { watch: false })
      assert.equal(inspect(stuck.bytes).computeUnitPrice, 10_000n)
      assert.equal((await reconciler.runOnce()).rebroadcast, 1, 'sent, not landed, blockhash still valid')
      await reprice()
      assert.deepEqual(await priceOf(first), [2, 15_000n], 'the market did not move: half as much again')
      const renewed = inspect((await journal.get(hashOf(first), devnet.chainId))!.transaction!.bytes)
      assert.deepEqual(
        [renewed.computeUnitLimit, renewed.programs],
        [inspect(stuck.bytes).computeUnitLimit, inspect(stuck.bytes).programs],
        'the same limit and instructions',
      )
      const settled = await reconciler.runOnce()
      assert.equal(settled.settled, 1, JSON.stringify(settled))
      assert.equal((await journal.get(hashOf(first), devnet.chainId))?.state, 'mined')
      assert.equal(await balance(devnet.demo.recipient), recipientBefore + 1_000n)

      // Nothing under 1,000,000 lands, above the ceiling: the market rises, then the ceiling holds.
      await devnet.control('litesvm_setMinimumPriorityFee', [1_000_000])
      const second = intent()
      await execute(second, adapter, { watch: false })
      await devnet.control('litesvm_setPrioritizationFees', [[60_000]])
      await reprice()
      assert.deepEqual(await priceOf(second), [2, 60_000n], 'the market, above half as much again')
      await reprice()
      assert.deepEqual(await priceOf(second), [3, 90_000n])
      await reprice()
      assert.deepEqual(await priceOf(second), [4, 100_000n], 'the ceiling')
      await reprice()
      assert.deepEqual(await priceOf(second), [5, 100_000n], 'never above it')
      // The congestion ends: the last attempt is broadcast again and lands.
      await devnet.control('litesvm_setMinimumPriorityFee', [0])
      assert.equal((await reconciler.runOnce()).rebroadcast, 1)
      assert.equal((await reconciler.runOnce()).settled, 1)
      assert.equal(await balance(devnet.demo.recipient), recipientBefore + 2_000n, 'each intent ran once')
    } finally {
      await devnet.control('litesvm_setMinimumPriorityFee', [0])
    }
  })
})
