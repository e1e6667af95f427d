// Whether a settlement the node's status calls confirmed is in its ledger: the transaction itself,
// read back with getTransaction. An endpoint can call a transaction confirmed that it does not
// have (a lagging or lying RPC; the fault campaign's confirmation liar answers a send at once and
// calls it confirmed before the node has it): taken at its word, the paid intent runs, the node
// then refuses the settlement, and the relayer has paid for an execution nobody paid for. So a
// settlement counts as landed only once the node hands the transaction back with its outcome,
// a separate read from the status, as an execution counts only once its nonce record is on chain
// (chains/solana/actions/landedStatus.ts). A node that keeps no transaction history (no
// getTransaction, or "history not available") cannot say more than its status: there the status
// alone decides, as before.
import type { Signature } from '@solana/kit'
import type { toSolanaRpc } from './toSolanaRpc.ts'

export type SettlementInLedger =
  /** The node returned the transaction: it ran, `err` says how (null: it succeeded), and its fee payer paid `fee`. */
  | { found: true; err: unknown; fee: bigint }
  /** Not (yet) in the node's ledger, whatever its status says. */
  | { found: false }
  /** The node keeps no transaction history: only its status can be asked. */
  | { found: 'no history' }

/** JSON-RPC codes of a node without the method, or without transaction history (-32011). */
const noHistoryCodes = new Set([-32601, -32011])

export async function settlementInLedger(
  rpc: ReturnType<typeof toSolanaRpc>,
  signature: string,
): Promise<SettlementInLedger> {
  try {
    const found = await rpc
      .getTransaction(signature as Signature, {
        commitment: 'confirmed',
        encoding: 'base64',
        maxSupportedTransactionVersion: 0,
      })
      .send()
    return found?.meta ? { found: true, err: found.meta.err, fee: BigInt(found.meta.fee) } : { found: false }
  } catch (err) {
    const code = Number((err as { context?: { __code?: unknown } }).context?.__code)
    if (noHistoryCodes.has(code) || /method not found|history is not available/i.test(String((err as Error).message)))
      return { found: 'no history' }
    throw err
  }
}
