// The embedded devnet: anvil, the reference contracts, the demo policies and deposit, and the
// chain configuration that points the gateway at them.
import type { ChainConfig } from '../config/loadConfig.ts'
import { deployContracts, type DeployedContracts } from './deployContracts.ts'
import { devnetAccounts } from './devnetAccounts.ts'
import { type Demo, seedDemo } from './seedDemo.ts'
import { type Anvil, startAnvil } from './startAnvil.ts'

export type Devnet = {
  anvil: Anvil
  chain: ChainConfig
  contracts: DeployedContracts
  demo: Demo
  stop(): Promise<void>
}

export async function startDevnet({ blockTime, port, chainId, statePath }: { blockTime?: number; port?: number; chainId?: number; statePath?: string } = {}): Promise<Devnet> {
  const anvil = await startAnvil({ ...(blockTime ? { blockTime } : {}), ...(port ? { port } : {}), ...(chainId ? { chainId } : {}), ...(statePath ? { statePath } : {}) })
  try {
    const contracts = await deployContracts({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, deployerKey: devnetAccounts.deployer })
    const demo = await seedDemo({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, contracts, senderKey: devnetAccounts.sender })
    return {
      anvil,
      contracts,
      demo,
      chain: {
        chainId: `eip155:${anvil.chainId}`,
        chainType: 'evm',
        reference: String(anvil.chainId),
        rpcUrls: [anvil.rpcUrl],
        executor: contracts.executor,
        validator: contracts.validator,
        registry: contracts.registry,
      },
      stop: () => anvil.stop(),
    }
  } catch (err) {
    await anvil.stop()
    throw err
  }
}
