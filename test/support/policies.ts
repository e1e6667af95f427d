// Creates policies and deposits on the test chain, as the demo sender (or another owner).
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../../src/contracts/policyRegistryArtifact.ts'
import type { World } from './testGateway.ts'

export type PolicyFields = {
  allowedTargets: Address[]
  allowedSelectors: Hex[]
  maxValuePerTx: bigint
  maxAggregateValue: bigint
  validAfter: bigint
  validBefore: bigint
  allowedChains: bigint[]
}

/** Creates the owner's policy with the salt of `name` and returns its id. */
export async function writePolicy(
  world: Pick<World, 'devnet' | 'clients'>,
  name: string,
  fields: Partial<PolicyFields>,
  ownerKey: Hex = devnetAccounts.sender,
): Promise<Hex> {
  const wallet = world.clients.walletFor(ownerKey)
  const owner = privateKeyToAccount(ownerKey).address
  const policy = {
    owner,
    allowedTargets: [],
    allowedSelectors: [],
    maxValuePerTx: 10n ** 18n,
    maxAggregateValue: 10n ** 20n,
    validAfter: 0n,
    validBefore: 0n,
    allowedChains: [],
    ...fields,
  }
  const hash = await wallet.writeContract({
    address: world.devnet.contracts.registry,
    abi: policyRegistryArtifact.abi,
    functionName: 'createPolicy',
    args: [saltOf(name), policy],
    account: wallet.account!,
    chain: wallet.chain,
  })
  const receipt = await world.clients.publicClient.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new Error('createPolicy reverted')
  return derivePolicyId(owner, saltOf(name))
}

export async function deposit(world: World, value: bigint, senderKey: Hex = devnetAccounts.sender) {
  const wallet = world.clients.walletFor(senderKey)
  const hash = await wallet.writeContract({
    address: world.devnet.contracts.executor,
    abi: intentExecutorArtifact.abi,
    functionName: 'deposit',
    value,
    account: wallet.account!,
    chain: wallet.chain,
  })
  await world.clients.publicClient.waitForTransactionReceipt({ hash })
}
