// Deploys the reference contracts: the registry, the executor (which creates its validator: it can
// never be swapped), the demo counter and, last so the others keep their addresses, the
// DemoDollar that x402 payments are made in. Shared by the devnet, the tests and the benchmarks.
import { type Address, type Hex, type PublicClient, type WalletClient, createPublicClient, createWalletClient, defineChain, getAddress, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { demoCounterArtifact } from '../../../contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../../contracts/demoDollarArtifact.ts'
import { intentExecutorArtifact } from '../../../contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../../../contracts/policyRegistryArtifact.ts'

export type DeployedContracts = { registry: Address; executor: Address; validator: Address; counter: Address; dollar: Address }

/** DemoDollar's EIP-712 domain: what a price's `extra: { name, version }` must say. */
export const demoDollarDomain = { name: 'Demo Dollar', version: '1' } as const

export function createDevClients(rpcUrl: string, chainId: number) {
  const chain = defineChain({ id: chainId, name: `devnet-${chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } })
  const publicClient: PublicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50, cacheTime: 0 })
  const walletFor = (privateKey: Hex): WalletClient => createWalletClient({ chain, account: privateKeyToAccount(privateKey), transport: http(rpcUrl), pollingInterval: 50, cacheTime: 0 })
  return { chain, publicClient, walletFor }
}

export async function deployContracts({ rpcUrl, chainId, deployerKey }: { rpcUrl: string; chainId: number; deployerKey: Hex }): Promise<DeployedContracts> {
  const { publicClient, walletFor } = createDevClients(rpcUrl, chainId)
  const wallet = walletFor(deployerKey)
  const account = wallet.account!

  const deploy = async (artifact: { abi: readonly unknown[]; bytecode: Hex }, args: readonly unknown[]) => {
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, account, chain: wallet.chain } as never)
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deployment failed: ${hash}`)
    return getAddress(receipt.contractAddress)
  }

  const registry = await deploy(policyRegistryArtifact, [])
  const executor = await deploy(intentExecutorArtifact, [registry])
  const validator = await publicClient.readContract({ address: executor, abi: intentExecutorArtifact.abi, functionName: 'validator' })
  const counter = await deploy(demoCounterArtifact, [])
  const dollar = await deploy(demoDollarArtifact, [demoDollarDomain.name, demoDollarDomain.version])
  return { registry, executor, validator: getAddress(validator), counter, dollar }
}
