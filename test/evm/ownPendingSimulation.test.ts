// Issue 44 item 2: an execute is simulated on the latest block after the gateway's own
// transactions still in the node's pool, replayed from their signed bytes in the same
// eth_simulateV1, instead of at the node's pending block; when this instance may not hold the
// bytes of every one (here: a second adapter over the same relayer key, as after a restart), the
// pending block as before. Real anvil with the reference contracts, automine off so that what the
// relayer sent waits in the pool; a recording proxy in front of anvil tells which way each
// simulation went.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import solc from 'solc'
import { type Address, encodeFunctionData, type Hex, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { createEvmAdapter } from '../../src/chains/evm/createEvmAdapter.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { resolveChains } from '../../src/chains/evm/discovery/resolveChains.ts'
import { toIntentTuple } from '../../src/chains/evm/evmRuntime.ts'
import { intentTypedData } from '../../src/chains/evm/intentTypedData.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../../src/contracts/policyRegistryArtifact.ts'
import { ExecutionRefusedError } from '../../src/errors/executionRefusedError.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { ChainAdapter, Submission } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'

const source = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
/// A counter an intent bumps and another expects at a value; a sink that takes ETH.
contract Gate {
    uint256 public n;
    function bump() external { n++; }
    function expect(uint256 k) external view { require(n == k, "not yet"); }
    function sink() external payable {}
}`

function compileGate(): { abi: readonly unknown[]; bytecode: Hex } {
  const input = {
    language: 'Solidity',
    sources: { 'G.sol': { content: source } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
  return { abi: out.contracts['G.sol'].Gate.abi, bytecode: `0x${out.contracts['G.sol'].Gate.evm.bytecode.object}` }
}

type Recorded = { method: string; params: unknown[] }

type Held = { arrived: Promise<void>; release(): void }

/** A JSON-RPC proxy in front of anvil that writes down every call (batches included); `hold` keeps the next request with a method until released. */
async function startRecordingProxy(
  target: string,
): Promise<{ url: string; calls: Recorded[]; hold(method: string): Held; close(): Promise<void> }> {
  const calls: Recorded[] = []
  let held: { method: string; arrive(): void; released: Promise<void> } | undefined
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString()
      try {
        const parsed = JSON.parse(body) as Recorded | Recorded[]
        const requests = Array.isArray(parsed) ? parsed : [parsed]
        for (const r of requests) calls.push({ method: r.method, params: r.params ?? [] })
        const hold = held
        if (hold && requests.some((r) => r.method === hold.method)) {
          held = undefined
          hold.arrive()
          await hold.released
        }
      } catch {}
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end(await answer.text())
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    hold(method) {
      let arrive!: () => void
      let release!: () => void
      const arrived = new Promise<void>((r) => {
        arrive = r
      })
      const released = new Promise<void>((r) => {
        release = r
      })
      held = { method, arrive, released }
      return { arrived, release }
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}

/** The block each eth_simulateV1 recorded since `from` ran on: 'pending', or the latest block's number. */
const simulatedAt = (calls: Recorded[], from = 0) =>
  calls.slice(from).flatMap((c) => (c.method === 'eth_simulateV1' ? [c.params[1] as string] : []))
const simulatedCalls = (calls: Recorded[], from = 0) =>
  calls
    .slice(from)
    .flatMap((c) =>
      c.method === 'eth_simulateV1'
        ? [
            (c.params[0] as { blockStateCalls: { calls: { from: string; to: string; nonce?: string }[] }[] })
              .blockStateCalls[0]!.calls,
          ]
        : [],
    )

describe('execute simulated on latest after the gateway’s own unmined transactions (issue 44 item 2)', () => {
  let devnet: Devnet
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>
  let gate: Address
  let gateAbi: readonly unknown[]
  let policyId: Hex
  let adapter: ChainAdapter
  let clients: ReturnType<typeof createDevClients>
  const adapters: ChainAdapter[] = []
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  const sender = privateKeyToAccount(devnetAccounts.sender).address
  let nonce = 44_000n
  /** What the adapters' metrics were told of executions simulated again before their signature. */
  const resimulated: string[] = []

  const rpc = (method: string, params: unknown[] = []) => clients.publicClient.request({ method, params } as never)
  const makeAdapter = async () => {
    const [resolved] = await resolveChains({
      chains: [{ ...devnet.chain, rpcUrls: [proxy.url] }],
      chainList: undefined,
      production: false,
      logger: createLogger({ level: 'silent' }),
    })
    const a = createEvmAdapter({
      chain: resolved!,
      relayerPrivateKey: undefined,
      relayerPrivateKeys: [devnetAccounts.relayer],
      rpcTimeoutMs: 5_000,
      pollingIntervalMs: 20,
      logger: createLogger({ level: 'silent' }),
      rpcRecorder: { observeRpc: () => {}, observeResimulation: ({ outcome }) => void resimulated.push(outcome) },
    })
    adapters.push(a)
    return a
  }
  const intentTo = (data: Hex, value = 0n): Intent => ({
    sender,
    target: gate,
    data,
    value,
    nonce: nonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId,
  })
  const sign = (intent: Intent) =>
    privateKeyToAccount(devnetAccounts.sender).signTypedData(
      intentTypedData({ chainId: devnet.anvil.chainId, executor: devnet.contracts.executor, intent }),
    )
  const call = (functionName: 'bump' | 'expect' | 'sink', args: readonly unknown[] = []) =>
    encodeFunctionData({ abi: gateAbi as never, functionName, args } as never)
  /** Prepared and sent by `a`: its transaction waits in anvil's pool (automine is off). */
  const sendPending = async (a: ChainAdapter, intent: Intent): Promise<Submission> => {
    const prepared = await a.prepareExecution(intent, await sign(intent))
    assert.equal(
      prepared.ok,
      true,
      `the first intent passes: ${JSON.stringify(prepared, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
    )
    if (!prepared.ok) throw new Error('unreachable')
    const sent = await prepared.send({ onSigned: () => {} })
    assert.equal(sent.accepted, true)
    const pool = (await rpc('txpool_content')) as { pending: Record<string, Record<string, unknown>> }
    assert.ok(
      Object.keys(pool.pending).some((a) => a.toLowerCase() === relayer.toLowerCase()),
      'the relayer’s transaction waits in the pool',
    )
    return sent
  }
  /** executeSigned of `intent` as an eth_call on the latest block: what a simulation that left out the pool would see. */
  const atLatestAlone = async (intent: Intent) => {
    try {
      await clients.publicClient.call({
        account: relayer,
        to: devnet.contracts.executor,
        data: encodeFunctionData({
          abi: intentExecutorArtifact.abi,
          functionName: 'executeSigned',
          args: [toIntentTuple(intent), await sign(intent)] as never,
        }),
        blockTag: 'latest',
        gas: 1_000_000n,
      })
      return 'passes'
    } catch {
      return 'reverts'
    }
  }
  const mine = async (sent: Submission) => {
    await rpc('evm_mine')
    await sent.receipt
  }
  const counter = async () =>
    (await clients.publicClient.readContract({ address: gate, abi: gateAbi as never, functionName: 'n' })) as bigint
  const relayerNonce = () => clients.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' })
  const prepareOk = async (a: ChainAdapter, intent: Intent, why: string) => {
    const prepared = await a.prepareExecution(intent, await sign(intent))
    assert.equal(
      prepared.ok,
      true,
      `${why}: ${JSON.stringify(prepared, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
    )
    if (!prepared.ok) throw new Error('unreachable')
    return prepared
  }
  /**
   * One simulation (expect n) held at the node while a bump and then an expect of n + 1 are asked:
   * those two go together in the next batch, the bump first, so the expect passes only after it.
   */
  const bumpThenExpectInOneBatch = async (n: bigint) => {
    const held = proxy.hold('eth_simulateV1')
    const first = prepareOk(adapter, intentTo(call('expect', [n])), 'the held one')
    await held.arrived
    const bumping = prepareOk(adapter, intentTo(call('bump')), 'the bump passes')
    await new Promise((r) => setTimeout(r, 150))
    const after = prepareOk(adapter, intentTo(call('expect', [n + 1n])), 'simulated in one batch after the bump')
    await new Promise((r) => setTimeout(r, 150))
    held.release()
    return Promise.all([first, bumping, after])
  }
  /** What a send refused before its signature throws: the refusal's status, not a success. */
  const refusedBeforeSigning = (err: unknown) => {
    assert.ok(err instanceof ExecutionRefusedError, `refused when simulated again, not ${String(err)}`)
    assert.notEqual(err.status, 0x01)
    return true
  }

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const artifact = compileGate()
    gateAbi = artifact.abi
    const deployer = clients.walletFor(devnetAccounts.deployer)
    const deployed = await clients.publicClient.waitForTransactionReceipt({
      hash: await deployer.deployContract({
        abi: artifact.abi,
        bytecode: artifact.bytecode,
        account: deployer.account!,
        chain: deployer.chain,
      } as never),
    })
    gate = deployed.contractAddress!
    const owner = clients.walletFor(devnetAccounts.sender)
    const policy = {
      owner: sender,
      allowedTargets: [gate],
      allowedSelectors: [],
      maxValuePerTx: parseEther('100'),
      maxAggregateValue: parseEther('1000'),
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [BigInt(devnet.anvil.chainId)],
    }
    const created = await owner.writeContract({
      address: devnet.contracts.registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'createPolicy',
      args: [saltOf('own pending replay'), policy],
      account: owner.account!,
      chain: owner.chain,
    })
    assert.equal((await clients.publicClient.waitForTransactionReceipt({ hash: created })).status, 'success')
    policyId = derivePolicyId(sender, saltOf('own pending replay'))
    proxy = await startRecordingProxy(devnet.anvil.rpcUrl)
    adapter = await makeAdapter()
    await rpc('evm_setAutomine', [false])
  })

  after(async () => {
    for (const a of adapters) await a.close()
    await proxy?.close()
    await devnet?.stop()
  })

  it('(a) an intent that succeeds only after the relayer’s transaction still in the pool simulates as success, on latest with that transaction replayed first', async () => {
    const first = await sendPending(adapter, intentTo(call('bump')))
    const mark = proxy.calls.length
    const second = intentTo(call('expect', [1n]))
    // Without the pool's transaction the chain's latest state refuses it.
    assert.equal(await atLatestAlone(second), 'reverts')
    const prepared = await adapter.prepareExecution(second, await sign(second))
    assert.equal(prepared.ok, true, `simulated after the bump: ${JSON.stringify(prepared)}`)
    if (prepared.ok) prepared.cancel?.()
    // On latest (a block number, never 'pending'), the relayer's transaction first, then the intent.
    const at = simulatedAt(proxy.calls, mark)
    assert.ok(at.length > 0)
    for (const tag of at) assert.match(tag, /^0x[0-9a-f]+$/)
    const [calls] = simulatedCalls(proxy.calls, mark)
    assert.equal(calls!.length, 2)
    assert.equal(calls![0]!.from.toLowerCase(), relayer.toLowerCase())
    assert.equal(calls![0]!.nonce, '0x0')
    assert.equal(calls![1]!.from.toLowerCase(), relayer.toLowerCase())
    await mine(first)
  })

  it('(b) an intent that would revert after the relayer’s earlier transaction in the pool (the sender’s deposit drained by it) is refused by simulation and not sent', async () => {
    const deposit = (await clients.publicClient.readContract({
      address: devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'deposits',
      args: [sender],
    })) as bigint
    assert.ok(deposit > parseEther('1'))
    const drain = await sendPending(adapter, intentTo(call('sink'), deposit))
    const nonceBefore = await clients.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' })
    const mark = proxy.calls.length
    const spend = intentTo(call('sink'), parseEther('1'))
    // At latest alone it would pass: the deposit is still there until the pool's transaction is mined.
    assert.equal(await atLatestAlone(spend), 'passes')
    const prepared = await adapter.prepareExecution(spend, await sign(spend))
    assert.equal(prepared.ok, false, 'refused: the deposit is gone once the earlier intent runs')
    if (!prepared.ok) assert.notEqual(prepared.status, 0x01)
    for (const tag of simulatedAt(proxy.calls, mark)) assert.notEqual(tag, 'pending')
    assert.ok(simulatedAt(proxy.calls, mark).length > 0)
    // Nothing sent: the relayer's pending nonce is where it was.
    assert.equal(await clients.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' }), nonceBefore)
    await mine(drain)
    // Give the sender its deposit back for the next test.
    const owner = clients.walletFor(devnetAccounts.sender)
    const refill = await owner.writeContract({
      address: devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'deposit',
      value: parseEther('10'),
      account: owner.account!,
      chain: owner.chain,
    })
    await rpc('evm_mine')
    await clients.publicClient.waitForTransactionReceipt({ hash: refill })
  })

  it('(c) while this instance lacks the bytes of a relayer transaction in the pool (another adapter, as after a restart, sent it), it simulates at the pending block; once mined, on latest again', async () => {
    const first = await sendPending(adapter, intentTo(call('bump')))
    const restarted = await makeAdapter()
    const mark = proxy.calls.length
    const second = intentTo(call('expect', [2n]))
    assert.equal(await atLatestAlone(second), 'reverts')
    // Its first look at the key's counts starts with its first simulation; the second comes after it, and after the next look is due.
    for (const wait of [0, 1_200]) {
      await new Promise((r) => setTimeout(r, wait))
      const prepared = await restarted.prepareExecution(second, await sign(second))
      assert.equal(prepared.ok, true, `the pending block holds the bump: ${JSON.stringify(prepared)}`)
      if (prepared.ok) prepared.cancel?.()
    }
    assert.deepEqual([...new Set(simulatedAt(proxy.calls, mark))], ['pending'])
    // The counts were read: the node's pool holds a transaction of the key this instance has no bytes of.
    assert.ok(proxy.calls.slice(mark).some((c) => c.method === 'eth_getTransactionCount' && c.params[1] === 'latest'))
    await mine(first)
    // Mined: the key's pool holds nothing this instance lacks; its next look (at most a second after the last) finds so.
    await new Promise((r) => setTimeout(r, 1_100))
    const third = intentTo(call('expect', [2n]))
    const warm = await restarted.prepareExecution(third, await sign(third))
    if (warm.ok) warm.cancel?.()
    await new Promise((r) => setTimeout(r, 200))
    const mark2 = proxy.calls.length
    const fourth = intentTo(call('expect', [2n]))
    const again = await restarted.prepareExecution(fourth, await sign(fourth))
    assert.equal(again.ok, true)
    if (again.ok) again.cancel?.()
    const at = simulatedAt(proxy.calls, mark2)
    assert.ok(at.length > 0)
    for (const tag of at) assert.match(tag, /^0x[0-9a-f]+$/)
  })

  it('(d) an execution simulated while another was handed over but not signed, which that one then changes, is simulated again before its signature: refused, nothing sent (it would have reverted at the relayer’s cost)', async () => {
    const n = await counter()
    const bump = await prepareOk(adapter, intentTo(call('bump')), 'the bump passes')
    // Simulated after what is signed: the bump is not yet, so the counter still stands at n.
    const expectN = await prepareOk(adapter, intentTo(call('expect', [n])), 'at n before the bump is signed')
    const sent = await bump.send({ onSigned: () => {} })
    const nonce = await relayerNonce()
    resimulated.length = 0
    await assert.rejects(expectN.send({ onSigned: () => {} }), refusedBeforeSigning)
    assert.equal(await relayerNonce(), nonce, 'nothing signed or sent for it')
    assert.deepEqual(resimulated, ['refused'], 'counted for the metrics')
    await mine(sent)
    assert.equal(await counter(), n + 1n)
  })

  it('(e) an execution simulated after a batch-mate that is then not sent (its settlement failed, a cancel) is simulated again before its signature: refused where it needed that one, nothing sent', async () => {
    // The shapes' gas is known (each simulated once at its remembered limit).
    await mine(await (await prepareOk(adapter, intentTo(call('bump')), 'warm-up')).send({ onSigned: () => {} }))
    const n = await counter()
    ;(await prepareOk(adapter, intentTo(call('expect', [n])), 'warm-up')).cancel?.()
    const [one, bump, expectAfter] = await bumpThenExpectInOneBatch(n)
    one.cancel?.()
    const nonce = await relayerNonce()
    // The bump is not sent: what was simulated after it no longer holds.
    bump.cancel?.()
    await assert.rejects(expectAfter.send({ onSigned: () => {} }), refusedBeforeSigning)
    assert.equal(await relayerNonce(), nonce, 'nothing signed or sent for it')
    assert.equal(await counter(), n)
  })

  it('(f) batch-mates sent in their order are sent on their one simulation; one simulated before an execution signed since is simulated again and sent when it still passes', async () => {
    const n = await counter()
    const [one, bump, expectAfter] = await bumpThenExpectInOneBatch(n)
    const mark = proxy.calls.length
    const sentBump = await bump.send({ onSigned: () => {} })
    const sentAfter = await expectAfter.send({ onSigned: () => {} })
    assert.equal(simulatedAt(proxy.calls, mark).length, 0, 'no simulation again: sent in the order simulated')
    // The held one was simulated before both were signed: simulated again, it now reverts (the counter moved).
    await assert.rejects(one.send({ onSigned: () => {} }), refusedBeforeSigning)
    assert.ok(simulatedAt(proxy.calls, mark).length > 0)
    await rpc('evm_mine')
    assert.equal((await sentBump.receipt).state, 'mined')
    assert.equal((await sentAfter.receipt).state, 'mined')
    // One simulated before the bump was signed, that passes after it too: simulated again and sent.
    const independent = await prepareOk(adapter, intentTo(call('sink')), 'a sink passes')
    const bumpAgain = await prepareOk(adapter, intentTo(call('bump')), 'the bump passes')
    const sentAgain = await bumpAgain.send({ onSigned: () => {} })
    const mark2 = proxy.calls.length
    resimulated.length = 0
    const sentIndependent = await independent.send({ onSigned: () => {} })
    assert.deepEqual(resimulated, ['passed'], 'counted for the metrics')
    assert.ok(simulatedAt(proxy.calls, mark2).length > 0, 'simulated again after the bump signed since')
    await rpc('evm_mine')
    assert.equal((await sentAgain.receipt).state, 'mined')
    assert.equal((await sentIndependent.receipt).state, 'mined')
  })
})
