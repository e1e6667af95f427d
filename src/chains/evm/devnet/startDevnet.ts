// The embedded devnet: anvil with Multicall3, the reference contracts, the demo policies and deposit, the demo
// payer's DemoDollar, and the chain and payments configuration that point the gateway at them.
import type { ChainConfig } from '../../../config/gatewayConfig.ts'
import type { PaymentsConfig } from '../../../config/paymentsConfig.ts'
import { type DeployedContracts, deployContracts } from './deployContracts.ts'
import { deployMulticall3 } from './deployMulticall3.ts'
import { devnetAccounts } from './devnetAccounts.ts'
import { type Demo, seedDemo } from './seedDemo.ts'
import { type Anvil, startAnvil } from './startAnvil.ts'

export type Devnet = {
  anvil: Anvil
  chain: ChainConfig
  contracts: DeployedContracts
  demo: Demo
  /** Execute priced at 0.01 DemoDollar, paid to the treasury, settled in-process by the facilitator account. */
  payments: PaymentsConfig
  stop(): Promise<void>
}

export async function startDevnet({
  blockTime,
  port,
  chainId,
  statePath,
}: {
  blockTime?: number
  port?: number
  chainId?: number
  statePath?: string
} = {}): Promise<Devnet> {
  const anvil = await startAnvil({
    ...(blockTime ? { blockTime } : {}),
    ...(port ? { port } : {}),
    ...(chainId ? { chainId } : {}),
    ...(statePath ? { statePath } : {}),
  })
  try {
    await deployMulticall3({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId })
    const contracts = await deployContracts({
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      deployerKey: devnetAccounts.deployer,
    })
    const demo = await seedDemo({
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      contracts,
      senderKey: devnetAccounts.sender,
    })
    return {
      anvil,
      contracts,
      demo,
      payments: {
        prices: {
          [`eip155:${anvil.chainId}`]: {
            execute: {
              network: `eip155:${anvil.chainId}`,
              payTo: demo.payment.payTo,
              price: {
                asset: demo.payment.asset,
                amount: '10000',
                extra: { name: demo.payment.name, version: demo.payment.version },
              },
              maxTimeoutSeconds: 300,
              // What 0.01 DemoDollar buys: a few calls' worth, not MAX_GAS_PER_EXECUTION's 5M.
              maxGas: 1_000_000n,
            },
          },
        },
        priceApiKeyClients: false,
        facilitator: { kind: 'local', privateKey: devnetAccounts.facilitator },
      },
      chain: {
        chainId: `eip155:${anvil.chainId}`,
        chainType: 'evm',
        reference: String(anvil.chainId),
        rpcUrls: [anvil.rpcUrl],
        executor: contracts.executor,
        validator: contracts.validator,
        registry: contracts.registry,
        accountDelegate: contracts.accountDelegate,
      },
      stop: () => anvil.stop(),
    }
  } catch (err) {
    await anvil.stop()
    throw err
  }
}
