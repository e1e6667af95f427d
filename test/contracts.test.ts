// The reference contracts: the committed artifacts are what the sources compile to, and the
// rules the origin got wrong hold on a real chain.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Hex, encodeFunctionData, parseEther, toFunctionSelector } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { artifactsDir, compileContracts } from '../scripts/compileContracts.ts'
import { evmRuntime } from '../src/chains/evm/evmRuntime.ts'
import { demoCounterArtifact } from '../src/contracts/demoCounterArtifact.ts'
import { intentExecutorArtifact } from '../src/contracts/intentExecutorArtifact.ts'
import { intentValidatorArtifact } from '../src/contracts/intentValidatorArtifact.ts'
import { policyRegistryArtifact } from '../src/contracts/policyRegistryArtifact.ts'
import { devnetAccounts } from '../src/devnet/devnetAccounts.ts'
import { policyIdOf } from '../src/devnet/seedDemo.ts'
import { startWorld, type World } from './support/testGateway.ts'

describe('contract artifacts', () => {
  it('are exactly what the Solidity sources compile to (run npm run build:contracts after a change)', () => {
    for (const artifact of compileContracts()) {
      assert.equal(readFileSync(join(artifactsDir, artifact.file), 'utf8'), artifact.source, artifact.file)
    }
  })

  it('keep the origin ABI', () => {
    const signatures = (abi: readonly { type: string; name?: string; inputs?: readonly { type: string; components?: readonly { type: string }[] }[] }[]) =>
      abi.filter((i) => i.name).map((i) => `${i.type} ${i.name}(${(i.inputs ?? []).map((p) => (p.components ? `(${p.components.map((c) => c.type).join(',')})` : p.type)).join(',')})`)
    const intent = '(address,address,bytes,uint256,uint256,uint256,uint256,bytes32)'
    assert.ok(signatures(intentValidatorArtifact.abi).includes(`function canExecute(${intent})`))
    const executor = signatures(intentExecutorArtifact.abi)
    for (const s of [`function execute(${intent})`, 'event IntentExecuted(bytes32,bytes1,address,bytes)', 'error ExecutionDenied(bytes1)', 'error ExecutionFailed(bytes1,bytes)', 'function setValidator(address)']) {
      assert.ok(executor.includes(s), s)
    }
    const policy = '(address,address[],bytes4[],uint256,uint256,uint256,uint256,uint256[])'
    const registry = signatures(policyRegistryArtifact.abi)
    for (const s of [`function setPolicy(bytes32,${policy})`, 'function getPolicy(bytes32)', 'function policyExists(bytes32)']) assert.ok(registry.includes(s), s)
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

  async function write(key: Hex, call: { address: Hex; abi: readonly unknown[]; functionName: string; args?: readonly unknown[]; value?: bigint }) {
    const wallet = world.clients.walletFor(key)
    const hash = await wallet.writeContract({ ...call, account: wallet.account!, chain: wallet.chain } as never)
    return world.clients.publicClient.waitForTransactionReceipt({ hash })
  }
  async function simulate(key: Hex, call: { address: Hex; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }) {
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

  it('lets only the owner change the executor\'s validator', async () => {
    await assert.rejects(
      simulate(devnetAccounts.other, { address: world.devnet.contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'setValidator', args: [other] }),
      /OwnableUnauthorizedAccount/,
    )
    const current = await world.clients.publicClient.readContract({ address: world.devnet.contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'validator' })
    assert.equal(current, world.devnet.contracts.validator)
  })

  it('executes a (sender, nonce) at most once, whoever calls execute', async () => {
    const first = await write(devnetAccounts.other, { address: world.devnet.contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'execute', args: [intent(500n)] })
    assert.equal(first.status, 'success')
    // Same nonce with different data: a different intent, still refused.
    const replay = { ...intent(500n), data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [9n] }) }
    await assert.rejects(
      simulate(devnetAccounts.relayer, { address: world.devnet.contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'execute', args: [replay] }),
      /ExecutionDenied.*0x22/s,
    )
  })

  it('emits IntentExecuted with keccak256(abi.encode(intent)), the gateway\'s hash', async () => {
    const i = intent(501n)
    const receipt = await write(devnetAccounts.relayer, { address: world.devnet.contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'execute', args: [i] })
    const log = receipt.logs.find((l) => l.address.toLowerCase() === world.devnet.contracts.executor.toLowerCase() && l.topics.length === 3)!
    assert.equal(log.topics[1], evmRuntime.hashIntent(i))
  })

  it('pays intent value from the sender\'s deposit and lets the sender withdraw the rest', async () => {
    const deposits = () => world.clients.publicClient.readContract({ address: world.devnet.contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'deposits', args: [sender] })
    const before = await deposits()
    await write(devnetAccounts.relayer, { address: world.devnet.contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'execute', args: [{ ...intent(502n), value: parseEther('0.25') }] })
    assert.equal(await deposits(), before - parseEther('0.25'))
    await assert.rejects(simulate(devnetAccounts.sender, { address: world.devnet.contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'withdraw', args: [before] }), /InsufficientDeposit/)
    await write(devnetAccounts.sender, { address: world.devnet.contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'withdraw', args: [parseEther('1')] })
    assert.equal(await deposits(), before - parseEther('1.25'))
  })

  it('lets nobody create a policy for someone else, or change a policy they do not own', async () => {
    const policy = { owner: sender, allowedTargets: [], allowedSelectors: [toFunctionSelector('increment(uint256)')], maxValuePerTx: 0n, maxAggregateValue: 0n, validAfter: 0n, validBefore: 0n, allowedChains: [] }
    await assert.rejects(
      simulate(devnetAccounts.other, { address: world.devnet.contracts.registry, abi: policyRegistryArtifact.abi, functionName: 'setPolicy', args: [policyIdOf('theft'), policy] }),
      /InvalidPolicyOwner/,
    )
    await assert.rejects(
      simulate(devnetAccounts.other, { address: world.devnet.contracts.registry, abi: policyRegistryArtifact.abi, functionName: 'setPolicy', args: [world.devnet.demo.policies.open, { ...policy, owner: other }] }),
      /NotPolicyOwner/,
    )
    await assert.rejects(
      simulate(devnetAccounts.other, { address: world.devnet.contracts.registry, abi: policyRegistryArtifact.abi, functionName: 'removePolicy', args: [world.devnet.demo.policies.open] }),
      /NotPolicyOwner/,
    )
    const read = (fn: 'policyExists') => world.clients.publicClient.readContract({ address: world.devnet.contracts.registry, abi: policyRegistryArtifact.abi, functionName: fn, args: [world.devnet.demo.policies.open] })
    assert.equal(await read('policyExists'), true)
    const stored = await world.clients.publicClient.readContract({ address: world.devnet.contracts.registry, abi: policyRegistryArtifact.abi, functionName: 'getPolicy', args: [world.devnet.demo.policies.open] })
    assert.equal(stored.owner, sender)
    assert.deepEqual(stored.allowedChains, [31337n])
  })
})
