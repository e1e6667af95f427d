// Puts the gateway's contracts on one EVM chain, or finds them there: checks the RPC serves the
// chain asked for and has the CREATE2 deployer, computes every address up front, refuses code at
// an address that is not this build (or points at other contracts), checks the deployer can pay,
// sends only what is missing (one transaction each, waiting for the confirmations asked), and
// verifies every contract's runtime code and immutables afterwards. Run it twice: the second
// sends nothing.
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  formatEther,
  formatGwei,
  type Hash,
  http,
  type LocalAccount,
  type PublicClient,
} from 'viem'
import { redactUrl } from '../../../config/redactUrl.ts'
import { checkImmutables } from './checkImmutables.ts'
import { DeployError } from './deployError.ts'
import { deterministicDeployer } from './deterministicDeployer.ts'
import { matchesRuntimeCode } from './matchesRuntimeCode.ts'
import { type ContractName, type DeploymentPlan, type PlannedContract, planDeployment } from './planDeployment.ts'

export type DeployedContract = {
  name: ContractName
  address: Address
  /** deployed: by this run; created: by a contract this run deployed; present: found, already deployed. */
  outcome: 'deployed' | 'created' | 'present'
  transactionHash?: Hash
  blockNumber?: bigint
  gasUsed?: bigint
}

export type DeployResult = {
  chainId: string
  deployer: { address: Address; backend: string }
  salt: `0x${string}`
  confirmations: number
  addresses: DeploymentPlan['addresses']
  contracts: DeployedContract[]
  /** How many transactions this run sent (0 on a run that found everything). */
  transactions: number
}

export type DeployToChainParameters = {
  chainId: string
  chainNumber: number
  rpcUrl: string
  salt: `0x${string}`
  confirmations: number
  /** Opens the deployer's key: called once the RPC is known to serve the chain. */
  openAccount: () => Promise<LocalAccount & { backend: string }>
  /** One line of progress for the operator. */
  onProgress?: (line: string) => void
}

