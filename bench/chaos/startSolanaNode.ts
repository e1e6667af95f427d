// A gateway of the fault campaign serving only the campaign's Solana devnet (LiteSVM behind its
// JSON-RPC front, started by the campaign, never inside a gateway it kills), as a user runs it
// (`node --import tsx src/main.ts`), on SQLite: gateway → confirmation liar → fault proxy → devnet.
import { join } from 'node:path'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { solanaChainEnv } from '../../test/support/solanaPayments.ts'
import type { Campaign, CampaignNode } from './campaign.ts'
import { type ConfirmationLiar, startConfirmationLiar } from './confirmationLiar.ts'
import { startFaultProxy } from './faultProxy.ts'
import { gatewayInstance } from './gatewayInstance.ts'

export type SolanaNode = CampaignNode & { liar: ConfirmationLiar }

/** `paid`: execute priced in the devnet's DemoDollar (the in-process facilitator settles); else free. */
export async function startSolanaNode(
  campaign: Campaign,
  devnet: SolanaDevnet,
  name: string,
  { journalPath, paid }: { journalPath: string; paid: boolean },
): Promise<SolanaNode> {
  const proxy = await startFaultProxy({ target: devnet.rpcUrl })
  campaign.cleanups.push(() => proxy.close())
  const liar = await startConfirmationLiar({ target: proxy.url, random: campaign.random })
  campaign.cleanups.push(() => liar.close())
  const { X402_PRICES, FACILITATOR_SOLANA_PRIVATE_KEY, ...chain } = solanaChainEnv(devnet, { rpcUrl: liar.url })
  const env = {
    ...chain,
    ...(paid ? { X402_PRICES: X402_PRICES!, FACILITATOR_SOLANA_PRIVATE_KEY: FACILITATOR_SOLANA_PRIVATE_KEY! } : {}),
    JOURNAL_PATH: journalPath,
    LOG_LEVEL: 'info',
    RECEIPT_TIMEOUT_MS: '8000',
    RECEIPT_POLL_MS: '100',
    RPC_TIMEOUT_MS: '1500',
    RECONCILE_INTERVAL_MS: '500',
    MAX_CONNECTIONS_PER_CLIENT: '10000',
    RATE_LIMIT_MAX: '1000000',
    STANDING_MAX_REVERTS_PER_SENDER: '0',
    STANDING_MAX_REVERTS_PER_CLIENT: '0',
  }
  const instance = gatewayInstance(name, env, join(campaign.logDir, `${name}.log`))
  campaign.cleanups.push(() => instance.stop())
  await instance.start()
  const node: SolanaNode = { instance, proxy, liar, restarts: 0 }
  campaign.nodes.push(node)
  return node
}
