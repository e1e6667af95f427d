// IntentBundler on anvil: a relayer's signed executions as one transaction (issue 44's bundle: the
// contract, and each call's outcome read from the receipt, bundleOutcomes.ts). Each call gets its own gas limit and no more; a failed call is logged
// with at most REVERT_DATA_CAP bytes of its revert; a call the bundle could not give its whole limit
// is left unrun with every call after it (their nonces stay unused, to be sent again); the contract
// holds nothing and takes no ETH, so a call through it can do no more than its caller could. Each
// test reads the chain: the counter, the executor's nonces, the logs and the receipt's gas.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  type Address,
  decodeErrorResult,
  decodeEventLog,
  encodeFunctionData,
  type Hex,
  parseEther,
  type TransactionReceipt,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { bundleCallsOf, bundledReceipt } from '../../src/chains/evm/adapter/bundledReceipt.ts'
import {
  type BundledCallOutcome,
  gasShares,
  readBundleOutcomes,
  revertDataCap,
} from '../../src/chains/evm/bundleOutcomes.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { evmRuntime, toIntentTuple } from '../../src/chains/evm/evmRuntime.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { intentBundlerArtifact } from '../../src/contracts/intentBundlerArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import { demoReads } from '../support/demoReads.ts'
import { writePolicy } from '../support/policies.ts'
import { demoIntent, signIntent } from '../support/testGateway.ts'

type Call = { target: Address; gasLimit: bigint; data: Hex }
type Ran = { index: bigint; success: boolean; gasUsed: bigint; revertData: Hex }