export async function deployToChain({
  chainId,
  chainNumber,
  rpcUrl,
  salt,
  confirmations,
  openAccount,
  onProgress = () => {},
}: DeployToChainParameters): Promise<DeployResult> {
  const shownUrl = redactUrl(rpcUrl)
  const chain = defineChain({
    id: chainNumber,
    name: chainId,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  const transport = http(rpcUrl, { retryCount: 1, timeout: 15_000 })
  const client = createPublicClient({
    chain,
    transport,
    pollingInterval: chainNumber === 31337 || chainNumber === 31338 ? 50 : 2_000,
    cacheTime: 0,
  }) as PublicClient

  const served = await client.getChainId().catch((err: unknown) => {
    throw new DeployError(`Cannot reach the RPC at ${shownUrl}`, {
      code: 'DEPLOY_RPC_UNREACHABLE',
      details: `eth_chainId failed: ${reason(err, rpcUrl)}. Check --rpc and that the node is up.`,
    })
  })
  if (served !== chainNumber) {
    throw new DeployError(`The RPC at ${shownUrl} serves eip155:${served}, not ${chainId}`, {
      code: 'DEPLOY_CHAIN_MISMATCH',
      details: `Refusing to deploy: --chain says ${chainId}. Give the RPC of ${chainId}, or --chain eip155:${served} if that is the chain you mean.`,
    })
  }
  if (!(await read(client.getCode({ address: deterministicDeployer.address }), rpcUrl))) {
    throw new DeployError(`${chainId} has no CREATE2 deployer at ${deterministicDeployer.address}`, {
      code: 'DEPLOY_NO_CREATE2_DEPLOYER',
      details: deterministicDeployer.howToDeploy,
    })
  }

  const account = await openAccount()
  const plan = planDeployment({ salt })
  onProgress(`deployer ${account.address} (${account.backend}) on ${chainId}, salt ${salt}`)
  for (const c of plan.contracts) onProgress(`  ${c.name.padEnd(16)} ${c.address}`)

  // Everything found is checked before anything is sent: a refusal leaves the chain as it was.
  const present = new Set<ContractName>()
  for (const contract of plan.contracts) {
    if (await inspect({ client, plan, contract, chainNumber, rpcUrl })) present.add(contract.name)
  }
  for (const contract of plan.contracts) {
    if (contract.createdBy && present.has(contract.name) && !present.has(contract.createdBy)) {
      throw differs(
        contract,
        `it has code, but ${contract.createdBy}, whose constructor creates it there, is not deployed`,
      )
    }
  }
  const missing = plan.contracts.filter((c) => c.deployData && !present.has(c.name))
  const sent = new Map<ContractName, { transactionHash: Hash; blockNumber: bigint; gasUsed: bigint }>()
  if (missing.length > 0) {
    const wallet = createWalletClient({
      chain,
      transport,
      account,
      pollingInterval: client.pollingInterval,
      cacheTime: 0,
    })
    const gas = new Map<ContractName, bigint>()
    for (const contract of missing) {
      const estimate = await client
        .estimateGas({ account: account.address, to: deterministicDeployer.address, data: contract.deployData! })
        .catch((err: unknown) => {
          throw new DeployError(`Deploying ${contract.name} would fail`, {
            code: 'DEPLOY_FAILED',
            details: `estimating its gas failed: ${reason(err, rpcUrl)}`,
          })
        })
      // A margin over the estimate: CREATE2 inside a call passes on only 63/64 of the gas left.
      gas.set(contract.name, (estimate * 6n) / 5n)
    }
    // A chain without EIP-1559 (no base fee) is priced by its gas price.
    const price = await read(
      client
        .estimateFeesPerGas()
        .then((fees) => fees.maxFeePerGas)
        .catch(() => client.getGasPrice()),
      rpcUrl,
    )
    const totalGas = [...gas.values()].reduce((a, b) => a + b, 0n)
    const needed = totalGas * price
    const balance = await read(client.getBalance({ address: account.address }), rpcUrl)
    if (balance < needed) {
      throw new DeployError(
        `The deployer ${account.address} holds ${formatEther(balance)} ETH; deploying needs about ${formatEther(needed)} ETH`,
        {
          code: 'DEPLOY_UNFUNDED',
          details: `${missing.map((c) => c.name).join(', ')}: about ${totalGas} gas at up to ${formatGwei(price)} gwei. Send it at least ${formatEther(needed - balance)} ETH more on ${chainId} and run again (nothing was sent).`,
        },
      )
    }
    for (const contract of missing) {
      onProgress(`sending ${contract.name} (about ${gas.get(contract.name)} gas)`)
      const hash = await wallet
        .sendTransaction({
          account,
          chain,
          to: deterministicDeployer.address,
          data: contract.deployData!,
          gas: gas.get(contract.name)!,
        })
        .catch((err: unknown) => {
          throw new DeployError(`Sending ${contract.name}'s deployment failed`, {
            code: 'DEPLOY_FAILED',
            details: reason(err, rpcUrl),
          })
        })
      onProgress(`  ${hash}: waiting for ${confirmations} confirmation${confirmations === 1 ? '' : 's'}`)
      const receipt = await read(client.waitForTransactionReceipt({ hash, confirmations, timeout: 600_000 }), rpcUrl)
      if (receipt.status !== 'success') {
        throw new DeployError(`${contract.name}'s deployment reverted`, {
          code: 'DEPLOY_FAILED',
          details: `transaction ${hash} in block ${receipt.blockNumber}: the proxy's CREATE2 failed (out of gas?)`,
        })
      }
      sent.set(contract.name, { transactionHash: hash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed })
    }
  }

  // After the deployments, everything again: the receipts say a call succeeded, the code says what is there.
  for (const contract of plan.contracts) {
    if (!(await inspect({ client, plan, contract, chainNumber, rpcUrl }))) {
      throw new DeployError(`${contract.name} is not at ${contract.address} after its deployment`, {
        code: 'DEPLOY_FAILED',
        details: 'the transaction succeeded but left no code there',
      })
    }
  }
  onProgress('runtime code verified against the build (immutables masked, and read back)')

  const contracts = plan.contracts.map((c): DeployedContract => {
    const tx = sent.get(c.name)
    if (tx) return { name: c.name, address: c.address, outcome: 'deployed', ...tx }
    if (c.createdBy && sent.has(c.createdBy)) return { name: c.name, address: c.address, outcome: 'created' }
    return { name: c.name, address: c.address, outcome: 'present' }
  })
  return {
    chainId,
    deployer: { address: account.address, backend: account.backend },
    salt,
    confirmations,
    addresses: plan.addresses,
    contracts,
    transactions: sent.size,
  }
}

/** Whether the contract is there as built (true), absent (false); refuses anything else. */
async function inspect({
  client,
  plan,
  contract,
  chainNumber,
  rpcUrl,
}: {
  client: PublicClient
  plan: DeploymentPlan
  contract: PlannedContract
  chainNumber: number
  rpcUrl: string
}): Promise<boolean> {
  const code = await read(client.getCode({ address: contract.address }), rpcUrl)
  if (!code || code === '0x') return false
  if (!matchesRuntimeCode(code, contract.artifact)) {
    throw differs(
      contract,
      `its runtime code (${(code.length - 2) / 2} bytes) is not this build's (${(contract.artifact.deployedBytecode.length - 2) / 2} bytes, immutables masked)`,
    )
  }
  const problems = await checkImmutables({ client, plan, name: contract.name, chainId: chainNumber })
  if (problems.length > 0)
    throw differs(
      contract,
      `its code is this build's but its immutables are not this deployment's: ${problems.join('; ')}`,
    )
  return true
}

function differs(contract: PlannedContract, why: string): DeployError {
  return new DeployError(`Refusing: ${contract.name} at ${contract.address} differs from the build`, {
    code: 'DEPLOY_CODE_DIFFERS',
    details: `${why}. Nothing was sent. Someone put other code at this address (a node's setCode, another build): check the contracts' sources and version, or deploy a fresh set with another --salt.`,
  })
}

/** An RPC read whose failure says what failed, never the URL (it may carry a key). */
async function read<T>(promise: Promise<T>, rpcUrl: string): Promise<T> {
  try {
    return await promise
  } catch (err) {
    if (err instanceof DeployError) throw err
    throw new DeployError(`The RPC at ${redactUrl(rpcUrl)} failed`, {
      code: 'DEPLOY_RPC_UNREACHABLE',
      details: reason(err, rpcUrl),
    })
  }
}

function reason(err: unknown, rpcUrl: string): string {
  const e = err as { shortMessage?: string; details?: string; message?: string }
  const text = e.shortMessage ? `${e.shortMessage}${e.details ? ` (${e.details})` : ''}` : (e.message ?? String(err))
  return text.split(rpcUrl).join(redactUrl(rpcUrl)).split('\n')[0]!.slice(0, 300)
}
