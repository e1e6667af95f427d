// Demo data on a fresh deployment: the sender's policies and deposit, chosen so that each seed
// status (200, 403, 402, 410, 202, 421) has an intent that produces it.
import { type Address, type Hex, keccak256, parseEther, stringToHex, toFunctionSelector } from 'viem'
import { intentExecutorArtifact } from '../contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../contracts/policyRegistryArtifact.ts'
import { createDevClients, type DeployedContracts } from './deployContracts.ts'

export type DemoPolicy = {
  allowedTargets?: Address[]
  allowedSelectors?: Hex[]
  maxValuePerTx?: bigint
  maxAggregateValue?: bigint
  validAfter?: bigint
  validBefore?: bigint
  allowedChains?: bigint[]
}

export type Demo = {
  sender: Address
  policies: { open: Hex; mainnetOnly: Hex }
  counter: Address
  incrementSelector: Hex
  deposit: bigint
}

export const policyIdOf = (name: string): Hex => keccak256(stringToHex(name))

export async function seedDemo({ rpcUrl, chainId, contracts, senderKey }: { rpcUrl: string; chainId: number; contracts: DeployedContracts; senderKey: Hex }): Promise<Demo> {
  const { publicClient, walletFor } = createDevClients(rpcUrl, chainId)
  const wallet = walletFor(senderKey)
  const account = wallet.account!
  const incrementSelector = toFunctionSelector('increment(uint256)')

  const base = {
    owner: account.address,
    allowedTargets: [contracts.counter],
    allowedSelectors: [incrementSelector],
    maxValuePerTx: parseEther('1'),
    maxAggregateValue: parseEther('100'),
    validAfter: 0n,
    validBefore: 0n,
  }
  const policies = { open: policyIdOf('demo.open'), mainnetOnly: policyIdOf('demo.mainnet-only') }
  const deposit = parseEther('10')

  const send = async (hash: Promise<Hex>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash })
    if (receipt.status !== 'success') throw new Error(`demo seeding transaction reverted: ${receipt.transactionHash}`)
  }
  await send(wallet.writeContract({ address: contracts.registry, abi: policyRegistryArtifact.abi, functionName: 'setPolicy', args: [policies.open, { ...base, allowedChains: [BigInt(chainId)] }], account, chain: wallet.chain }))
  await send(wallet.writeContract({ address: contracts.registry, abi: policyRegistryArtifact.abi, functionName: 'setPolicy', args: [policies.mainnetOnly, { ...base, allowedChains: [1n] }], account, chain: wallet.chain }))
  await send(wallet.writeContract({ address: contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'deposit', value: deposit, account, chain: wallet.chain }))

  return { sender: account.address, policies, counter: contracts.counter, incrementSelector, deposit }
}