describe('IntentBundler: many executions in one transaction, each within its own gas limit', () => {
  let devnet: Devnet
  let clients: ReturnType<typeof createDevClients>
  let nonce = 9_000_000n
  const relayer = () => clients.walletFor(devnetAccounts.relayer)
  const stranger = () => clients.walletFor(devnetAccounts.other)

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  })
  after(async () => {
    await devnet?.stop()
  })

  /**
   * The demo sender's increment by 1 (or `targetData` under `policyId`) as executeSigned's calldata,
   * with its intent's hash; `signer` another key to forge it.
   */
  async function signedIncrement(
    signer: Hex = devnetAccounts.sender,
    targetData?: Hex,
    policyId?: Hex,
  ): Promise<{ data: Hex; nonce: bigint; intentHash: Hex }> {
    const n = nonce++
    const overrides = {
      nonce: String(n),
      ...(targetData ? { data: targetData } : {}),
      ...(policyId ? { policyId } : {}),
    }
    const body = await signIntent(devnet, demoIntent(devnet, overrides), signer)
    const intent = parseIntent(body as never, evmRuntime)
    const data = encodeFunctionData({
      abi: intentExecutorArtifact.abi,
      functionName: 'executeSigned',
      args: [toIntentTuple(intent), body.signature as Hex],
    })
    return { data, nonce: n, intentHash: evmRuntime.hashIntent(intent) as Hex }
  }
  const toExecutor = (data: Hex, gasLimit = 200_000n): Call => ({ target: devnet.contracts.executor, gasLimit, data })

  async function sendBundle(
    calls: Call[],
    { gas, from = relayer() }: { gas?: bigint; from?: ReturnType<typeof relayer> } = {},
  ): Promise<TransactionReceipt> {
    const data = encodeFunctionData({ abi: intentBundlerArtifact.abi, functionName: 'run', args: [calls] })
    const hash = await from.sendTransaction({
      account: from.account!,
      chain: from.chain,
      to: devnet.contracts.bundler,
      data,
      // Never estimated: the least gas with which the bundle succeeds is the gas that runs no call.
      gas: gas ?? enoughFor(calls, data),
    })
    return clients.publicClient.waitForTransactionReceipt({ hash })
  }
  /** What a relayer gives a bundle: the base cost, its calldata at 16 a byte, each call's limit with its share kept back, and its loop. */
  const enoughFor = (calls: Call[], data: Hex) =>
    21_000n +
    16n * BigInt((data.length - 2) / 2) +
    calls.reduce((sum, c) => sum + c.gasLimit + c.gasLimit / 63n + 20_000n, 0n) +
    10_000n
  function bundlerLogs(receipt: TransactionReceipt) {
    const ran: Ran[] = []
    const leftUnrun: { fromIndex: bigint; gasLeft: bigint }[] = []
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== devnet.contracts.bundler.toLowerCase()) continue
      const event = decodeEventLog({ abi: intentBundlerArtifact.abi, data: log.data, topics: log.topics })
      if (event.eventName === 'Ran') ran.push(event.args as Ran)
      else leftUnrun.push(event.args as { fromIndex: bigint; gasLeft: bigint })
    }
    const executed = receipt.logs.filter(
      (log) => log.address.toLowerCase() === devnet.contracts.executor.toLowerCase(),
    ).length
    return { ran, leftUnrun, executed }
  }
  /** Each call's outcome as the relayer reads it from the receipt, without the gas (asserted apart). */
  const outcomesOf = (receipt: TransactionReceipt, calls: Call[]) =>
    readBundleOutcomes({ bundler: devnet.contracts.bundler, calls, status: receipt.status, logs: receipt.logs }).map(
      (o) => {
        const { gasUsed: _, ...rest } = o as BundledCallOutcome & { gasUsed?: bigint }
        return rest
      },
    )
  const count = () =>
    clients.publicClient.readContract({
      address: devnet.demo.counter,
      abi: demoCounterArtifact.abi,
      functionName: 'count',
    })
  const { nonceUsed } = demoReads(() => ({ devnet, clients }))

  it('runs every call in order, each logged with the gas it used, within its limit', async () => {
    const intents = [await signedIncrement(), await signedIncrement(), await signedIncrement()]
    const before = await count()
    // Each call names its intent: its outcome is its own IntentExecuted, not a neighbour's.
    const calls = intents.map((i) => ({ ...toExecutor(i.data), intentHash: i.intentHash }))
    const receipt = await sendBundle(calls)
    assert.equal(receipt.status, 'success')
    assert.deepEqual(
      outcomesOf(receipt, calls).map((o) => [o.index, o.kind, 'status' in o ? o.status : undefined]),
      [
        [0, 'executed', 0x11],
        [1, 'executed', 0x11],
        [2, 'executed', 0x11],
      ],
    )
    const { ran, leftUnrun, executed } = bundlerLogs(receipt)
    assert.deepEqual(
      ran.map((r) => [r.index, r.success, r.revertData]),
      [
        [0n, true, '0x'],
        [1n, true, '0x'],
        [2n, true, '0x'],
      ],
    )
    assert.deepEqual(leftUnrun, [])
    assert.equal(executed, 3, 'each call logged its own IntentExecuted')
    for (const r of ran) assert.ok(r.gasUsed > 20_000n && r.gasUsed < 200_000n, `gas used ${r.gasUsed}`)
    // The calls' gas is the transaction's, less its base cost, calldata and the bundle's own work,
    // which each call's share splits evenly: the shares add up to the transaction's gas.
    const own = ran.reduce((sum, r) => sum + r.gasUsed, 0n)
    assert.ok(own < receipt.gasUsed, `${own} of ${receipt.gasUsed}`)
    const outcomes = readBundleOutcomes({
      bundler: devnet.contracts.bundler,
      calls,
      status: 'success',
      logs: receipt.logs,
    })
    const shares = gasShares(outcomes, receipt.gasUsed)
    assert.equal(
      shares.reduce((sum, g) => sum + g, 0n),
      receipt.gasUsed,
    )
    for (const [i, share] of shares.entries()) assert.ok(share > ran[i]!.gasUsed)
    assert.equal(await count(), before + 3n)
    for (const i of intents) assert.equal(await nonceUsed(i.nonce), true)
  })

  it('logs a failed call with its revert data and still runs the calls after it', async () => {
    const first = await signedIncrement()
    const forged = await signedIncrement(devnetAccounts.other)
    const third = await signedIncrement()
    const before = await count()
    const calls = [toExecutor(first.data), toExecutor(forged.data), toExecutor(third.data)]
    const receipt = await sendBundle(calls)
    assert.equal(receipt.status, 'success')
    assert.deepEqual(
      outcomesOf(receipt, calls).map((o) => [o.kind, 'status' in o ? o.status : undefined]),
      [
        ['executed', 0x11],
        ['reverted', 0xe4],
        ['executed', 0x11],
      ],
    )
    const { ran, executed } = bundlerLogs(receipt)
    assert.deepEqual(
      ran.map((r) => r.success),
      [true, false, true],
    )
    // The executor's own answer, as a call of its own would have had it: a signature that does not authorize (0xE4).
    const refused = decodeErrorResult({ abi: intentExecutorArtifact.abi, data: ran[1]!.revertData })
    assert.equal(refused.errorName, 'ExecutionDenied')
    assert.deepEqual(refused.args, ['0xe4'])
    assert.equal(executed, 2)
    assert.equal(await count(), before + 2n)
    assert.equal(await nonceUsed(forged.nonce), false)
  })

  it('holds a call to its own limit: one that runs out fails alone, its nonce unused', async () => {
    const starved = await signedIncrement()
    const next = await signedIncrement()
    const before = await count()
    const calls = [toExecutor(starved.data, 30_000n), toExecutor(next.data)]
    const receipt = await sendBundle(calls)
    const { ran } = bundlerLogs(receipt)
    assert.deepEqual(
      outcomesOf(receipt, calls).map((o) => o.kind),
      ['outOfGas', 'executed'],
    )
    assert.equal(ran[0]!.success, false)
    assert.equal(ran[0]!.revertData, '0x', 'out of gas: no revert data')
    // Its limit, the call's own cost and the copy of its calldata: not a gas more of the bundle's.
    assert.ok(ran[0]!.gasUsed >= 30_000n && ran[0]!.gasUsed < 36_000n, `gas used ${ran[0]!.gasUsed}`)
    assert.equal(ran[1]!.success, true)
    assert.equal(await count(), before + 1n)
    assert.equal(await nonceUsed(starved.nonce), false, 'it can be sent again')
  })

  it('leaves unrun, and says so, every call from the first it could not give its whole limit', async () => {
    const intents = await Promise.all([1, 2, 3, 4].map(() => signedIncrement()))
    // Enough for the first call's 150,000 and a little: the second's limit cannot be given.
    const calls = intents.map((i) => toExecutor(i.data, 150_000n))
    const before = await count()
    const receipt = await sendBundle(calls, { gas: 230_000n })
    assert.equal(receipt.status, 'success', 'the bundle itself does not revert')
    const { ran, leftUnrun } = bundlerLogs(receipt)
    assert.deepEqual(
      ran.map((r) => [r.index, r.success]),
      [[0n, true]],
    )
    const outcomes = readBundleOutcomes({
      bundler: devnet.contracts.bundler,
      calls,
      status: 'success',
      logs: receipt.logs,
    })
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['executed', 'unrun', 'unrun', 'unrun'],
    )
    assert.deepEqual(gasShares(outcomes, receipt.gasUsed).slice(1), [0n, 0n, 0n])
    assert.equal(leftUnrun.length, 1)
    assert.equal(leftUnrun[0]!.fromIndex, 1n)
    assert.ok(leftUnrun[0]!.gasLeft < 150_000n + 150_000n / 63n + 20_000n)
    assert.equal(await count(), before + 1n)
    for (const i of intents.slice(1)) assert.equal(await nonceUsed(i.nonce), false, 'left unrun: to be sent again')
  })

  it('copies at most REVERT_DATA_CAP bytes of a revert, whatever its size', async () => {
    // A target that reverts with 64 KiB: PUSH3 0x010000, PUSH1 0, REVERT.
    const bomb = '0x00000000000000000000000000000000000b0b1b' as Address
    await clients.publicClient.request({
      method: 'anvil_setCode' as never,
      params: [bomb, '0x62010000' + '6000fd'] as never,
    })
    const cap = await clients.publicClient.readContract({
      address: devnet.contracts.bundler,
      abi: intentBundlerArtifact.abi,
      functionName: 'REVERT_DATA_CAP',
    })
    assert.equal(cap, BigInt(revertDataCap))
    const receipt = await sendBundle([{ target: bomb, gasLimit: 1_000_000n, data: '0x' }])
    const { ran } = bundlerLogs(receipt)
    assert.equal(ran[0]!.success, false)
    assert.equal((ran[0]!.revertData.length - 2) / 2, 1024)
    // The bundle's own part (base cost, calldata, its log) does not grow with the revert's 64 KiB:
    // copying it all would cost over 14,000 gas more.
    const own = receipt.gasUsed - ran[0]!.gasUsed
    assert.ok(own < 21_000n + 18_000n, `the bundle's own gas ${own}`)
  })

  it('reads the status of an executor revert cut at the cap: a target that fails with a long reason', async () => {
    // A policy of the demo sender's that allows any call of the counter (the demo's allows increment only).
    const anyCall = await writePolicy({ devnet, clients }, 'bundler.any-call', {
      allowedTargets: [devnet.demo.counter as Address],
    })
    const failing = encodeFunctionData({
      abi: demoCounterArtifact.abi,
      functionName: 'fail',
      args: ['x'.repeat(2_000)],
    })
    const intent = await signedIncrement(devnetAccounts.sender, failing, anyCall)
    const calls = [toExecutor(intent.data, 400_000n)]
    const receipt = await sendBundle(calls)
    const { ran } = bundlerLogs(receipt)
    assert.equal((ran[0]!.revertData.length - 2) / 2, revertDataCap, `cut at the cap: ${ran[0]!.revertData}`)
    const [outcome] = readBundleOutcomes({
      bundler: devnet.contracts.bundler,
      calls,
      status: 'success',
      logs: receipt.logs,
    })
    assert.equal(outcome!.kind, 'reverted')
    // ExecutionFailed(TRANSFER_FAILED, …): the target call reverted.
    assert.equal((outcome as { status: number }).status, 0x50)
    assert.equal(await nonceUsed(intent.nonce), false)
  })

  it("gives each execution its own call's outcome and its share of the bundle's gas and fee, from the receipt and from the bundle's bytes alike", async () => {
    const ok = await signedIncrement()
    const forged = await signedIncrement(devnetAccounts.other)
    const starved = await signedIncrement()
    const last = await signedIncrement()
    const calls = [
      toExecutor(ok.data),
      toExecutor(forged.data),
      toExecutor(starved.data, 30_000n),
      toExecutor(last.data),
    ]
    const named = calls.map((c, i) => ({ ...c, intentHash: [ok, forged, starved, last][i]!.intentHash }))
    const receipt = await sendBundle(calls)
    // What a record read back from the journal reads its receipt with: the calls decoded from the bundle's own bytes.
    const tx = await clients.publicClient.getTransaction({ hash: receipt.transactionHash })
    assert.deepEqual(
      bundleCallsOf(tx.input),
      named.map(({ data: _, ...c }) => c),
    )
    const bundler = devnet.contracts.bundler
    const read = named.map((_, index) => bundledReceipt(receipt, { bundler, calls: bundleCallsOf(tx.input), index }))
    assert.deepEqual(
      read.map((r) => [r.state, r.status, r.outOfGas === true, r.notExecuted === true]),
      [
        ['mined', 0x11, false, false],
        ['reverted', 0xe4, false, false],
        ['reverted', 0xf0, true, false],
        ['mined', 0x11, false, false],
      ],
      'executed, refused by the executor (its outcome), out of the gas we gave it (not its outcome), executed',
    )
    assert.ok(read.every((r) => r.transactionHash === receipt.transactionHash && r.blockHash === receipt.blockHash))
    assert.equal(
      read.reduce((sum, r) => sum + r.gasUsed, 0n),
      receipt.gasUsed,
      "the calls' gas adds up to the bundle's",
    )
    assert.equal(
      read.reduce((sum, r) => sum + r.fee!, 0n),
      receipt.gasUsed * receipt.effectiveGasPrice,
      'and their fees to what the relayer paid',
    )
    assert.ok(read[0]!.gasUsed > read[1]!.gasUsed, 'an executed call costs more than one refused at its signature')
    assert.deepEqual(
      [await nonceUsed(ok.nonce), await nonceUsed(starved.nonce), await nonceUsed(last.nonce)],
      [true, false, true],
    )

    // A bundle short of gas: the call it cannot give its limit is left unrun, not failed.
    const first = await signedIncrement()
    const unrun = await signedIncrement()
    const short = [toExecutor(first.data, 150_000n), toExecutor(unrun.data, 150_000n)]
    const shortReceipt = await sendBundle(short, { gas: 230_000n })
    const [ran, left] = [0, 1].map((index) => bundledReceipt(shortReceipt, { bundler, calls: short, index }))
    assert.deepEqual([ran!.state, ran!.status], ['mined', 0x11])
    assert.deepEqual([left!.state, left!.outOfGas, left!.gasUsed], ['reverted', true, 0n])
    assert.equal(await nonceUsed(unrun.nonce), false, 'its nonce unused: it may be sent again')
    // A receipt of another transaction is not read as the bundle's.
    assert.throws(
      () => bundledReceipt(shortReceipt, { bundler: devnet.contracts.executor, calls: short, index: 0 }),
      /did not call the bundler/,
    )
    assert.throws(() => bundledReceipt(shortReceipt, { bundler, calls: short, index: 2 }), /not one of the bundle's 2/)
  })

  it('takes no ETH and grants nothing: a stranger calling through it acts as the bundler, which holds nothing', async () => {
    const data = encodeFunctionData({ abi: intentBundlerArtifact.abi, functionName: 'run', args: [[]] })
    await assert.rejects(
      stranger().sendTransaction({
        account: stranger().account!,
        chain: stranger().chain,
        to: devnet.contracts.bundler,
        data,
        value: parseEther('1'),
      }),
    )
    assert.equal(await clients.publicClient.getBalance({ address: devnet.contracts.bundler }), 0n)
    // The demo sender's deposit, withdrawn through the bundler: it is the bundler's deposit (none) that is asked for.
    const deposit = () =>
      clients.publicClient.readContract({
        address: devnet.contracts.executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'deposits',
        args: [devnet.demo.sender],
      })
    const held = await deposit()
    assert.ok(held > 0n)
    const withdraw = encodeFunctionData({ abi: intentExecutorArtifact.abi, functionName: 'withdraw', args: [held] })
    const receipt = await sendBundle([toExecutor(withdraw)], { from: stranger() })
    const { ran } = bundlerLogs(receipt)
    assert.equal(ran[0]!.success, false)
    assert.equal(await deposit(), held)
    assert.equal(await clients.publicClient.getBalance({ address: devnet.contracts.bundler }), 0n)
    // Its gas was the stranger's own.
    assert.equal(receipt.from.toLowerCase(), privateKeyToAccount(devnetAccounts.other).address.toLowerCase())
  })
})
