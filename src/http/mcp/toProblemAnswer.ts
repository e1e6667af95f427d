// A refusal the MCP server answers itself, as the HTTP route would have answered the same
// request: the problem details body and the common headers plus the error's own (Retry-After).
import type { GatewayError } from '../../errors/gatewayError.ts'
import { getStatusCode } from '../../status/statusCodes.ts'
import type { GatewayContext } from '../gatewayContext.ts'
import { toProblemDetails } from '../problemDetails.ts'
import { toCommonHeaders } from '../toCommonHeaders.ts'
import type { RouteAnswer } from './toToolResult.ts'

export function toProblemAnswer(error: GatewayError, chain: { chainId: string; chainType: string }): RouteAnswer {
  const { httpStatus } = getStatusCode(error.status)
  const context: GatewayContext = { ...chain, intentHash: undefined, status: error.status }
  const body = toProblemDetails({
    httpStatus,
    status: error.status,
    title: error.shortMessage,
    detail: error.details,
    context,
  })
  // Refused before any body is read, as the route refuses it: the hash is the empty body's.
  const headers = { ...toCommonHeaders({ context, httpStatus, rawBody: undefined }), ...error.headers }
  // As sent over HTTP: without the fields that are undefined.
  return { httpStatus, headers, body: JSON.parse(JSON.stringify(body)) }
}
