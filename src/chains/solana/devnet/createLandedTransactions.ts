// What getTransaction reads: every transaction the devnet's LiteSVM committed, as a node's ledger
// holds it. A success, and a failure whose fee LiteSVM took (it charges a transaction that fails in
// execution, as a cluster does one sent with skipPreflight; the front still answers its send with
// the simulation's error), with its error. A transaction refused before it ran (a bad blockhash or
// signature) took no fee and is not there. Answered as a node answers with `encoding: "base64"`:
// the transaction's bytes, its slot and time, and a `meta` with its error, fee (what the message
// sets: solanaFeeOf.ts), the lamports of its static accounts before and after, and the compute units
// it used. Kept for the last `limit` transactions, as a node keeps a limited history.
import {
  getBase64Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionEncoder,
  type Transaction,
} from '@solana/kit'
import { solanaFeeOf } from '../solanaFeeOf.ts'
import { RpcError } from './rpcError.ts'

type Landed = {
  slot: bigint
  blockTime: bigint
  wire: string
  version: 'legacy' | 0
  err: unknown
  fee: bigint
  preBalances: bigint[]
  postBalances: bigint[]
  computeUnitsConsumed: bigint
}

const messageDecoder = getCompiledTransactionMessageDecoder()
const base64 = getBase64Decoder()
const transactionEncoder = getTransactionEncoder()

export function createLandedTransactions({ limit = 10_000 }: { limit?: number } = {}) {
  const landed = new Map<string, Landed>()
  return {
    /** The static accounts of a transaction, whose lamports are read before and after it runs. */
    accountsOf(transaction: Transaction): readonly string[] {
      return messageDecoder.decode(transaction.messageBytes).staticAccounts
    },
    record(
      signature: string,
      transaction: Transaction,
      at: { slot: bigint; blockTime: bigint },
      outcome: { err: unknown; preBalances: bigint[]; postBalances: bigint[]; computeUnitsConsumed: bigint },
    ) {
      const wire = base64.decode(transactionEncoder.encode(transaction))
      landed.set(signature, {
        ...at,
        ...outcome,
        wire,
        // A versioned message's first byte has its top bit set.
        version: (transaction.messageBytes[0]! & 0x80) === 0 ? 'legacy' : 0,
        fee: solanaFeeOf(wire) ?? 0n,
      })
      if (landed.size > limit) landed.delete(landed.keys().next().value!)
    },
    getTransaction([signature, config]: unknown[]) {
      if (typeof signature !== 'string') throw new RpcError(-32602, 'Invalid params: expected a signature')
      const { encoding = 'json', maxSupportedTransactionVersion } = (config ?? {}) as {
        encoding?: string
        maxSupportedTransactionVersion?: number
      }
      if (encoding !== 'base64')
        throw new RpcError(-32602, `Invalid params: this devnet answers getTransaction in base64 only, not ${encoding}`)
      const found = landed.get(signature)
      if (!found) return null
      if (found.version === 0 && maxSupportedTransactionVersion === undefined)
        throw new RpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        )
      return {
        slot: found.slot,
        blockTime: found.blockTime,
        transaction: [found.wire, 'base64'],
        version: found.version,
        meta: {
          err: found.err,
          status: found.err === null ? { Ok: null } : { Err: found.err },
          fee: found.fee,
          preBalances: found.preBalances,
          postBalances: found.postBalances,
          innerInstructions: [],
          logMessages: null,
          preTokenBalances: [],
          postTokenBalances: [],
          rewards: [],
          loadedAddresses: { writable: [], readonly: [] },
          computeUnitsConsumed: found.computeUnitsConsumed,
        },
      }
    },
  }
}
