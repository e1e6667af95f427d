// The reference contracts: the committed artifacts are what the sources compile to, and the
// rules the origin got wrong hold on a real chain.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { encodeFunctionData, type Hex, hashTypedData, parseEther, toFunctionSelector } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { artifactsDir, compileContracts } from '../../scripts/compileContracts.ts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { gasMarginAtLeast } from '../../src/chains/evm/adapter/executionGas.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { evmRuntime } from '../../src/chains/evm/evmRuntime.ts'
import { intentTypedData } from '../../src/chains/evm/intentTypedData.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { intentValidatorArtifact } from '../../src/contracts/intentValidatorArtifact.ts'
import { policyRegistryArtifact } from '../../src/contracts/policyRegistryArtifact.ts'
import { startWorld, type World } from '../support/testGateway.ts'

describe('contract artifacts', () => {
  it('are exactly what the Solidity sources compile to (run npm run build:contracts after a change), and the EIP-7702 delegate and the bundler declare no storage', () => {
    const artifacts = compileContracts()
    for (const artifact of artifacts) {
      assert.equal(readFileSync(join(artifactsDir, artifact.file), 'utf8'), artifact.source, artifact.file)
    }
    // A delegate's storage is the EOA's, written by whatever delegate came before: IntentAccount
    // keeps nothing there (its nonces and spending are the ledger's, its guard is transient).
    assert.deepEqual(artifacts.find((a) => a.file === 'intentAccountArtifact.ts')?.storage, [])
    // The bundler keeps nothing between calls: nothing of one bundle can reach the next.
    assert.deepEqual(artifacts.find((a) => a.file === 'intentBundlerArtifact.ts')?.storage, [])
  })

  it("keep the origin ABI, add signed execution, and give nobody an owner's powers", () => {
    const signatures = (
      abi: readonly {
        type: string
        name?: string
        inputs?: readonly { type: string; components?: readonly { type: string }[] }[]
      }[],
    ) =>
      abi
        .filter((i) => i.name)
        .map(
          (i) =>
            `${i.type} ${i.name}(${(i.inputs ?? []).map((p) => (p.components ? `(${p.components.map((c) => c.type).join(',')})` : p.type)).join(',')})`,
        )
    const intent = '(address,address,bytes,uint256,uint256,uint256,uint256,bytes32)'
    assert.ok(signatures(intentValidatorArtifact.abi).includes(`function canExecute(${intent})`))
    const executor = signatures(intentExecutorArtifact.abi)
    for (const s of [
      `function execute(${intent})`,
      `function executeSigned(${intent},bytes)`,
      `function checkSigned(${intent},bytes)`,
      `function signingHash(${intent})`,
      'function cancelNonce(uint256)',
      'function nonceCancelled(address,uint256)',
      'event IntentExecuted(bytes32,bytes1,address,bytes)',
      'error ExecutionDenied(bytes1)',
      'error ExecutionFailed(bytes1,bytes)',
    ]) {
      assert.ok(executor.includes(s), s)
    }
    // The validator is fixed at deployment and nobody owns the executor.
    for (const name of ['setValidator', 'owner', 'transferOwnership'])
      assert.ok(!executor.some((s) => s.includes(` ${name}(`)), name)
    const policy = '(address,address[],bytes4[],uint256,uint256,uint256,uint256,uint256[])'
    const registry = signatures(policyRegistryArtifact.abi)
    for (const s of [
      `function createPolicy(bytes32,${policy})`,
      `function updatePolicy(bytes32,${policy})`,
      'function policyIdOf(address,bytes32)',
      'function addDelegate(bytes32,address)',
      'function revokeDelegate(bytes32,address)',
      'function getPolicy(bytes32)',
      'function policyExists(bytes32)',
    ]) {
      assert.ok(registry.includes(s), s)
    }
    assert.ok(!registry.some((s) => s.includes(' setPolicy(')), 'no setPolicy: a policy id cannot be chosen freely')

    // DemoDollar offers what x402's exact EVM scheme calls (EIP-3009, both signature forms) and no owner.
    const dollar = signatures(demoDollarArtifact.abi)
    const authorization = 'address,address,uint256,uint256,uint256,bytes32'
    for (const s of [
      `function transferWithAuthorization(${authorization},bytes)`,
      `function transferWithAuthorization(${authorization},uint8,bytes32,bytes32)`,
      `function receiveWithAuthorization(${authorization},bytes)`,
      `function receiveWithAuthorization(${authorization},uint8,bytes32,bytes32)`,
      'function cancelAuthorization(address,bytes32,bytes)',
      'function cancelAuthorization(address,bytes32,uint8,bytes32,bytes32)',
      'function authorizationState(address,bytes32)',
      'function name()',
      'function version()',
      'function mint(address,uint256)',
      'event AuthorizationUsed(address,bytes32)',
      'event AuthorizationCanceled(address,bytes32)',
    ]) {
      assert.ok(dollar.includes(s), s)
    }
    for (const name of ['owner', 'transferOwnership', 'burn'])
      assert.ok(!dollar.some((s) => s.includes(` ${name}(`)), name)
  })
})

