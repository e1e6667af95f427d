// Signs EIP-3009 authorizations for DemoDollar directly, for tests that need one the x402 client
// would not make (expired, wrong signer, cancelled).

import { randomBytes } from 'node:crypto'
import { type Address, type Hex, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

export type Authorization = {
  from: Address
  to: Address
  value: bigint
  validAfter: bigint
  validBefore: bigint
  nonce: Hex
}

const transferTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

export function tokenDomain(token: { asset: Address; name: string; version: string }, chainId: number) {
  return { name: token.name, version: token.version, chainId, verifyingContract: token.asset } as const
}

export function newAuthorization(params: {
  from: Address
  to: Address
  value: bigint
  validBefore?: bigint
  validAfter?: bigint
}): Authorization {
  return {
    from: params.from,
    to: params.to,
    value: params.value,
    validAfter: params.validAfter ?? 0n,
    validBefore: params.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: toHex(randomBytes(32)),
  }
}

export function signTransferAuthorization(
  key: Hex,
  domain: ReturnType<typeof tokenDomain>,
  authorization: Authorization,
  primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization' = 'TransferWithAuthorization',
): Promise<Hex> {
  const types =
    primaryType === 'TransferWithAuthorization'
      ? transferTypes
      : { ReceiveWithAuthorization: transferTypes.TransferWithAuthorization }
  return privateKeyToAccount(key).signTypedData({ domain, types, primaryType, message: authorization } as never)
}

export function signCancelAuthorization(key: Hex, domain: ReturnType<typeof tokenDomain>, nonce: Hex): Promise<Hex> {
  const account = privateKeyToAccount(key)
  return account.signTypedData({
    domain,
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization',
    message: { authorizer: account.address, nonce },
  })
}
