// GET /accounts/{address} on EVM: the account's code and nonce, read together, as account mode
// judges them: delegated when its code is exactly 0xef0100 ‖ this chain's account delegate. The
// nonce is the pending one, the one the gateway checks an authorization against.
import { type Address, getAddress, type Hex } from 'viem'
import type { AccountView } from '../../../ports/chainAdapter.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { delegationCode } from './accountMode.ts'
import { assertAvailable, type EvmContext } from './evmContext.ts'

export async function readAccount(ctx: EvmContext, address: string): Promise<AccountView> {
  assertAvailable(ctx)
  const { client, chain } = ctx
  const account = getAddress(address)
  let code: Hex
  let nonce: number
  try {
    ;[code, nonce] = await Promise.all([
      client.getCode({ address: account }).then((c) => (c ?? '0x').toLowerCase() as Hex),
      client.getTransactionCount({ address: account, blockTag: 'pending' }),
    ])
  } catch (err) {
    throw classifyRpcError(err, chain.chainId, `code and nonce read of ${account}`)
  }
  const delegate = chain.accountDelegate ? getAddress(chain.accountDelegate) : null
  // EIP-7702: a delegation is exactly 23 bytes, 0xef0100 then the address.
  const delegatedTo =
    code.length === 2 + 46 && code.startsWith('0xef0100') ? getAddress(`0x${code.slice(8)}` as Address) : null
  return {
    address: account,
    chainId: chain.chainId,
    accountDelegate: delegate,
    delegated: delegate !== null && code === delegationCode(delegate),
    delegatedTo,
    code: code === '0x' ? 'none' : delegatedTo ? 'delegation' : 'contract',
    nonce: nonce.toString(),
  }
}
