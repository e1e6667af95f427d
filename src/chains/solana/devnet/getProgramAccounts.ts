// getProgramAccounts as a Solana node answers it: the accounts a program owns, narrowed by
// `dataSize` and `memcmp` filters (bytes in base58, or base64 when said), each as
// `{ pubkey, account }`; `withContext` wraps the list in `{ context, value }`.
import { type Address, getBase58Encoder, type ReadonlyUint8Array } from '@solana/kit'
import type { LiteSVM } from 'litesvm'
import { RpcError } from './rpcError.ts'
import { type AccountEncodingConfig, toRpcAccount } from './toRpcAccount.ts'

type Filter = { dataSize?: number; memcmp?: { offset: number; bytes: string; encoding?: string } }
type Config = AccountEncodingConfig & { filters?: Filter[]; withContext?: boolean }

const fromBase58 = getBase58Encoder()

function matches(data: ReadonlyUint8Array, filter: Filter): boolean {
  if (filter.dataSize !== undefined) return data.length === filter.dataSize
  if (filter.memcmp) {
    const { offset, bytes, encoding = 'base58' } = filter.memcmp
    if (typeof offset !== 'number' || typeof bytes !== 'string')
      throw new RpcError(-32602, 'Invalid params: memcmp needs an offset and bytes')
    const wanted = encoding === 'base64' ? Buffer.from(bytes, 'base64') : Buffer.from(fromBase58.encode(bytes))
    return Buffer.from(data.subarray(offset, offset + wanted.length)).equals(wanted)
  }
  throw new RpcError(-32602, 'Invalid params: a filter is dataSize or memcmp')
}

export function getProgramAccounts(svm: LiteSVM, [programId, config]: unknown[], context: () => unknown): unknown {
  if (typeof programId !== 'string') throw new RpcError(-32602, 'Invalid params: expected a program id')
  const options = (config ?? {}) as Config
  const filters = options.filters ?? []
  if (filters.length > 4) throw new RpcError(-32602, 'Too many filters provided; max 4')
  const list = svm
    .getProgramAccounts(programId as Address)
    .filter((account) => filters.every((filter) => matches(account.data, filter)))
    .map((account) => ({ pubkey: account.address, account: toRpcAccount(account, options) }))
  return options.withContext ? { context: context(), value: list } : list
}
