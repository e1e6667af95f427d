// Account mode (EIP-7702): the intent runs from the sender's own address through this chain's
// IntentAccount delegate. Before anything is simulated or sent: the sender's code must be
// 0xef0100 ‖ delegate, or empty with an authorization the gateway checked itself (its signer is
// the sender, this chain, this delegate, the sender's current nonce, a low s). The relayer never
// signs a type-4 transaction whose authorization it did not check.
import { type Address, concatHex, getAddress, type Hex, isAddressEqual } from 'viem'
import { recoverAuthorizationAddress } from 'viem/utils'
import { type FieldError, InputError } from '../../../errors/inputError.ts'
import type { AccountAuthorization, AccountMode, Intent } from '../../../ports/intent.ts'
import { Status } from '../../../status/statusCodes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import type { EvmContext } from './evmContext.ts'
import { forbiddenTarget } from './forbiddenTarget.ts'

export const accountNotDelegatedType = 'urn:intent-gateway:problem:account-not-delegated'

/** Half the secp256k1 order: a higher s is the other signature of the same key (EIP-2). */
const halfOrder = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

/** Ready: where to send, the code to simulate the sender with when not delegated yet, the authorization to carry. */
/** `code`: 0xef0100 ‖ delegate, the sender's code once its authorization applies (simulated as a state override). */
export type AccountPlan = {
  ok: true
  account: Address
  delegate: Address
  code: Hex
  delegated: boolean
  authorization: SignedAuthorization | undefined
}
/** `errors`: the call a refusal concerns (`target`, or `calls[i]` in a batch). */
export type AccountRefusal = {
  ok: false
  status: number
  detail: string
  problemType?: string | undefined
  errors?: FieldError[] | undefined
}
export type SignedAuthorization = { chainId: number; address: Address; nonce: number; yParity: number; r: Hex; s: Hex }

export const delegationCode = (delegate: Address): Hex => concatHex(['0xef0100', delegate]).toLowerCase() as Hex

/** Reads the sender's code (and nonce, with an authorization) and checks the authorization; throws InputError (4xx naming the field). */
export async function planAccount(
  ctx: EvmContext,
  intent: Intent,
  mode: AccountMode,
): Promise<AccountPlan | AccountRefusal> {
  const { chain, client, viemChain } = ctx
  if (!chain.accountDelegate)
    throw new InputError('The intent is not valid', {
      errors: [{ field: 'mode', message: `chain ${chain.chainId} has no account delegate configured` }],
    })
  const delegate = getAddress(chain.accountDelegate)
  const account = getAddress(intent.sender)
  const code = delegationCode(delegate)
  // A call to the account, the registry, the ledger, the executor or the delegate: refused whoever signed.
  const forbidden = await forbiddenTarget(ctx, intent, delegate)
  if (forbidden) return forbidden
  let current: Hex
  try {
    current = ((await client.getCode({ address: account })) ?? '0x').toLowerCase() as Hex
  } catch (err) {
    throw classifyRpcError(err, chain.chainId, 'code read of the sender')
  }
  const refusal = (detail: string): AccountRefusal => ({
    ok: false,
    status: Status.DISALLOWED,
    detail,
    problemType: accountNotDelegatedType,
  })
  if (current === code) return { ok: true, account, delegate, code, delegated: true, authorization: undefined }
  if (current !== '0x') {
    const elsewhere = current.startsWith('0xef0100')
      ? `delegated to ${getAddress(`0x${current.slice(8, 48)}`)}`
      : 'a contract'
    return refusal(
      `in account mode the sender's code must be 0xef0100 ‖ this chain's account delegate ${delegate}, or empty with an authorization; ${account} is ${elsewhere}: nothing was sent`,
    )
  }
  if (!mode.authorization) {
    return refusal(
      `${account} is not delegated to this chain's account delegate ${delegate}: send its EIP-7702 authorization (chainId ${viemChain.id}, address ${delegate}, its current nonce) as \`authorization\`; nothing was sent`,
    )
  }
  const authorization = await checkAuthorization(ctx, account, delegate, mode.authorization)
  return { ok: true, account, delegate, code, delegated: false, authorization }
}

async function checkAuthorization(
  ctx: EvmContext,
  account: Address,
  delegate: Address,
  a: AccountAuthorization,
): Promise<SignedAuthorization> {
  const { viemChain, client, chain } = ctx
  const refuse = (field: string, message: string, status?: number): never => {
    throw new InputError('The authorization is not one this gateway sponsors', {
      errors: [{ field: `authorization.${field}`, message }],
      ...(status ? { status } : {}),
    })
  }
  if (a.yParity !== 0 && a.yParity !== 1) refuse('yParity', 'must be 0 or 1')
  if (BigInt(a.s) > halfOrder) refuse('s', 'is in the upper half of the curve order (EIP-2): sign again')
  if (BigInt(a.r) === 0n || BigInt(a.s) === 0n) refuse(BigInt(a.r) === 0n ? 'r' : 's', 'must not be zero')
  if (a.chainId === 0)
    refuse(
      'chainId',
      'is 0, valid on every chain (replayable on any chain where the delegate address holds other code): sign it for this chain',
      Status.DISALLOWED,
    )
  if (a.chainId !== viemChain.id)
    refuse('chainId', `is ${a.chainId}, not this chain's ${viemChain.id}`, Status.DISALLOWED)
  if (!isAddressEqual(a.address as Address, delegate))
    refuse('address', `is not this chain's account delegate ${delegate}`, Status.DISALLOWED)
  const signed: SignedAuthorization = {
    chainId: a.chainId,
    address: getAddress(a.address),
    nonce: a.nonce,
    yParity: a.yParity,
    r: a.r,
    s: a.s,
  }
  let signer: Address
  try {
    signer = await recoverAuthorizationAddress({
      authorization: {
        address: signed.address,
        chainId: signed.chainId,
        nonce: signed.nonce,
        r: a.r,
        s: a.s,
        yParity: a.yParity,
      },
    })
  } catch {
    return refuse('r', 'is not a signature of this authorization')
  }
  if (!isAddressEqual(signer, account))
    refuse('r', `signed by ${signer}, not by the sender ${account}`, Status.DISALLOWED)
  let nonce: number
  try {
    nonce = await client.getTransactionCount({ address: account, blockTag: 'pending' })
  } catch (err) {
    throw classifyRpcError(err, chain.chainId, 'nonce read of the sender')
  }
  if (a.nonce !== nonce)
    refuse('nonce', `is ${a.nonce}, not the sender's current account nonce ${nonce}`, Status.DISALLOWED)
  return signed
}
