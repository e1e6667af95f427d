// Demo data on a fresh deployment: the sender's policies and deposit, chosen so that each seed
// status (200, 403, 402, 410, 202, 421) has an intent that produces it.
import { type Address, type Hex, parseEther, toFunctionSelector } from 'viem'
import { intentExecutorArtifact } from '../contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../contracts/policyRegistryArtifact.ts'
import { createDevClients, type DeployedContracts } from './deployContracts.ts'
import { derivePolicyId, saltOf } from './derivePolicyId.ts'

export type Demo = {
  sender: Address
  policies: { open: Hex; mainnetOnly: Hex }
  counter: Address
  incrementSelector: Hex
  deposit: bigint
}

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
  const salts = { open: saltOf('demo.open'), mainnetOnly: saltOf('demo.mainnet-only') }
  const policies = { open: derivePolicyId(account.address, salts.open), mainnetOnly: derivePolicyId(account.address, salts.mainnetOnly) }
  const deposit = parseEther('10')

  const send = async (hash: Promise<Hex>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash })
    if (receipt.status !== 'success') throw new Error(`demo seeding transaction reverted: ${receipt.transactionHash}`)
  }
  await send(wallet.writeContract({ address: contracts.registry, abi: policyRegistryArtifact.abi, functionName: 'createPolicy', args: [salts.open, { ...base, allowedChains: [BigInt(chainId)] }], account, chain: wallet.chain }))
  await send(wallet.writeContract({ address: contracts.registry, abi: policyRegistryArtifact.abi, functionName: 'createPolicy', args: [salts.mainnetOnly, { ...base, allowedChains: [1n] }], account, chain: wallet.chain }))
  await send(wallet.writeContract({ address: contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'deposit', value: deposit, account, chain: wallet.chain }))

  return { sender: account.address, policies, counter: contracts.counter, incrementSelector, deposit }
}
