// An account in a Solana node's JSON-RPC shape (getAccountInfo, getProgramAccounts): data in the
// asked encoding (base64 or base58), optionally a slice of it.
import { getBase58Decoder, type ReadonlyUint8Array } from '@solana/kit'
import { RpcError } from './rpcError.ts'

export type AccountEncodingConfig = { encoding?: string; dataSlice?: { offset: number; length: number } }

const base58 = getBase58Decoder()

type Account = { data: Uint8Array | ReadonlyUint8Array; executable: boolean; lamports: bigint; programAddress: string }

export function toRpcAccount(account: Account, config: AccountEncodingConfig | undefined) {
  const encoding = config?.encoding ?? 'base58'
  if (encoding !== 'base64' && encoding !== 'base58')
    throw new RpcError(-32602, `unsupported encoding ${encoding}: this devnet speaks base64 and base58`)
  const slice = config?.dataSlice
  const bytes = slice ? account.data.subarray(slice.offset, slice.offset + slice.length) : account.data
  const data =
    encoding === 'base64' ? [Buffer.from(bytes).toString('base64'), 'base64'] : [base58.decode(bytes), 'base58']
  return {
    data,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.programAddress,
    rentEpoch: 18446744073709551615n,
    space: BigInt(account.data.length),
  }
}
