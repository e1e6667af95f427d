// The EIP-712 typed data a sender signs on an EVM chain. Executor mode: the domain the gateway
// describes for that chain (GET /chains/{chainId}, `signing.domain`: IntentExecutor). Account
// mode: the sender's own account, { name: "IntentAccount", version: "1", chainId,
// verifyingContract: sender }, for a single call (Intent) or a batch (BatchIntent).
import { type Address, getAddress } from 'viem'
import type { ChainDescription } from '../chainDescription.ts'
import { GatewayClientError } from '../gatewayClientError.ts'
import type { AnyIntentBody, BatchIntentBody, IntentBody } from '../intentInput.ts'
import { batchIntentTypes } from './batchIntentTypes.ts'
import { evmChainNumber } from './evmChainNumber.ts'
import { intentTypes } from './intentTypes.ts'
import { toEvmBatch } from './toEvmBatch.ts'
import { toEvmIntent } from './toEvmIntent.ts'

type Chain = Pick<ChainDescription, 'chainId' | 'signing'> & { reference?: string | undefined }

export function evmTypedData(body: IntentBody, chain: Chain): ReturnType<typeof intentTypedData>
export function evmTypedData(body: BatchIntentBody, chain: Chain): ReturnType<typeof batchTypedData>
export function evmTypedData(
  body: AnyIntentBody,
  chain: Chain,
): ReturnType<typeof intentTypedData> | ReturnType<typeof batchTypedData>
export function evmTypedData(body: AnyIntentBody, chain: Chain) {
  if (body.calls !== undefined) return batchTypedData(body, chain)
  return intentTypedData(body, chain)
}

function intentTypedData(body: IntentBody, chain: Chain) {
  return {
    domain: domainFor(body, chain),
    types: intentTypes,
    primaryType: 'Intent',
    message: toEvmIntent(body),
  } as const
}

function batchTypedData(body: BatchIntentBody, chain: Chain) {
  return {
    domain: accountDomain(body, chain),
    types: batchIntentTypes,
    primaryType: 'BatchIntent',
    message: toEvmBatch(body),
  } as const
}

function domainFor(body: AnyIntentBody, chain: Chain) {
  if (body.mode === 'account') return accountDomain(body, chain)
  const domain = chain.signing?.domain
  if (!domain)
    throw new GatewayClientError(`Chain ${chain.chainId} describes no EIP-712 domain`, { code: 'INVALID_ARGUMENT' })
  return {
    name: domain.name,
    version: domain.version,
    chainId: Number(domain.chainId),
    verifyingContract: getAddress(domain.verifyingContract) as Address,
  }
}

/** The account's own domain: it binds the chain and the account, so no other account or chain accepts the signature. */
function accountDomain(body: AnyIntentBody, chain: Chain) {
  let sender: Address
  try {
    sender = getAddress(body.sender)
  } catch (err) {
    throw new GatewayClientError(`The intent's sender ${body.sender} is not an EVM address`, {
      code: 'INVALID_INTENT',
      field: 'sender',
      cause: err,
    })
  }
  return { name: 'IntentAccount', version: '1', chainId: evmChainNumber(chain), verifyingContract: sender } as const
}
