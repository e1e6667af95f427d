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
   * A fee payer whose sendTransactions are never held, expired or faulted (the paid phase's
   * facilitator: on the devnet, which has no getTransaction, a settlement whose send failed is taken
   * as failed on chain and its payer refused for the window). Its RPC faults are then injected by
   * the confirmation liar, which can tell them apart, instead of the fault proxy.
   */
  spared?: string
  /** The first request of an intent, whose answer may never come (the gateway is killed under it). */
  first(s: SolanaSent): Promise<unknown>
}
