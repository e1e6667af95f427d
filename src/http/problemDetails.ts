// RFC 9457 problem details: the body of every 4xx and 5xx response.
import type { FieldError } from '../errors/inputError.ts'
import { getStatusCode } from '../status/statusCodes.ts'
import type { GatewayContext } from './gatewayContext.ts'

export type ProblemDetails = {
  type: string
  title: string
  status: number
  detail: string
  erc1066Status: string
  statusName: string
  description: string
  intentHash: string | undefined
  chainType: string
  chainId: string
  errors?: FieldError[]
  [extension: string]: unknown
}

export function toProblemDetails(params: {
  httpStatus: number
  status: number
  title: string
  detail: string | undefined
  context: GatewayContext
  errors?: FieldError[]
}): ProblemDetails {
  const entry = getStatusCode(params.status)
  return {
    type: `urn:intent-gateway:problem:${entry.statusName.toLowerCase().replace(/_/g, '-')}`,
    title: params.title,
    status: params.httpStatus,
    detail: params.detail ?? entry.description,
    erc1066Status: entry.hex,
    statusName: entry.statusName,
    description: entry.description,
    intentHash: params.context.intentHash,
    chainType: params.context.chainType,
    chainId: params.context.chainId,
    ...(params.errors ? { errors: params.errors } : {}),
  }
}
