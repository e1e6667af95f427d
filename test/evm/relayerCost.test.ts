// Issue 27's first attack and what bounds it: nobody can make the relayer pay for nothing. Each
// test runs against the real executor on anvil, through real HTTP, and asserts the relayer's nonce
// and balance (and the payer's, where a payment is involved).
// - The simulation runs as the chain will: a target or an ERC-1271 sender that behaves one way at
//   gas price 0 and another at the real one is refused before anything is paid or sent.
// - An intent hash has one outcome: a reverted intent is final, and a repeat replays the revert
//   (sending and charging nothing); a payment buys one attempt.
// - A target that behaves differently from block to block passes simulation and reverts on chain:
//   standing (reverts per sender, per client, per target's share), the gas a payment buys and the
//   spend budgets bound what the relayer loses, in ETH.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import solc from 'solc'
import { type Address, encodeFunctionData, getAddress, type Hex, parseEther, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import type { ExecutionGuardConfig } from '../../src/config/limitsConfig.ts'
import { limitsConfig } from '../../src/config/limitsConfig.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../../src/contracts/policyRegistryArtifact.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { writePolicy } from '../support/policies.ts'
import {
  type HttpResult,
  post,
  rpc,
  signIntent,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

const contractsSource = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
/// Burns gas and reverts only when the transaction pays for gas: passes a simulation at gas price 0.
contract GasPriceTrap {
    uint256 public sink;
    function poke() external {
        if (tx.gasprice != 0) {
            for (uint256 i = 0; i < 300; i++) sink = uint256(keccak256(abi.encode(sink, i)));
            revert("gas price trap");
        }
    }
    function burn(uint256 n) external {
        for (uint256 i = 0; i < n; i++) sink = uint256(keccak256(abi.encode(sink, i)));
    }
}
/// Behaves differently from block to block: runs until a time, then burns gas and reverts (or, with
/// heavy, needs more gas than before), as any contract whose state moves between blocks can.
contract TimeBomb {
    uint256 public sink;
    uint256 public calls;
    function poke(uint256 until) external {
        if (block.timestamp > until) revert("the time ran out");
        calls++;
    }
    function heavy(uint256 until, uint256 n) external {
        if (block.timestamp > until) for (uint256 i = 0; i < n; i++) sink = uint256(keccak256(abi.encode(sink, i)));
        calls++;
    }
}
/// An ERC-1271 sender that accepts any signature when the call pays no gas price.
contract LazySigner {
    address public immutable owner;
    constructor(address owner_) { owner = owner_; }
    function isValidSignature(bytes32, bytes calldata) external view returns (bytes4) {
        return tx.gasprice == 0 ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
    function call(address target, bytes calldata data) external payable returns (bytes memory) {
        require(msg.sender == owner, "not owner");
        (bool ok, bytes memory ret) = target.call{value: msg.value}(data);
        require(ok, "call failed");
        return ret;
    }
}`

type Compiled = Record<'GasPriceTrap' | 'TimeBomb' | 'LazySigner', { abi: readonly unknown[]; bytecode: Hex }>
function compile(): Compiled {
  const input = {
    language: 'Solidity',
    sources: { 'T.sol': { content: contractsSource } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
  const pick = (name: string) => ({
    abi: out.contracts['T.sol'][name].abi,
    bytecode: `0x${out.contracts['T.sol'][name].evm.bytecode.object}` as Hex,
  })
  return { GasPriceTrap: pick('GasPriceTrap'), TimeBomb: pick('TimeBomb'), LazySigner: pick('LazySigner') }
}

/** Only what a test sets: standing and budgets off unless asked for. */
const limits = (overrides: Partial<ExecutionGuardConfig>): ExecutionGuardConfig => ({
  ...limitsConfig({}).value,
  maxRevertsPerSender: 0,
  maxRevertsPerClient: 0,
  targetMaxRevertShare: 0,
  ...overrides,
})

describe('the relayer cannot be made to pay for nothing (issue 27, item 1)', () => {
  let world: World
  let contracts: Compiled
  let trap: Address
  let bomb: Address
  let anyCall: Hex
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const chain = { 'x-chain-id': '31337' }
  const gateways: TestGateway[] = []
  const gatewayWith = async (options: Parameters<typeof startTestGateway>[0] extends infer P ? Partial<P> : never) => {
    const g = await startTestGateway({ chains: [world.devnet.chain], ...options })
    gateways.push(g)
    return g
  }
  const publicClient = () => world.clients.publicClient
  const relayerNonce = () => publicClient().getTransactionCount({ address: relayer, blockTag: 'pending' })
  const relayerBalance = () => publicClient().getBalance({ address: relayer })
  const dollars = (who: Address) =>
    publicClient().readContract({
      address: world.devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  const latestTimestamp = async () => (await publicClient().getBlock({ blockTag: 'latest' })).timestamp
  let nonce = 1_000
  /** A signed intent of the demo sender calling `target` with `data`, under a policy that allows any call. */
  const intent = (target: Address, data: Hex, overrides: Record<string, unknown> = {}) =>
    signIntent(world.devnet, {
      sender: world.devnet.demo.sender,
      target,
      data,
      value: '0',
      nonce: String(nonce++),
      validAfter: '0',
      validBefore: '0',
      policyId: anyCall,
      ...overrides,
    })
  const poke = async (until: bigint) =>
    encodeFunctionData({ abi: contracts.TimeBomb.abi, functionName: 'poke', args: [until] } as never)
  /** What the relayer paid for these transactions (gas used × effective gas price), read from their receipts. */
  const paidFor = async (hashes: readonly string[]) => {
    let total = 0n
    for (const hash of hashes) {
      const r = await publicClient().getTransactionReceipt({ hash: hash as Hex })
      total += r.gasUsed * r.effectiveGasPrice
    }
    return total
  }

  /** An intent time a little after the pending block's: it runs in the simulation, not in a block stamped `jump` later. */
  const soon = async () => (await latestTimestamp()) + 15n
  const jump = 30n
  /**
   * Executes an intent whose target passes simulation (on the pending block) and then meets a later
   * block on chain: mining is held until the relayer's transaction is in the pool (what else comes
   * first, a payment's settlement, is mined as it comes), then the next block is stamped past the
   * intent's time.
   */
  async function executeIntoTheFuture(
    gateway: TestGateway,
    body: unknown,
    headers: Record<string, string> = {},
    send = (b: unknown) => post(gateway.baseUrl, '/intents/execute', b, { ...chain, ...headers }),
  ): Promise<HttpResult> {
    const url = world.devnet.anvil.rpcUrl
    await rpc(url, 'evm_setAutomine', [false])
    try {
      const answer = send(body)
      for (let i = 0; i < 500; i++) {
        const pending = (await rpc(url, 'txpool_content', [])).pending as Record<string, unknown>
        const senders = Object.keys(pending).map((a) => a.toLowerCase())
        if (senders.includes(relayer.toLowerCase())) break
        if (senders.length > 0) await rpc(url, 'evm_mine', [])
        await new Promise((r) => setTimeout(r, 20))
      }
      await rpc(url, 'evm_setNextBlockTimestamp', [Number((await latestTimestamp()) + jump)])
      await rpc(url, 'evm_mine', [])
      return await answer
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
    }
  }

  /** A gateway whose executions go in bundles, warmed by a wave: the simulation batcher then gathers the next wave's executes into one batch. */
  async function bundlingGateway(options: Parameters<typeof gatewayWith>[0]): Promise<TestGateway> {
    const { devnet } = world
    const gateway = await gatewayWith({ chains: [{ ...devnet.chain, bundler: devnet.contracts.bundler }], ...options })
    const warm = await Promise.all(Array.from({ length: 4 }, async () => intent(bomb, await poke(2n ** 64n))))
    for (const a of await Promise.all(warm.map((b) => post(gateway.baseUrl, '/intents/execute', b, chain))))
      assert.equal(a.status, 200, a.text)
    return gateway
  }

  /**
   * executeIntoTheFuture for a wave: every execute sent at once, mining held until the relayer's first
   * transaction is in the pool (and a little longer, for the wave's others), then a block stamped `jump` later.
   */
  async function executeWaveIntoTheFuture(gateway: TestGateway, bodies: readonly unknown[]): Promise<HttpResult[]> {
    const url = world.devnet.anvil.rpcUrl
    const sent = await relayerNonce()
    await rpc(url, 'evm_setAutomine', [false])
    try {
      const answering = Promise.all(bodies.map((b) => post(gateway.baseUrl, '/intents/execute', b, chain)))
      for (let i = 0; i < 500 && (await relayerNonce()) <= sent; i++) await new Promise((r) => setTimeout(r, 20))
      await new Promise((r) => setTimeout(r, 300)) // the wave's other transactions, if it was split
      await rpc(url, 'evm_setNextBlockTimestamp', [Number((await latestTimestamp()) + jump)])
      await rpc(url, 'evm_mine', [])
      return await answering
    } finally {
      await rpc(url, 'evm_setAutomine', [true])
    }
  }

  async function deploy(name: keyof Compiled, args: readonly unknown[] = []): Promise<Address> {
    const wallet = world.clients.walletFor(devnetAccounts.deployer)
    const hash = await wallet.deployContract({
      abi: contracts[name].abi,
      bytecode: contracts[name].bytecode,
      args,
      account: wallet.account!,
      chain: wallet.chain,
    } as never)
    return getAddress((await publicClient().waitForTransactionReceipt({ hash })).contractAddress!)
  }

  before(async () => {
    contracts = compile()
    world = await startWorld()
    trap = await deploy('GasPriceTrap')
    bomb = await deploy('TimeBomb')
    anyCall = await writePolicy(world, 'any call, relayer cost', {})
  })
  after(async () => {
    for (const g of gateways) await g.close()
    await world?.stop()
  })

  it('refuses a target that reverts only when tx.gasprice != 0 before payment: 422 (0x50), nothing settled or sent (was: paid, sent, reverted)', async () => {
    const gateway = await gatewayWith({ payments: world.devnet.payments })
    const before = { nonce: await relayerNonce(), balance: await relayerBalance(), payer: await dollars(payer) }
    const body = await intent(
      trap,
      encodeFunctionData({ abi: contracts.GasPriceTrap.abi, functionName: 'poke' } as never),
    )
    // Validate reads at gas price 0 and says yes: only execute pays gas.
    const paid = await payingClient(world.devnet).fetch(`${gateway.baseUrl}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...chain },
      body: JSON.stringify(body),
    })
    const res = { status: paid.status, body: (await paid.json()) as Record<string, unknown> }
    assert.equal(res.status, 422, JSON.stringify(res.body))
    assert.equal(res.body.erc1066Status, '0x50')
    assert.match(String(res.body.detail), /^the target call reverted with data 0x08c379a0/)
    assert.equal(paid.headers.get('payment-response'), null, 'nothing was settled')
    assert.equal(await dollars(payer), before.payer, 'the payer paid nothing')
    assert.equal(await relayerNonce(), before.nonce, 'the relayer sent nothing')
    assert.equal(await relayerBalance(), before.balance)
  })

  it('caps the gas one payment buys (X402_PRICES maxGas): an intent that needs more answers 422 (0x06) before anything is paid', async () => {
    const prices = structuredClone(world.devnet.payments.prices)
    prices[world.devnet.chain.chainId]!.execute!.maxGas = 100_000n
    const gateway = await gatewayWith({ payments: { ...world.devnet.payments, prices } })
    const payerBefore = await dollars(payer)
    const nonceBefore = await relayerNonce()
    const body = await intent(
      trap,
      encodeFunctionData({ abi: contracts.GasPriceTrap.abi, functionName: 'burn', args: [400n] } as never),
    )
    const paid = await payingClient(world.devnet).fetch(`${gateway.baseUrl}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...chain },
      body: JSON.stringify(body),
    })
    const res = (await paid.json()) as Record<string, unknown>
    assert.equal(paid.status, 422, JSON.stringify(res))
    assert.equal(res.erc1066Status, '0x06')
    assert.match(
      String(res.detail),
      /^the execution needs an estimated \d+ gas, above the 100000 gas its price covers \(maxGas in X402_PRICES\)$/,
    )
    assert.equal(await dollars(payer), payerBefore, 'nothing was paid')
    assert.equal(await relayerNonce(), nonceBefore, 'nothing was sent')
    // The same intent with an API key (not priced) is within MAX_GAS_PER_EXECUTION: it runs.
    const free = await post(world.gateway.baseUrl, '/intents/execute', body, chain)
    assert.equal(free.status, 200, free.text)
  })

  it('refuses an ERC-1271 sender that accepts any signature at gas price 0: 401 (0xE4), nothing sent (was: executed for a junk signature)', async () => {
    const owner = privateKeyToAccount(devnetAccounts.deployer).address
    const lazy = await deploy('LazySigner', [owner])
    const salt = saltOf('lazy')
    const policy = {
      owner: lazy,
      allowedTargets: [],
      allowedSelectors: [],
      maxValuePerTx: parseEther('1'),
      maxAggregateValue: parseEther('1'),
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [],
    }
    const wallet = world.clients.walletFor(devnetAccounts.deployer)
    const call = async (functionName: string, args: readonly unknown[], value = 0n) => {
      const hash = await wallet.writeContract({
        address: lazy,
        abi: contracts.LazySigner.abi,
        functionName: 'call',
        args: [
          functionName === 'createPolicy' ? world.devnet.contracts.registry : world.devnet.contracts.executor,
          encodeFunctionData({
            abi: (functionName === 'createPolicy' ? policyRegistryArtifact.abi : intentExecutorArtifact.abi) as never,
            functionName,
            args,
          } as never),
        ],
        value,
        account: wallet.account!,
        chain: wallet.chain,
      } as never)
      assert.equal((await publicClient().waitForTransactionReceipt({ hash })).status, 'success')
    }
    await call('createPolicy', [salt, policy])
    await call('deposit', [], parseEther('0.5'))
    const body = {
      sender: lazy,
      target: bomb,
      data: await poke(2n ** 64n),
      value: '0',
      nonce: '1',
      validAfter: '0',
      validBefore: '0',
      policyId: derivePolicyId(lazy, salt),
      signature: `0x${'11'.repeat(65)}`,
    }
    const before = { nonce: await relayerNonce(), balance: await relayerBalance() }
    const res = await post(world.gateway.baseUrl, '/intents/execute', body, chain)
    assert.equal(res.status, 401, res.text)
    assertCommonHeaders(res, { status: '0xE4' })
    assert.equal(await relayerNonce(), before.nonce, 'the relayer sent nothing')
    assert.equal(await relayerBalance(), before.balance)
  })

  it('makes a revert final: the paid attempt is used up, a repeat replays the decoded revert and sends and charges nothing', async () => {
    const gateway = await gatewayWith({ payments: world.devnet.payments })
    const body = await intent(bomb, await poke(await soon()))
    const payerBefore = await dollars(payer)
    const nonceBefore = await relayerNonce()
    const pay = payingClient(world.devnet).fetch
    const send = async (b: unknown) => {
      const r = await pay(`${gateway.baseUrl}/intents/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...chain },
        body: JSON.stringify(b),
      })
      const text = await r.text()
      return { status: r.status, headers: r.headers, body: JSON.parse(text), text }
    }
    const first = await executeIntoTheFuture(gateway, body, {}, send)
    assert.equal(first.status, 422, first.text)
    assertCommonHeaders(first, { status: '0x50' })
    assert.equal(first.body.state, 'reverted')
    // The real reason, read from the transaction as it ran: the executor's ExecutionFailed with the target's Error("the time ran out").
    assert.match(first.body.detail, /^the target call reverted with data 0x08c379a0/)
    assert.ok(first.body.detail.includes(Buffer.from('the time ran out').toString('hex')), first.body.detail)
    assert.ok(first.headers.get('payment-response'), 'the attempt was paid for')
    assert.equal(await dollars(payer), payerBefore - 10_000n)
    assert.equal(await relayerNonce(), nonceBefore + 1)

    // The same intent again, paying client or not: its outcome, replayed; nothing sent, nothing charged, no 402.
    for (const again of [() => post(gateway.baseUrl, '/intents/execute', body, chain), () => send(body)]) {
      const res = await again()
      assert.equal(res.status, 422, res.text)
      assertCommonHeaders(res, { status: '0x50' })
      assert.equal(res.body.replayed, true)
      assert.equal(res.body.transactionHash, first.body.transactionHash)
      assert.equal(res.headers.get('payment-response'), null)
    }
    assert.equal(await relayerNonce(), nonceBefore + 1, 'no retry was sent')
    assert.equal(await dollars(payer), payerBefore - 10_000n, 'no retry was charged')
    const state = await post(gateway.baseUrl, '/intents/execute', body, chain)
    assert.equal(state.body.replayed, true)
    const record = (await (await fetch(`${gateway.baseUrl}/intents/${first.headers.get('x-intent-hash')}`)).json()) as {
      state: string
      payments: Array<{ state: string }>
    }
    assert.equal(record.state, 'reverted')
    assert.deepEqual(
      record.payments.map((p) => p.state),
      ['consumed'],
      'a mined revert uses the payment up',
    )
  })

  it('bounds what a sender whose intents revert on chain can cost: after STANDING_MAX_REVERTS_PER_SENDER, 429 (0xF6, reverts-throttled) before anything is sent', async () => {
    const gateway = await gatewayWith({ limits: limits({ maxRevertsPerSender: 2 }), maxGasPerExecution: 300_000 })
    const before = { nonce: await relayerNonce(), balance: await relayerBalance() }
    const hashes: string[] = []
    for (let i = 0; i < 2; i++) {
      const res = await executeIntoTheFuture(gateway, await intent(bomb, await poke(await soon())))
      assert.equal(res.status, 422, res.text)
      hashes.push(res.body.transactionHash)
    }
    const refused = await post(gateway.baseUrl, '/intents/execute', await intent(bomb, await poke(await soon())), chain)
    assert.equal(refused.status, 429, refused.text)
    assertCommonHeaders(refused, { status: '0xF6' })
    assert.equal(refused.body.type, 'urn:intent-gateway:problem:reverts-throttled')
    assert.match(
      refused.body.detail,
      /^2 intents of this sender reverted on-chain after passing simulation in the last 3600 s/,
    )
    assert.ok(Number(refused.headers.get('retry-after')) > 0)
    // Even an intent that would run: the sender is throttled, not the intent.
    assert.equal(
      (await post(gateway.baseUrl, '/intents/execute', await intent(bomb, await poke(2n ** 64n)), chain)).status,
      429,
    )
    // What the relayer lost, in ETH: exactly the two reverted transactions, each within the cap.
    const lost = before.balance - (await relayerBalance())
    assert.equal(lost, await paidFor(hashes))
    const maxFee = parseGwei('100')
    assert.ok(lost <= 2n * 300_000n * maxFee, `lost ${lost} wei`)
    assert.equal(await relayerNonce(), before.nonce + 2)
    const metrics = await (await fetch(`${gateway.baseUrl}/metrics`)).text()
    assert.match(metrics, /intent_gateway_execute_refusals_total\{chain="eip155:31337",reason="sender_reverts"\} 2/)
  })

  it("bounds a sender the same way when its executions go in bundles: a call that reverts in a bundle answers 422 alone, the rest of the bundle runs, and the sender's reverts count", async () => {
    const gateway = await bundlingGateway({ limits: limits({ maxRevertsPerSender: 2 }), maxGasPerExecution: 300_000 })
    const send = (body: unknown) => post(gateway.baseUrl, '/intents/execute', body, chain)
    const before = { nonce: await relayerNonce(), balance: await relayerBalance() }
    const until = await soon()
    // Simulated on a block before `until`; mined in one stamped after it.
    const answers = await executeWaveIntoTheFuture(gateway, [
      await intent(bomb, await poke(until)),
      await intent(bomb, await poke(2n ** 64n)),
      await intent(bomb, await poke(until)),
      await intent(bomb, await poke(2n ** 64n)),
    ])
    const [bombA, goodA, bombB, goodB] = answers
    for (const bombed of [bombA!, bombB!]) {
      assert.equal(bombed.status, 422, bombed.text)
      assert.match(bombed.body.detail, /^the target call reverted with data 0x08c379a0/) // Error(string): its own call's revert
    }
    for (const good of [goodA!, goodB!]) {
      assert.equal(good.status, 200, good.text)
      assertCommonHeaders(good, { status: '0x11' })
    }
    const hashes = [...new Set(answers.map((a) => a.body.transactionHash as string))]
    assert.ok(hashes.length < answers.length, `${hashes.length} transactions for ${answers.length} executions: bundled`)
    const bundled = await publicClient().getTransactionReceipt({ hash: bombA!.body.transactionHash })
    assert.equal(bundled.to?.toLowerCase(), world.devnet.contracts.bundler.toLowerCase())
    assert.equal(bundled.status, 'success', "a member's revert does not revert its bundle")
    // Two reverts on chain: the sender is throttled before anything more is sent.
    const refused = await send(await intent(bomb, await poke(2n ** 64n)))
    assert.equal(refused.status, 429, refused.text)
    assertCommonHeaders(refused, { status: '0xF6' })
    assert.equal(refused.body.type, 'urn:intent-gateway:problem:reverts-throttled')
    // What the relayer paid: these transactions and nothing else, each reverted call within its own limit.
    assert.equal(before.balance - (await relayerBalance()), await paidFor(hashes))
    assert.equal(await relayerNonce(), before.nonce + hashes.length)
  })

  it('judges a target by the share of its attempts that revert, over a minimum count, except allowlisted ones', async () => {
    const gateway = await gatewayWith({ limits: limits({ targetMinAttempts: 2, targetMaxRevertShare: 0.5 }) })
    const allowing = await gatewayWith({
      limits: limits({ targetMinAttempts: 2, targetMaxRevertShare: 0.5, targetAllowlist: [bomb.toLowerCase()] }),
    })
    // One run, one revert: below the minimum count, the target is not judged.
    assert.equal(
      (await post(gateway.baseUrl, '/intents/execute', await intent(bomb, await poke(2n ** 64n)), chain)).status,
      200,
    )
    assert.equal((await executeIntoTheFuture(gateway, await intent(bomb, await poke(await soon())))).status, 422)
    const nonceBefore = await relayerNonce()
    const refused = await post(gateway.baseUrl, '/intents/execute', await intent(bomb, await poke(2n ** 64n)), chain)
    assert.equal(refused.status, 429, refused.text)
    assert.equal(refused.body.type, 'urn:intent-gateway:problem:reverts-throttled')
    assert.match(refused.body.detail, /^1 of the 2 executions that called this target/)
    assert.equal(await relayerNonce(), nonceBefore)
    // Other targets are not affected, nor is the same target where an operator allowlisted it.
    assert.equal(
      (
        await post(
          gateway.baseUrl,
          '/intents/execute',
          await intent(
            trap,
            encodeFunctionData({ abi: contracts.GasPriceTrap.abi, functionName: 'burn', args: [1n] } as never),
          ),
          chain,
        )
      ).status,
      200,
    )
    assert.equal(
      (await post(allowing.baseUrl, '/intents/execute', await intent(bomb, await poke(2n ** 64n)), chain)).status,
      200,
    )
  })

  it("caps the gas a client makes the relayer spend (429, gas-budget-spent) and the relayer's spend per chain (503 0x40), shown in /metrics", async () => {
    const budgeted = await gatewayWith({ limits: limits({ gasBudgetPerClient: 1 }) })
    assert.equal(
      (await post(budgeted.baseUrl, '/intents/execute', await intent(bomb, await poke(2n ** 64n)), chain)).status,
      200,
    )
    const nonceBefore = await relayerNonce()
    const spent = await post(budgeted.baseUrl, '/intents/execute', await intent(bomb, await poke(2n ** 64n)), chain)
    assert.equal(spent.status, 429, spent.text)
    assertCommonHeaders(spent, { status: '0xF6' })
    assert.equal(spent.body.type, 'urn:intent-gateway:problem:gas-budget-spent')
    assert.ok(Number(spent.headers.get('retry-after')) > 0)
    assert.equal(await relayerNonce(), nonceBefore)

    const breaker = await gatewayWith({ limits: limits({ relayerSpendBudget: 1 }) })
    assert.equal(
      (await post(breaker.baseUrl, '/intents/execute', await intent(bomb, await poke(2n ** 64n)), chain)).status,
      200,
    )
    const broken = await post(breaker.baseUrl, '/intents/execute', await intent(bomb, await poke(2n ** 64n)), chain)
    assert.equal(broken.status, 503, broken.text)
    assertCommonHeaders(broken, { status: '0x40' })
    assert.equal(broken.body.type, 'urn:intent-gateway:problem:relayer-budget-spent')
    assert.ok(Number(broken.headers.get('retry-after')) > 0)
    const metrics = await (await fetch(`${breaker.baseUrl}/metrics`)).text()
    assert.match(
      metrics,
      /intent_gateway_execute_refusals_total\{chain="eip155:31337",reason="relayer_spend_budget"\} 1/,
    )
    assert.match(metrics, /intent_gateway_relayer_spend_total\{chain="eip155:31337",out_of_gas="false"\} [1-9]/)
  })

  it('does not hold a revert at a gas limit the gateway chose against the intent: out of gas is dropped, charged to nobody, and sent again with more gas', async () => {
    const gateway = await gatewayWith({ limits: limits({ maxRevertsPerSender: 1 }) })
    const data = encodeFunctionData({
      abi: contracts.TimeBomb.abi,
      functionName: 'heavy',
      args: [await soon(), 400n],
    } as never)
    const body = await intent(bomb, data)
    const nonceBefore = await relayerNonce()
    const first = await executeIntoTheFuture(gateway, body)
    assert.equal(first.status, 502, first.text)
    assertCommonHeaders(first, { status: '0xF0' })
    assert.match(first.body.detail, /^the transaction used up the gas limit of \d+ this gateway gave it/)
    assert.equal(first.body.state, 'dropped')
    // Not the intent's outcome: no standing lost (the limit is one revert), the same intent is sent again and runs.
    const again = await post(gateway.baseUrl, '/intents/execute', body, chain)
    assert.equal(again.status, 200, again.text)
    assertCommonHeaders(again, { status: '0x11' })
    assert.equal(again.body.replayed, undefined)
    assert.equal(await relayerNonce(), nonceBefore + 2)
    const metrics = await (await fetch(`${gateway.baseUrl}/metrics`)).text()
    assert.match(metrics, /intent_gateway_relayer_spend_total\{chain="eip155:31337",out_of_gas="true"\} [1-9]/)
  })

  it("does not hold a bundled call out of the gas the gateway gave it against its intent either: it alone is dropped, the bundle's others run, and it is sent again", async () => {
    const gateway = await bundlingGateway({ limits: limits({ maxRevertsPerSender: 1 }) })
    const heavyUntil = (until: bigint) =>
      intent(
        bomb,
        encodeFunctionData({ abi: contracts.TimeBomb.abi, functionName: 'heavy', args: [until, 400n] } as never),
      )
    const heavy = await heavyUntil(await soon())
    // Calls of the same shape, which never turn heavy: run with it in one bundle.
    const others = await Promise.all(Array.from({ length: 3 }, () => heavyUntil(2n ** 64n)))
    const [first, ...rest] = await executeWaveIntoTheFuture(gateway, [heavy, ...others])
    assert.equal(first!.status, 502, first!.text)
    assertCommonHeaders(first!, { status: '0xF0' })
    assert.match(first!.body.detail, /^the call used up the gas limit of \d+ this gateway gave it in the bundle/)
    assert.equal(first!.body.state, 'dropped')
    for (const other of rest) assert.equal(other.status, 200, other.text)
    assert.ok(
      rest.some((other) => other.body.transactionHash === first!.body.transactionHash),
      'it ran out of gas inside a bundle with others',
    )
    // Not the intent's outcome: no standing lost (the limit is one revert); sent again, it runs.
    const again = await post(gateway.baseUrl, '/intents/execute', heavy, chain)
    assert.equal(again.status, 200, again.text)
    assertCommonHeaders(again, { status: '0x11' })
    assert.notEqual(again.body.transactionHash, first!.body.transactionHash)
  })
})
