// Reads a gateway response into a GatewayResult. A response that is not the gateway's protocol
// (no ERC-1066 status header, a body that is not JSON) is a transport fault, not a result.
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { Hex } from 'viem'
import { actionFor } from './actionFor.ts'
import { GatewayClientError } from './gatewayClientError.ts'
import type { GatewayResult } from './gatewayResult.ts'
import type { ChainType } from './intentInput.ts'

export async function toGatewayResult(
  response: Response,
  extra: { paymentError?: string } = {},
): Promise<GatewayResult> {
  const text = await response.text().catch((err: unknown) => {
    throw new GatewayClientError("The gateway's answer was cut off", { code: 'UNREACHABLE', cause: err })
  })
  let body: Record<string, unknown>
  try {
    body = text === '' ? {} : JSON.parse(text)
  } catch (err) {
    throw new GatewayClientError(
      `The answer from ${response.url || 'the gateway'} is not JSON (HTTP ${response.status})`,
      { code: 'BAD_RESPONSE', details: text.slice(0, 200), cause: err },
    )
  }
  const status = response.headers.get('x-erc1066-status') ?? str(body.erc1066Status)
  if (!status || typeof body !== 'object' || body === null) {
    throw new GatewayClientError(
      `The answer from ${response.url || 'the gateway'} carries no ERC-1066 status: is this an Intent Gateway?`,
      {
        code: 'BAD_RESPONSE',
        details: `HTTP ${response.status}`,
      },
    )
  }
  const signing = obj(body.signing)
  const paymentRequired = obj(body.paymentRequired)
  const httpStatus = response.status
  const action = actionFor({ httpStatus, status, signing })
  const location = response.headers.get('location')
  const retryAfter = Number(response.headers.get('retry-after'))
  const paymentHeader = response.headers.get('payment-response')
  const deposit = obj(obj(paymentRequired?.extensions)?.deposit)
  return {
    ok: action === 'done',
    action,
    httpStatus,
    status,
    statusName: str(body.statusName),
    description: str(body.description) ?? str(body.title),
    detail: str(body.detail),
    intentHash: (response.headers.get('x-intent-hash') ?? str(body.intentHash)) as Hex | undefined,
    chainId: response.headers.get('x-chain-id') || str(body.chainId),
    chainType: (response.headers.get('x-chain-type') || str(body.chainType) || undefined) as ChainType | undefined,
    location: location ? absolute(location, response.url) : undefined,
    retryAfter: Number.isFinite(retryAfter) && response.headers.has('retry-after') ? retryAfter : undefined,
    state: str(body.state),
    transactionHash: str(body.transactionHash) as Hex | undefined,
    blockNumber: big(body.blockNumber),
    gasUsed: big(body.gasUsed),
    replayed: body.replayed === true,
    errors: Array.isArray(body.errors) ? (body.errors as { field: string; message: string }[]) : undefined,
    signing,
    paymentRequired,
    funding:
      status === '0x54' && deposit
        ? { ...deposit, ...(big(deposit.amount) !== undefined ? { amount: big(deposit.amount) } : {}) }
        : undefined,
    payment: paymentHeader ? decodeSettlement(paymentHeader) : undefined,
    paymentError: extra.paymentError,
    body,
  }
}

function absolute(location: string, base: string): string {
  try {
    return new URL(location, base || undefined).toString()
  } catch {
    return location
  }
}

function decodeSettlement(header: string): Record<string, unknown> {
  try {
    return decodePaymentResponseHeader(header) as unknown as Record<string, unknown>
  } catch (err) {
    throw new GatewayClientError('The PAYMENT-RESPONSE header is not base64 JSON', { code: 'BAD_RESPONSE', cause: err })
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
const obj = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
const big = (v: unknown) =>
  typeof v === 'string' && /^\d+$/.test(v)
    ? BigInt(v)
    : typeof v === 'number' && Number.isSafeInteger(v)
      ? BigInt(v)
      : undefined
