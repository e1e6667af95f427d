// Deploys the reference contracts: the registry, the executor (which creates the ledger both
// execution modes share and its validator: neither can ever be swapped), the demo counter, the
// DemoDollar that x402 payments are made in and, after them so the others keep their addresses,
// the EIP-7702 account delegate, the demo pool and the bundler. Shared by the devnet, the tests and the benchmarks.
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  type WalletClient,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { demoCounterArtifact } from '../../../contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../../contracts/demoDollarArtifact.ts'
import { demoSwapArtifact } from '../../../contracts/demoSwapArtifact.ts'
import { intentAccountArtifact } from '../../../contracts/intentAccountArtifact.ts'
import { intentBundlerArtifact } from '../../../contracts/intentBundlerArtifact.ts'
import { intentExecutorArtifact } from '../../../contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../../../contracts/policyRegistryArtifact.ts'

export type DeployedContracts = {
  registry: Address
  executor: Address
  validator: Address
  /** The IntentLedger the executor created: nonces, spending and deposits of both modes. */
  ledger: Address
  counter: Address
  dollar: Address
  /** IntentAccount, the EIP-7702 delegate an agent's EOA points its code at for account mode. */
  accountDelegate: Address
  /** DemoSwap: DemoDollar ↔ ETH at a fixed rate, for the approve + swap demo. */
  swap: Address
  /** IntentBundler: a relayer's executions as one transaction, each call with its own gas limit. */
  bundler: Address
}

/** DemoDollar's EIP-712 domain: what a price's `extra: { name, version }` must say. */
export const demoDollarDomain = { name: 'Demo Dollar', version: '1' } as const

export function createDevClients(rpcUrl: string, chainId: number) {
  const chain = defineChain({
    id: chainId,
    name: `devnet-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  const publicClient: PublicClient = createPublicClient({
    chain,
    transport: http(rpcUrl),
    pollingInterval: 50,
    cacheTime: 0,
  })
  const walletFor = (privateKey: Hex): WalletClient =>
    createWalletClient({
      chain,
      account: privateKeyToAccount(privateKey),
      transport: http(rpcUrl),
      pollingInterval: 50,
      cacheTime: 0,
    })
  return { chain, publicClient, walletFor }
}

export async function deployContracts({
  rpcUrl,
  chainId,
  deployerKey,
}: {
  rpcUrl: string
  chainId: number
  deployerKey: Hex
}): Promise<DeployedContracts> {
  const { publicClient, walletFor } = createDevClients(rpcUrl, chainId)
  const wallet = walletFor(deployerKey)
  const account = wallet.account!

  const deploy = async (artifact: { abi: Abi; bytecode: Hex }, args: readonly unknown[]) => {
    const hash = await wallet.deployContract({
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      args,
      account,
      chain: wallet.chain,
    })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deployment failed: ${hash}`)
    return getAddress(receipt.contractAddress)
  }

  const registry = await deploy(policyRegistryArtifact, [])
  const executor = await deploy(intentExecutorArtifact, [registry])
  const validator = await publicClient.readContract({
    address: executor,
    abi: intentExecutorArtifact.abi,
    functionName: 'validator',
  })
  const ledger = await publicClient.readContract({
    address: executor,
    abi: intentExecutorArtifact.abi,
    functionName: 'ledger',
  })
  const counter = await deploy(demoCounterArtifact, [])
  const dollar = await deploy(demoDollarArtifact, [demoDollarDomain.name, demoDollarDomain.version])
  const accountDelegate = await deploy(intentAccountArtifact, [ledger])
  const swap = await deploy(demoSwapArtifact, [dollar])
  const bundler = await deploy(intentBundlerArtifact, [])
  return {
    registry,
    executor,
    validator: getAddress(validator),
    ledger: getAddress(ledger),
    counter,
    dollar,
    accountDelegate,
    swap,
    bundler,
  }
}
