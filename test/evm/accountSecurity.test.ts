// Account mode's attacks through the gateway, against anvil (Prague), each asserting the relayer's
// and the agents' balances: cross-chain and cross-account replay of a batch or an authorization; a
// stranger sending the agent's authorization first (harmless: the gateway's execute still runs);
// re-delegation between simulation and mining (a mined revert on the sender's standing); a session
// key exceeding its policy through a batch; reentrancy from a target into the account; a target
// pulling more of the agent's tokens than the intent approved. Contract-level cases (storage left
// by another delegate, self-calls at the ledger) are in intentAccount.test.ts; the gateway's
// authorization checks, a skipped authorization and accounts delegated elsewhere in accountMode.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Address, concatHex, encodeFunctionData, type Hex, parseEther, parseUnits, toFunctionSelector } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { executeBatchCalldata } from '../../src/chains/evm/adapter/executorCalls.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { limitsConfig } from '../../src/config/limitsConfig.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { policyRegistryArtifact } from '../../src/contracts/policyRegistryArtifact.ts'
import { accountIntents, type TestBatch, type TestCall } from '../support/accountIntents.ts'
import { post, rpc, startTestGateway, type World } from '../support/testGateway.ts'

/**
 * A contract that calls `to` with its own calldata and returns (or reverts with) what it got: the
 * attacker of the reentrancy and token cases, placed with anvil_setCode.
 */
const forwarderCode = (to: Address): Hex =>
  // calldatacopy(0, 0, calldatasize); call(gas, to, 0, 0, calldatasize, 0, 0); returndatacopy(0, 0, returndatasize); success ? return : revert
  `0x36600060003760006000366000600073${to.slice(2).toLowerCase()}5af13d600060003e6033573d6000fd5b3d6000f3`

