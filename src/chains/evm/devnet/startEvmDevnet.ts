// The EVM part of the embedded devnet as a runtime module starts it (config/runtimeModule.ts):
// anvil with the contracts and the demo, the relayer key and x402 prices it supplies, and what
// the start-up banner says of it.
import { formatEther, formatUnits } from 'viem'
import type { RuntimeDevnet } from '../../../config/runtimeModule.ts'
import { demoCommands } from './demoCommands.ts'
import { createDevClients } from './deployContracts.ts'
import { devnetAccounts } from './devnetAccounts.ts'
import { startDevnet } from './startDevnet.ts'

export async function startEvmDevnet(): Promise<RuntimeDevnet> {
  const devnet = await startDevnet()
  return {
    chain: devnet.chain,
    isDefault: true,
    // Execute is priced in DemoDollar; the printed commands carry the devnet's API key, which is not charged.
    settings: {
      keys: [{ backend: 'local', secret: devnetAccounts.relayer, setting: 'RELAYER_PRIVATE_KEY' }],
      payments: devnet.payments,
    },
    async describe({ baseUrl, apiKey }) {
      return [
        `Devnet: anvil ${devnet.anvil.rpcUrl}, chain ${devnet.chain.chainId}`,
        `Contracts: validator ${devnet.contracts.validator}, executor ${devnet.contracts.executor}, registry ${devnet.contracts.registry}, demo counter ${devnet.contracts.counter}`,
        `Demo sender ${devnet.demo.sender} has deposited ${formatEther(devnet.demo.deposit)} ETH; its policies: open ${devnet.demo.policies.open}, mainnet-only ${devnet.demo.policies.mainnetOnly}`,
        `Account mode (EIP-7702): delegate (IntentAccount) ${devnet.contracts.accountDelegate}, shared ledger ${devnet.contracts.ledger}; the demo agent ${devnet.demo.account.agent} (anvil #7) holds ${formatUnits(devnet.demo.account.dollarBalance, 6)} DemoDollar in its own EOA and no deposit; its session key ${devnet.demo.account.sessionKey} (anvil #8); demo pool ${devnet.demo.account.swap} (1 ETH = 2000 DemoDollar)`,
        `x402: execute costs 0.01 DemoDollar (${devnet.contracts.dollar}) paid to ${devnet.demo.payment.payTo}; the demo payer ${devnet.demo.payment.payer} holds 1000 (anvil #4; its public devnet key, for an x402 client of your own: ${devnetAccounts.payer}). Devnet API key (not charged): ${apiKey}`,
        '',
        'Try these (EVM):',
        '',
        await demoCommands({
          baseUrl,
          chainId: devnet.chain.reference,
          executor: devnet.contracts.executor,
          senderKey: devnetAccounts.sender,
          demo: devnet.demo,
          apiKey,
          price: { network: devnet.chain.chainId, asset: devnet.contracts.dollar, label: '0.01 DemoDollar' },
          account: {
            agentKey: devnetAccounts.agent,
            sessionKey: devnetAccounts.sessionKey,
            // What the agent's authorization must carry: its nonce now (it is read when the banner is written).
            agentNonce: await createDevClients(
              devnet.anvil.rpcUrl,
              devnet.anvil.chainId,
            ).publicClient.getTransactionCount({ address: devnet.demo.account.agent }),
            recipient: devnet.demo.payment.payTo,
          },
        }),
      ].join('\n')
    },
    stop: () => devnet.stop(),
  }
}
