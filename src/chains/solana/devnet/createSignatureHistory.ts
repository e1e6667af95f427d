// What getSignaturesForAddress reads: every transaction that landed on the devnet, with the
// accounts it names, its slot and time. Answered newest first, as a node does, with its
// `limit` (at most 1,000), `before` and `until` signatures.
import { getCompiledTransactionMessageDecoder, type Transaction } from '@solana/kit'
import { RpcError } from './rpcError.ts'

type Entry = { signature: string; slot: bigint; blockTime: bigint; accounts: ReadonlySet<string> }

const messageDecoder = getCompiledTransactionMessageDecoder()

export function createSignatureHistory() {
  const entries: Entry[] = []
  return {
    record(signature: string, slot: bigint, blockTime: bigint, accounts: Iterable<string>) {
      entries.push({ signature, slot, blockTime, accounts: new Set(accounts) })
    },
    /** The accounts a transaction names (its static keys: this devnet has no lookup tables). */
    accountsOf(transaction: Transaction): string[] {
      return [...messageDecoder.decode(transaction.messageBytes).staticAccounts]
    },
    forAddress([address, config]: unknown[]) {
      if (typeof address !== 'string') throw new RpcError(-32602, 'Invalid params: expected an address')
      const { limit = 1000, before, until } = (config ?? {}) as { limit?: number; before?: string; until?: string }
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RpcError(-32602, 'Invalid limit; max 1000')
      const found: unknown[] = []
      let started = before === undefined
      for (let i = entries.length - 1; i >= 0 && found.length < limit; i--) {
        const e = entries[i]!
        if (e.signature === until) break
        if (!started) {
          started = e.signature === before
          continue
        }
        if (e.accounts.has(address))
          found.push({
            signature: e.signature,
            slot: e.slot,
            err: null,
            memo: null,
            blockTime: e.blockTime,
            confirmationStatus: 'finalized',
          })
      }
      return found
    },
  }
}