describe('account mode attacks through the gateway: the relayer’s gas and the agents’ funds', () => {
  let world: World
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  const agent = privateKeyToAccount(devnetAccounts.agent)
  const sessionKey = privateKeyToAccount(devnetAccounts.sessionKey)
  const stranger = privateKeyToAccount(devnetAccounts.other)
  const recipient = privateKeyToAccount(devnetAccounts.treasury).address
  const t = accountIntents(() => world, relayer)
  let nonce = 9_000n

  const pc = () => world.clients.publicClient
  const contracts = () => world.devnet.contracts
  const execute = (body: unknown) => post(world.gateway.baseUrl, '/intents/execute', body, t.headers())
  const fields = (res: { body: { errors?: { field: string }[] } }) => (res.body.errors ?? []).map((e) => e.field)
  const call = (target: Address, data: Hex, value = 0n): TestCall => ({ target, data, value })
  const increment = (value = 0n) =>
    call(
      contracts().counter,
      encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
      value,
    )
  const transfer = (to: Address, amount: bigint) =>
    call(
      contracts().dollar,
      encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'transfer', args: [to, amount] }),
    )
  const batchOf = (sender: Address, calls: TestCall[], policyId: Hex): TestBatch => ({
    sender,
    calls,
    nonce: nonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId,
  })
  const send = async (hash: Promise<Hex>) => {
    const receipt = await pc().waitForTransactionReceipt({ hash: await hash })
    assert.equal(receipt.status, 'success')
  }
  const gasOf = async (hash: Hex) => {
    const r = await pc().getTransactionReceipt({ hash })
    return r.gasUsed * r.effectiveGasPrice
  }

  /** A new EOA with 1 ETH, `dollars` DemoDollar and a policy of its own for the counter and DemoDollar's transfer. */
  async function freshAgent(dollars = 0n): Promise<{ account: PrivateKeyAccount; policyId: Hex }> {
    const key = generatePrivateKey()
    const account = privateKeyToAccount(key)
    const deployer = world.clients.walletFor(devnetAccounts.deployer)
    await send(
      deployer.sendTransaction({
        to: account.address,
        value: parseEther('1'),
        account: deployer.account!,
        chain: deployer.chain,
      }),
    )
    if (dollars > 0n) {
      await send(
        deployer.writeContract({
          address: contracts().dollar,
          abi: demoDollarArtifact.abi,
          functionName: 'mint',
          args: [account.address, dollars],
          account: deployer.account!,
          chain: deployer.chain,
        }),
      )
    }
    const policyId = await createPolicy(
      key,
      [contracts().counter, contracts().dollar],
      ['increment(uint256)', 'transfer(address,uint256)'],
      'fresh',
    )
    return { account, policyId }
  }

  async function createPolicy(key: Hex, targets: Address[], selectors: string[], name: string): Promise<Hex> {
    const wallet = world.clients.walletFor(key)
    const owner = wallet.account!.address
    const salt = saltOf(`test.account-security.${name}.${owner}`)
    const policy = {
      owner,
      allowedTargets: targets,
      allowedSelectors: selectors.map((s) => toFunctionSelector(s)),
      maxValuePerTx: parseEther('1'),
      maxAggregateValue: parseEther('10'),
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [BigInt(world.devnet.anvil.chainId)],
    }
    await send(
      wallet.writeContract({
        address: contracts().registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'createPolicy',
        args: [salt, policy],
        account: wallet.account!,
        chain: wallet.chain,
      } as never),
    )
    return derivePolicyId(owner, salt)
  }

  /** Delegates `who` through the gateway: its first execute, an increment with its authorization. */
  async function delegateThroughGateway(who: PrivateKeyAccount, policyId: Hex) {
    const batch = batchOf(who.address, [increment()], policyId)
    const res = await execute(
      t.batchBody(batch, await t.signBatch(batch, who), { authorization: await t.authorize(who) }),
    )
    assert.equal(res.status, 200, res.text)
    assert.equal(await t.codeOf(who.address), concatHex(['0xef0100', contracts().accountDelegate]).toLowerCase())
  }

  before(async () => {
    const devnet = await startDevnet()
    // One mined revert of a sender's intents and its next execute is refused (standing).
    const gateway = await startTestGateway({
      chains: [devnet.chain],
      receiptTimeoutMs: 15_000,
      limits: { ...limitsConfig({}).value, maxRevertsPerSender: 1, maxRevertsPerClient: 0, targetMaxRevertShare: 0 },
    })
    world = {
      devnet,
      gateway,
      clients: createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId),
      async stop() {
        await gateway.close()
        await devnet.stop()
      },
    }
    await delegateThroughGateway(agent, world.devnet.demo.account.policies.own)
  })
  after(async () => {
    await world?.stop()
  })

  it('cross-chain and cross-account replay: a batch signed for another chain or another account, an authorization of another account, a mined batch sent again by a stranger: refused, nothing moved', async () => {
    const own = world.devnet.demo.account.policies.own
    const other = await freshAgent(parseUnits('100', 6))
    await delegateThroughGateway(other.account, other.policyId)
    const watched = [agent.address, other.account.address]

    // Signed for chain id + 1: the account's domain binds the chain.
    const elsewhere = batchOf(agent.address, [transfer(recipient, 1n)], own)
    const crossChain = await t.untouched(watched, async () =>
      execute(t.batchBody(elsewhere, await t.signBatch(elsewhere, agent, world.devnet.anvil.chainId + 1))),
    )
    assert.equal(crossChain.status, 401, crossChain.text)

    // The agent's signature on the same calls for another account: that account's domain and key.
    const mine = batchOf(agent.address, [transfer(recipient, 1n)], own)
    const signature = await t.signBatch(mine, agent)
    const crossAccount = await t.untouched(watched, () =>
      execute(t.batchBody({ ...mine, sender: other.account.address, policyId: other.policyId }, signature)),
    )
    assert.equal(crossAccount.status, 401, crossAccount.text)

    // The agent's authorization in an undelegated third account's first execute.
    const third = await freshAgent()
    const thirdBatch = batchOf(third.account.address, [increment()], third.policyId)
    const foreign = await t.untouched([...watched, third.account.address], async () =>
      execute(
        t.batchBody(thirdBatch, await t.signBatch(thirdBatch, third.account), {
          authorization: await t.authorize(agent),
        }),
      ),
    )
    assert.equal(foreign.status, 403, foreign.text)
    assert.ok(fields(foreign).includes('authorization.r'), foreign.text)
    assert.equal(await t.codeOf(third.account.address), '0x')

    // A batch the gateway ran, sent again straight to the account by a stranger: its nonce is used.
    const ran = batchOf(agent.address, [transfer(recipient, parseUnits('1', 6))], own)
    const ranSignature = await t.signBatch(ran, agent)
    const res = await execute(t.batchBody(ran, ranSignature))
    assert.equal(res.status, 200, res.text)
    const agentDollars = await t.dollarsOf(agent.address)
    const agentEth = await t.ethOf(agent.address)
    const wallet = world.clients.walletFor(devnetAccounts.other)
    const again = await wallet
      .sendTransaction({
        to: agent.address,
        data: executeBatchCalldata(
          { ...ran, target: ran.calls[0]!.target, data: '0x', value: 0n, calls: ran.calls },
          ranSignature,
        ),
        gas: 300_000n,
        account: wallet.account!,
        chain: wallet.chain,
      })
      .then((hash) => pc().waitForTransactionReceipt({ hash }))
    assert.equal(again.status, 'reverted', 'the ledger refuses a used nonce')
    assert.equal(await t.dollarsOf(agent.address), agentDollars)
    assert.equal(await t.ethOf(agent.address), agentEth)
  })

  it("a stranger sending the agent's authorization first is harmless: it pays for that transaction, and the gateway's execute still runs (already delegated, no authorization carried)", async () => {
    const fresh = await freshAgent(parseUnits('100', 6))
    const batch = batchOf(fresh.account.address, [transfer(recipient, parseUnits('5', 6))], fresh.policyId)
    const authorization = await t.authorize(fresh.account)
    const body = t.batchBody(batch, await t.signBatch(batch, fresh.account), { authorization })

    const wallet = world.clients.walletFor(devnetAccounts.other)
    const strangerEth = await t.ethOf(stranger.address)
    const hash = await wallet.sendTransaction({
      to: stranger.address,
      authorizationList: [authorization],
      account: wallet.account!,
      chain: wallet.chain,
    } as never)
    const strangerTx = await pc().waitForTransactionReceipt({ hash })
    assert.equal(strangerTx.type, 'eip7702')
    assert.equal(
      await t.ethOf(stranger.address),
      strangerEth - strangerTx.gasUsed * strangerTx.effectiveGasPrice,
      'the stranger paid for it',
    )
    assert.equal(
      await t.codeOf(fresh.account.address),
      concatHex(['0xef0100', contracts().accountDelegate]).toLowerCase(),
      'the authorization delegated the account as its owner meant',
    )

    const before = {
      eth: await t.ethOf(fresh.account.address),
      dollars: await t.dollarsOf(fresh.account.address),
      relayer: await t.ethOf(relayer),
    }
    const res = await execute(body)
    assert.equal(res.status, 200, res.text)
    const receipt = await pc().getTransactionReceipt({ hash: res.body.transactionHash })
    assert.equal(receipt.type, 'eip1559', 'the stale authorization is not carried')
    assert.equal(await t.dollarsOf(fresh.account.address), before.dollars - parseUnits('5', 6))
    assert.equal(await t.ethOf(fresh.account.address), before.eth)
    assert.equal(await t.ethOf(relayer), before.relayer - receipt.gasUsed * receipt.effectiveGasPrice)
  })

  it("re-delegation between simulation and mining: the relayer's transaction reverts, the relayer pays, the account loses nothing, and the revert counts against the sender's standing (its next execute is refused 429, nothing sent)", async () => {
    const fresh = await freshAgent()
    await delegateThroughGateway(fresh.account, fresh.policyId)
    const batch = batchOf(fresh.account.address, [increment()], fresh.policyId)
    const body = t.batchBody(batch, await t.signBatch(batch, fresh.account))
    const relayerTxs = await t.relayerNonce()
    const relayerEth = await t.ethOf(relayer)
    let answer: Awaited<ReturnType<typeof post>>
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const pending = execute(body)
      for (let i = 0; i < 200 && (await t.relayerNonce()) === relayerTxs; i++)
        await new Promise((r) => setTimeout(r, 25))
      assert.equal(await t.relayerNonce(), relayerTxs + 1, 'the gateway sent its transaction after simulating it')
      // The account points its code at DemoDollar (no executeBatch there), ahead of the relayer's transaction.
      const accountNonce = await pc().getTransactionCount({ address: fresh.account.address, blockTag: 'pending' })
      const authorization = await fresh.account.signAuthorization({
        chainId: world.devnet.anvil.chainId,
        address: contracts().dollar,
        nonce: accountNonce + 1,
      })
      const signed = await fresh.account.signTransaction({
        type: 'eip7702',
        chainId: world.devnet.anvil.chainId,
        to: fresh.account.address,
        nonce: accountNonce,
        gas: 100_000n,
        maxPriorityFeePerGas: parseUnits('50', 9),
        maxFeePerGas: parseUnits('100', 9),
        authorizationList: [authorization],
      })
      await rpc(world.devnet.anvil.rpcUrl, 'eth_sendRawTransaction', [signed])
      await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
      answer = await pending
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
    }
    assert.equal(
      await t.codeOf(fresh.account.address),
      concatHex(['0xef0100', contracts().dollar]).toLowerCase(),
      'the account re-delegated first',
    )
    const receipt = await pc().getTransactionReceipt({ hash: answer.body.transactionHash })
    assert.equal(receipt.status, 'reverted', answer.text)
    assert.equal(answer.body.state, 'reverted', answer.text)
    assert.equal(
      await t.ethOf(relayer),
      relayerEth - receipt.gasUsed * receipt.effectiveGasPrice,
      'the relayer paid for the revert',
    )

    // Delegated back to our delegate (its own transaction), its next intent is refused for its standing.
    const back = await fresh.account.signAuthorization({
      chainId: world.devnet.anvil.chainId,
      address: contracts().accountDelegate,
      nonce: (await pc().getTransactionCount({ address: fresh.account.address })) + 1,
    })
    const backTx = await fresh.account.signTransaction({
      type: 'eip7702',
      chainId: world.devnet.anvil.chainId,
      to: fresh.account.address,
      nonce: await pc().getTransactionCount({ address: fresh.account.address }),
      gas: 100_000n,
      maxPriorityFeePerGas: parseUnits('1', 9),
      maxFeePerGas: parseUnits('100', 9),
      authorizationList: [back],
    })
    await pc().waitForTransactionReceipt({
      hash: await rpc(world.devnet.anvil.rpcUrl, 'eth_sendRawTransaction', [backTx]),
    })
    const next = batchOf(fresh.account.address, [increment()], fresh.policyId)
    const refused = await t.untouched([fresh.account.address], async () =>
      execute(t.batchBody(next, await t.signBatch(next, fresh.account))),
    )
    assert.equal(refused.status, 429, refused.text)
    assert.equal(refused.body.type, 'urn:intent-gateway:problem:reverts-throttled', refused.text)
  })

  it('a session key cannot exceed its policy through a batch: a summed value over its per-transaction cap (402 calls[1]), a call outside its targets (403 calls[1]), past its aggregate cap (402); within it, it runs from the agent’s ETH', async () => {
    const session = world.devnet.demo.account.policies.session
    const cases: Array<[string, TestCall[], number, string]> = [
      [
        '0.006 + 0.006 ETH over 0.01 a transaction',
        [increment(parseEther('0.006')), increment(parseEther('0.006'))],
        402,
        'calls[1]',
      ],
      [
        "DemoDollar's transfer, outside the session policy",
        [increment(), transfer(sessionKey.address, 1n)],
        403,
        'calls[1]',
      ],
    ]
    for (const [what, calls, status, field] of cases) {
      const batch = batchOf(agent.address, calls, session)
      const res = await t.untouched([agent.address, sessionKey.address], async () =>
        execute(t.batchBody(batch, await t.signBatch(batch, sessionKey))),
      )
      assert.equal(res.status, status, `${what}: ${res.text}`)
      assert.deepEqual(fields(res), [field], `${what}: ${res.text}`)
    }
    // Under the agent's own policy the session key is nobody.
    const own = batchOf(agent.address, [increment()], world.devnet.demo.account.policies.own)
    const notDelegate = await t.untouched([agent.address], async () =>
      execute(t.batchBody(own, await t.signBatch(own, sessionKey))),
    )
    assert.equal(notDelegate.status, 401, notDelegate.text)

    // Within the policy: 0.01 ETH twice (the 0.02 aggregate), then nothing more.
    for (let i = 0; i < 2; i++) {
      const batch = batchOf(agent.address, [increment(parseEther('0.005')), increment(parseEther('0.005'))], session)
      const agentEth = await t.ethOf(agent.address)
      const relayerEth = await t.ethOf(relayer)
      const res = await execute(t.batchBody(batch, await t.signBatch(batch, sessionKey)))
      assert.equal(res.status, 200, res.text)
      assert.equal(await t.ethOf(agent.address), agentEth - parseEther('0.01'), "the values came from the agent's ETH")
      assert.equal(await t.ethOf(relayer), relayerEth - (await gasOf(res.body.transactionHash)))
    }
    const over = batchOf(agent.address, [increment(1n)], session)
    const refused = await t.untouched([agent.address], async () =>
      execute(t.batchBody(over, await t.signBatch(over, sessionKey))),
    )
    assert.equal(refused.status, 402, refused.text)
    assert.deepEqual(fields(refused), ['calls[0]'], refused.text)
  })

  it('reentrancy from a target into the account is refused: a target that calls the account’s executeBatch with another signed batch makes the whole intent revert in simulation; nothing sent, nothing moved', async () => {
    const attacker = privateKeyToAccount(generatePrivateKey()).address
    await rpc(world.devnet.anvil.rpcUrl, 'anvil_setCode', [attacker, forwarderCode(agent.address)])
    const policyId = await createPolicy(
      devnetAccounts.agent,
      [attacker, contracts().counter],
      ['executeBatch((address,(address,uint256,bytes)[],uint256,uint256,uint256,bytes32),bytes)', 'increment(uint256)'],
      'reentrancy',
    )
    // The inner batch is valid alone: the agent's own transfer to the attacker.
    const inner = batchOf(
      agent.address,
      [transfer(attacker, parseUnits('7', 6))],
      world.devnet.demo.account.policies.own,
    )
    const innerSignature = await t.signBatch(inner, agent)
    const reenter = executeBatchCalldata(
      { ...inner, target: attacker, data: '0x', value: 0n, calls: inner.calls },
      innerSignature,
    )
    const outer = batchOf(agent.address, [increment(), call(attacker, reenter)], policyId)
    const res = await t.untouched([agent.address, attacker], async () =>
      execute(t.batchBody(outer, await t.signBatch(outer, agent))),
    )
    assert.equal(res.status, 422, res.text)
    // ReentrancyGuardReentrantCall(): the account's guard, not another refusal.
    assert.match(res.body.detail, /reverted with data 0x3ee5aeb5/, res.text)
    assert.equal(await t.dollarsOf(attacker), 0n)
  })

  it("a target cannot take more of the agent's tokens than the intent approved: pulling 1000 after an approval of 5 is refused with nothing moved; pulling the 5 runs and leaves no allowance", async () => {
    const attacker = privateKeyToAccount(generatePrivateKey()).address
    await rpc(world.devnet.anvil.rpcUrl, 'anvil_setCode', [attacker, forwarderCode(contracts().dollar)])
    const policyId = await createPolicy(
      devnetAccounts.agent,
      [attacker, contracts().dollar],
      ['approve(address,uint256)', 'transferFrom(address,address,uint256)'],
      'spender',
    )
    const approve = (amount: bigint) =>
      call(
        contracts().dollar,
        encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'approve', args: [attacker, amount] }),
      )
    const pull = (amount: bigint) =>
      call(
        attacker,
        encodeFunctionData({
          abi: demoDollarArtifact.abi,
          functionName: 'transferFrom',
          args: [agent.address, attacker, amount],
        }),
      )
    const greedy = batchOf(agent.address, [approve(parseUnits('5', 6)), pull(parseUnits('1000', 6))], policyId)
    const res = await t.untouched([agent.address, attacker], async () =>
      execute(t.batchBody(greedy, await t.signBatch(greedy, agent))),
    )
    assert.equal(res.status, 422, res.text)
    // ERC20InsufficientAllowance(attacker, 5e6, 1000e6): the token's own check, met in simulation.
    assert.match(res.body.detail, /reverted with data 0xfb8f41b2/, res.text)
    assert.equal(await t.dollarsOf(attacker), 0n)

    const fair = batchOf(agent.address, [approve(parseUnits('5', 6)), pull(parseUnits('5', 6))], policyId)
    const agentDollars = await t.dollarsOf(agent.address)
    const ok = await execute(t.batchBody(fair, await t.signBatch(fair, agent)))
    assert.equal(ok.status, 200, ok.text)
    assert.equal(await t.dollarsOf(agent.address), agentDollars - parseUnits('5', 6))
    assert.equal(await t.dollarsOf(attacker), parseUnits('5', 6))
    assert.equal(
      await pc().readContract({
        address: contracts().dollar,
        abi: demoDollarArtifact.abi,
        functionName: 'allowance',
        args: [agent.address, attacker],
      }),
      0n,
    )
  })
})
