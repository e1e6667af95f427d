// A batch simulated as the bundles it will be sent as (simulatedBundles.ts, through the simulation
// batcher), on anvil: each key's calls to the executor become one IntentBundler run in the
// simulated block, each call's result is read from its run's logs (its success or revert data, its
// gas as a transaction of its own), and each call's turn names its run, which the relayer sends it
// in (sendBundled's chunk). Other calls stay transactions of their own.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeFunctionData, encodeFunctionData, type Hex, numberToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createExecutionOrder } from '../../src/chains/evm/adapter/executionOrder.ts'
import { createSimulationBatcher, type SimulatedCall } from '../../src/chains/evm/adapter/simulationBatcher.ts'
import { decodeRevertData } from '../../src/chains/evm/decodeExecutorRevert.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { evmRuntime, toIntentTuple } from '../../src/chains/evm/evmRuntime.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { intentBundlerArtifact } from '../../src/contracts/intentBundlerArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import { Status } from '../../src/status/statusCodes.ts'
import { demoIntent, signIntent } from '../support/testGateway.ts'

describe('a batch simulated as the bundles it will be sent as', () => {
  let devnet: Devnet
  let clients: ReturnType<typeof createDevClients>
  let nonce = 6_000_000n
  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  })
  after(async () => {
    await devnet?.stop()
  })

  async function executeSigned(signer: Hex = devnetAccounts.sender): Promise<Hex> {
    const body = await signIntent(devnet, demoIntent(devnet, { nonce: String(nonce++) }), signer)
    const intent = parseIntent(body as never, evmRuntime)
    return encodeFunctionData({
      abi: intentExecutorArtifact.abi,
      functionName: 'executeSigned',
      args: [toIntentTuple(intent), body.signature as Hex],
    })
  }

  it("runs each key's calls to the executor as one run, reads each call's result from its logs, and names the run in its turn", async () => {
    const fees = await clients.publicClient.estimateFeesPerGas()
    const relayer = privateKeyToAccount(devnetAccounts.relayer).address
    const other = privateKeyToAccount(devnetAccounts.other).address
    const call = (from: Hex, to: Hex, data: Hex): SimulatedCall => ({
      from,
      to,
      data,
      gas: numberToHex(300_000n),
      maxFeePerGas: numberToHex(fees.maxFeePerGas),
      maxPriorityFeePerGas: numberToHex(fees.maxPriorityFeePerGas),
    })
    const executor = devnet.contracts.executor
    const increment = encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] })
    const calls = [
      call(relayer, executor, await executeSigned()),
      call(other, executor, await executeSigned()),
      call(relayer, executor, await executeSigned(devnetAccounts.other)), // forged: the executor refuses it
      call(relayer, devnet.demo.counter, increment), // not an execution through the executor: a transaction of its own
      call(relayer, executor, await executeSigned()),
    ]
    const asked: { calls: { from: string; to: string; data: Hex }[] }[] = []
    const request = async (args: { method: string; params: unknown[] }) => {
      if (args.method === 'eth_simulateV1')
        asked.push(...(args.params[0] as { blockStateCalls: never[] }).blockStateCalls)
      return clients.publicClient.request(args as never)
    }
    const bundled = createSimulationBatcher(request, {
      order: createExecutionOrder(),
      bundle: { bundler: devnet.contracts.bundler, executor },
    })
    const results = await Promise.all(calls.map((c) => bundled.simulate(c)))

    // The simulated block: each key's calls one after another (their turns in that order), the
    // relayer's calls to the executor as runs that a call of another kind ends; a run of one call (the
    // relayer's last, the other key's) a transaction of its own: a bundle of one only costs more gas.
    const block = asked.at(-1)!.calls
    const runOf = (data: Hex) => {
      const { args } = decodeFunctionData({ abi: intentBundlerArtifact.abi, data })
      return (args as readonly [readonly { data: Hex }[]])[0].map((c) => c.data)
    }
    assert.deepEqual(
      block.map((c) => [c.from.toLowerCase(), c.to.toLowerCase()]),
      [
        [relayer.toLowerCase(), devnet.contracts.bundler.toLowerCase()],
        [relayer.toLowerCase(), devnet.demo.counter.toLowerCase()],
        [relayer.toLowerCase(), executor.toLowerCase()],
        [other.toLowerCase(), executor.toLowerCase()],
      ],
    )
    assert.deepEqual(runOf(block[0]!.data), [calls[0]!.data, calls[2]!.data])
    assert.deepEqual([block[2]!.data, block[3]!.data], [calls[4]!.data, calls[1]!.data])

    assert.deepEqual(
      results.map((r) => r.result?.status),
      ['0x1', '0x1', '0x0', '0x1', '0x1'],
    )
    assert.equal(decodeRevertData(results[2]!.result!.returnData!)?.status, Status.UNAUTHORIZED)
    const [first, second, forged, lone, last] = results.map((r) => r.turn.chunk)
    assert.ok(first && first === forged, "the relayer's first run, named in each of its calls' turns")
    assert.equal(first.size, 2)
    assert.deepEqual([second, lone, last], [undefined, undefined, undefined], 'transactions of their own')

    // A call's gas as a transaction of its own: at least what it uses simulated alone.
    const alone = createSimulationBatcher(request, { order: createExecutionOrder() })
    const single = await alone.simulate(call(relayer, executor, await executeSigned()))
    assert.equal(single.turn.chunk, undefined)
    const used = (r: { result?: { gasUsed?: Hex } | undefined }) => BigInt(r.result!.gasUsed!)
    assert.ok(used(results[0]!) >= used(single), `${used(results[0]!)} >= ${used(single)}`)
    assert.ok(used(results[0]!) < (used(single) * 13n) / 10n, 'and not far over it')
  })
})
