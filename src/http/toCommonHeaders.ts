// The headers every response carries (docs/api-contract.md §3), from what is known of the request:
// one function for the onSend hook and for the answers Fastify and Node give outside the hooks.
import type { Hex } from 'viem'
import { keccak256 } from '../crypto/keccak256.ts'
import { Status, toStatusHex } from '../status/statusCodes.ts'
import type { GatewayContext } from './gatewayContext.ts'

const emptyBodyHash = keccak256('0x')

export function toCommonHeaders({
  context,
  httpStatus,
  rawBody,
}: {
  context: GatewayContext
  httpStatus: number
  rawBody: Buffer | undefined
}): Record<string, string> {
  const status = toStatusHex(context.status ?? fallbackStatus(httpStatus))
  const intentHash: Hex = context.intentHash ?? (rawBody?.length ? keccak256(rawBody) : emptyBodyHash)
  return {
    'x-erc1066-status': status,
    'x-status-code': status,
    'x-intent-hash': intentHash,
    'x-chain-type': context.chainType,
    'x-chain-id': context.chainId,
    'x-payment-required': httpStatus === 402 ? 'true' : 'false',
  }
}

/** The code for a response no route described: a plain success, or the transport error's code. */
function fallbackStatus(code: number): number {
  if (code < 400) return Status.SUCCESS
  if (code === 404 || code === 405 || code === 501) return Status.UNSUPPORTED_ACTION
  if (code >= 500) return Status.GATEWAY_FAILURE
  return Status.INVALID_FORMAT
}
