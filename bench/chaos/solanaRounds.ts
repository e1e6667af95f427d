// What the Solana rounds of the fault campaign (solanaKillRounds, blockhashRound, lyingRound,
// solanaFaultRound) work with, shared by the free and the paid Solana phases.
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import type { SolanaSent } from './solanaTally.ts'
import type { SolanaNode } from './startSolanaNode.ts'

export type SolanaRounds = {
  devnet: SolanaDevnet
  node: SolanaNode
  scenario: string
  /** `count` new signed intents, remembered by the phase. */
  make(count: number, label: string): SolanaSent[]
  /** Sends one intent until it is answered (the phase's client: free or paying). */
  deliver(s: SolanaSent): Promise<void>
  /**
   * The paid phase's facilitator: its sendTransactions (the settlements) are held by the blockhash
   * round only when it is run on the settlements, whose blockhash is the payer's (the gateway cannot
   * re-sign them). Settlements also meet an expiry under the lying endpoint's late sends, and the RPC
   * fault round faults their sends too: a settlement whose answer is lost waits for its confirmation.
   */
  spared?: string
  /** The first request of an intent, whose answer may never come (the gateway is killed under it). */
  first(s: SolanaSent): Promise<unknown>
}
