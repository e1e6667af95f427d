// The reads of the Solana networks payments settle on that recovery needs: a settlement's status
// by its transaction id, the chain's time, and whether a blockhash has expired. Built over
// the endpoints the networks' runtime lends (ports/chainEndpoints.ts).
import type { Blockhash, Signature } from '@solana/kit'
import type { ChainReadsParameters } from '../paymentMechanism.ts'
import { settlementInLedger } from './settlementInLedger.ts'
import { solanaErrorText } from './solanaErrorText.ts'
import { toSolanaRpc } from './toSolanaRpc.ts'

/** What became of a Solana transaction: confirmed, failed on-chain, or not seen (yet). */
export type SolanaSettlementStatus =
  | { state: 'confirmed' }
  | { state: 'failed'; error: string }
  | { state: 'unknown'; seen?: boolean }

/** The Solana mechanism's reads of its networks, handed back to its recovery. */
export type SvmChainReads = {
  /** A network's answer on a transaction id. */
  solanaStatusOf(network: string, signature: string): Promise<SolanaSettlementStatus>
  /** A network's time, unix seconds (past a reservation's validBefore, its settlement can no longer land). */
  solanaNowOf(network: string): Promise<bigint>
  /** Whether a blockhash has expired by the network's finalized bank: no transaction with it can land from then on. */
  solanaBlockhashExpiredOf(network: string, blockhash: string): Promise<boolean>
}

export function createSvmChainReads({ endpointsOf, rpcTimeoutMs }: ChainReadsParameters): SvmChainReads {
  const rpcs = new Map<string, ReturnType<typeof toSolanaRpc>>()
  const rpcOf = (network: string) => {
    const lent = endpointsOf(network)
    if (!lent) throw new Error(`no RPC for ${network}`)
    let rpc = rpcs.get(network)
    if (!rpc) rpcs.set(network, (rpc = toSolanaRpc(lent, { timeoutMs: rpcTimeoutMs })))
    return rpc
  }
  return {
    // The chain's own time, as EVM's validBefore is compared with block.timestamp.
    async solanaNowOf(network) {
      const rpc = rpcOf(network)
      const time = await rpc.getBlockTime(await rpc.getSlot().send()).send()
      return time === null ? BigInt(Math.floor(Date.now() / 1000)) : BigInt(time)
    },
    async solanaStatusOf(network, signature): Promise<SolanaSettlementStatus> {
      const rpc = rpcOf(network)
      const { value } = await rpc
        .getSignatureStatuses([signature as Signature], { searchTransactionHistory: true })
        .send()
      const status = value[0]
      if (!status || (status.confirmationStatus !== 'confirmed' && status.confirmationStatus !== 'finalized'))
        return { state: 'unknown', seen: status !== null && status !== undefined }
      if (status.err) return { state: 'failed', error: solanaErrorText(status.err) }
      // A confirmed status is believed once the node hands the transaction back (settlementInLedger.ts);
      // until then it is seen, not settled, and a later pass decides.
      const inLedger = await settlementInLedger(rpc, signature)
      if (inLedger.found === false) return { state: 'unknown', seen: true }
      if (inLedger.found === true && inLedger.err !== null)
        return { state: 'failed', error: solanaErrorText(inLedger.err) }
      return { state: 'confirmed' }
    },
    // Expired by the finalized bank: every block from now on, on any fork, is past its last valid height.
    async solanaBlockhashExpiredOf(network, blockhash) {
      return !(
        await rpcOf(network)
          .isBlockhashValid(blockhash as Blockhash, { commitment: 'finalized' })
          .send()
      ).value
    },
  }
}