describe('reference contracts on anvil', () => {
  let world: World
  const sender = privateKeyToAccount(devnetAccounts.sender).address
  const other = privateKeyToAccount(devnetAccounts.other).address

  before(async () => {
    world = await startWorld()
  })
  after(async () => {
    await world?.stop()
  })

  async function write(
    key: Hex,
    call: { address: Hex; abi: readonly unknown[]; functionName: string; args?: readonly unknown[]; value?: bigint },
  ) {
    const wallet = world.clients.walletFor(key)
    const hash = await wallet.writeContract({ ...call, account: wallet.account!, chain: wallet.chain } as never)
    return world.clients.publicClient.waitForTransactionReceipt({ hash })
  }
  async function simulate(
    key: Hex,
    call: { address: Hex; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] },
  ) {
    return world.clients.publicClient.simulateContract({ ...call, account: privateKeyToAccount(key).address } as never)
  }
  const intent = (nonce: bigint) => ({
    sender,
    target: world.devnet.contracts.counter,
    data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
    value: 0n,
    nonce,
    validAfter: 0n,
    validBefore: 0n,
    policyId: world.devnet.demo.policies.open,
  })
  const sign = (i: ReturnType<typeof intent>) =>
    privateKeyToAccount(devnetAccounts.sender).signTypedData(
      intentTypedData({ chainId: 31337, executor: world.devnet.contracts.executor, intent: i }),
    )

  it("were deployed by a key that is not the relayer, and the executor's validator is the one it created", async () => {
    const executorAddress = world.devnet.contracts.executor
    const validator = await world.clients.publicClient.readContract({
      address: executorAddress,
      abi: intentExecutorArtifact.abi,
      functionName: 'validator',
    })
    assert.equal(validator, world.devnet.contracts.validator)
    const boundTo = await world.clients.publicClient.readContract({
      address: validator,
      abi: intentValidatorArtifact.abi,
      functionName: 'executor',
    })
    assert.equal(boundTo, executorAddress)
    const deployer = privateKeyToAccount(devnetAccounts.deployer).address
    assert.notEqual(deployer, privateKeyToAccount(devnetAccounts.relayer).address)
    assert.ok(
      (await world.clients.publicClient.getTransactionCount({ address: deployer })) > 0,
      'the deployer key deployed the contracts',
    )
  })

  it("executes a (sender, nonce) at most once: the sender's own call, then a signed replay, refused", async () => {
    const first = await write(devnetAccounts.sender, {
      address: world.devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'execute',
      args: [intent(500n)],
    })
    assert.equal(first.status, 'success')
    // Same nonce with different data: a different intent, still refused.
    const replay = {
      ...intent(500n),
      data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [9n] }),
    }
    await assert.rejects(
      simulate(devnetAccounts.relayer, {
        address: world.devnet.contracts.executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'executeSigned',
        args: [replay, await sign(replay)],
      }),
      /ExecutionDenied.*0x22/s,
    )
  })

  it('keeps every nonce its own state, 128 to a storage word: used, cancelled and unused side by side, at a word boundary and at the largest nonce', async () => {
    const executor = world.devnet.contracts.executor
    const read = (functionName: 'nonceUsed' | 'nonceCancelled', nonce: bigint) =>
      world.clients.publicClient.readContract({
        address: executor,
        abi: intentExecutorArtifact.abi,
        functionName,
        args: [sender, nonce],
      })
    const code = async (nonce: bigint) =>
      world.clients.publicClient.readContract({
        address: world.devnet.contracts.validator,
        abi: intentValidatorArtifact.abi,
        functionName: 'canExecute',
        args: [intent(nonce)],
      })
    const execute = (nonce: bigint) =>
      write(devnetAccounts.sender, {
        address: executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'execute',
        args: [intent(nonce)],
      })
    const cancel = (nonce: bigint) =>
      write(devnetAccounts.sender, {
        address: executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'cancelNonce',
        args: [nonce],
      })
    // The last nonce of word 10 and the first of word 11.
    const [last, first] = [128n * 11n - 1n, 128n * 11n]
    assert.equal((await execute(last)).status, 'success')
    assert.equal(await read('nonceUsed', last), true)
    assert.equal(await read('nonceCancelled', last), false)
    assert.equal(await read('nonceUsed', last - 1n), false, 'its neighbour in the word')
    assert.equal(await read('nonceUsed', first), false, 'the next word')
    assert.equal((await cancel(last - 1n)).status, 'success')
    assert.equal(await read('nonceCancelled', last - 1n), true)
    assert.equal(await read('nonceUsed', last - 1n), false)
    assert.equal(await read('nonceUsed', last), true, 'a cancel leaves its neighbour used')
    assert.equal(await code(last - 1n), '0x16', 'a cancelled nonce is revoked')
    assert.equal(await code(last), '0x22', 'a used nonce is used')
    assert.equal(await code(first), '0x01', 'the next word is untouched')
    await assert.rejects(
      simulate(devnetAccounts.sender, {
        address: executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'cancelNonce',
        args: [last],
      }),
      /ExecutionDenied.*0x22/s,
      'a used nonce cannot be cancelled',
    )
    assert.equal((await cancel(last - 1n)).status, 'success', 'cancelling twice changes nothing')
    assert.equal(await read('nonceCancelled', last - 1n), true)
    await assert.rejects(
      simulate(devnetAccounts.sender, {
        address: executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'execute',
        args: [intent(last - 1n)],
      }),
      /ExecutionDenied.*0x16/s,
    )
    const max = 2n ** 256n - 1n
    assert.equal((await execute(max)).status, 'success')
    assert.equal(await read('nonceUsed', max), true)
    assert.equal(await read('nonceUsed', max - 1n), false)
    assert.equal(await code(max - 1n), '0x01')
  })

  it('spends a fresh storage slot once per 128 nonces counted up: the next nonce in a word costs ~17,000 gas less', async () => {
    const executor = world.devnet.contracts.executor
    const execute = (nonce: bigint) =>
      write(devnetAccounts.sender, {
        address: executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'execute',
        args: [intent(nonce)],
      })
    const fresh = (await execute(128n * 40n)).gasUsed
    const next = (await execute(128n * 40n + 1n)).gasUsed
    assert.ok(fresh - next >= 15_000n, `the first nonce of a word used ${fresh} gas, the next ${next}`)
    // The gateway's least head-room covers an execution simulated after the word was set and mined before.
    assert.ok(fresh - next < gasMarginAtLeast, `${fresh - next} gas more for the first nonce of a word`)
  })

  it("emits IntentExecuted with keccak256(abi.encode(intent)), the gateway's hash", async () => {
    const i = intent(501n)
    const receipt = await write(devnetAccounts.relayer, {
      address: world.devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'executeSigned',
      args: [i, await sign(i)],
    })
    const log = receipt.logs.find(
      (l) => l.address.toLowerCase() === world.devnet.contracts.executor.toLowerCase() && l.topics.length === 3,
    )!
    assert.equal(log.topics[1], evmRuntime.hashIntent(i))
  })

  it("signs over the EIP-712 digest the gateway's typed data gives", async () => {
    const i = intent(503n)
    const onChain = await world.clients.publicClient.readContract({
      address: world.devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'signingHash',
      args: [i],
    })
    assert.equal(
      onChain,
      hashTypedData(intentTypedData({ chainId: 31337, executor: world.devnet.contracts.executor, intent: i })),
    )
  })

  it("pays intent value from the sender's deposit and lets the sender withdraw the rest", async () => {
    const deposits = () =>
      world.clients.publicClient.readContract({
        address: world.devnet.contracts.executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'deposits',
        args: [sender],
      })
    const before = await deposits()
    const i = { ...intent(502n), value: parseEther('0.25') }
    await write(devnetAccounts.relayer, {
      address: world.devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'executeSigned',
      args: [i, await sign(i)],
    })
    assert.equal(await deposits(), before - parseEther('0.25'))
    await assert.rejects(
      simulate(devnetAccounts.sender, {
        address: world.devnet.contracts.executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'withdraw',
        args: [before],
      }),
      /InsufficientDeposit/,
    )
    await write(devnetAccounts.sender, {
      address: world.devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'withdraw',
      args: [parseEther('1')],
    })
    assert.equal(await deposits(), before - parseEther('1.25'))
  })

  it("lets nobody create a policy for someone else, change or remove one they do not own, or change a policy's owner", async () => {
    const policy = {
      owner: sender,
      allowedTargets: [],
      allowedSelectors: [toFunctionSelector('increment(uint256)')],
      maxValuePerTx: 0n,
      maxAggregateValue: 0n,
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [],
    }
    const registry = world.devnet.contracts.registry
    const open = world.devnet.demo.policies.open
    await assert.rejects(
      simulate(devnetAccounts.other, {
        address: registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'createPolicy',
        args: [saltOf('theft'), policy],
      }),
      /InvalidPolicyOwner/,
    )
    await assert.rejects(
      simulate(devnetAccounts.other, {
        address: registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'updatePolicy',
        args: [open, { ...policy, owner: other }],
      }),
      /NotPolicyOwner/,
    )
    await assert.rejects(
      simulate(devnetAccounts.other, {
        address: registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'removePolicy',
        args: [open],
      }),
      /NotPolicyOwner/,
    )
    await assert.rejects(
      simulate(devnetAccounts.other, {
        address: registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'addDelegate',
        args: [open, other],
      }),
      /NotPolicyOwner/,
    )
    // The owner itself cannot hand its policy over.
    await assert.rejects(
      simulate(devnetAccounts.sender, {
        address: registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'updatePolicy',
        args: [open, { ...policy, owner: other }],
      }),
      /InvalidPolicyOwner/,
    )
    // An id is the owner's: the same salt gives another owner another id, and a taken id cannot be created again.
    const { result: mine } = await simulate(devnetAccounts.sender, {
      address: registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'createPolicy',
      args: [saltOf('fresh'), policy],
    })
    const { result: theirs } = await simulate(devnetAccounts.other, {
      address: registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'createPolicy',
      args: [saltOf('fresh'), { ...policy, owner: other }],
    })
    assert.equal(mine, derivePolicyId(sender, saltOf('fresh')))
    assert.equal(theirs, derivePolicyId(other, saltOf('fresh')))
    await assert.rejects(
      simulate(devnetAccounts.sender, {
        address: registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'createPolicy',
        args: [saltOf('demo.open'), policy],
      }),
      /PolicyExists/,
    )

    const stored = await world.clients.publicClient.readContract({
      address: registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'getPolicy',
      args: [open],
    })
    assert.equal(stored.owner, sender)
    assert.deepEqual(stored.allowedChains, [31337n])
  })
})
