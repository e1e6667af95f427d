// The one error root of the gateway, modelled on viem's BaseError: a short message for people,
// a stable code for programs, the ERC-1066 status that describes the failure, and a cause chain.
import { Status } from '../status/statusCodes.ts'

export type GatewayErrorParameters = {
  code: string
  status?: number | undefined
  details?: string | undefined
  cause?: unknown
  /** Headers the HTTP layer must add (Retry-After, Allow, WWW-Authenticate ...). */
  headers?: Record<string, string> | undefined
}

export class GatewayError extends Error {
  override name = 'GatewayError'
  readonly shortMessage: string
  readonly code: string
  /** The ERC-1066 byte that describes this failure; the HTTP status derives from it. */
  readonly status: number
  readonly details: string | undefined
  readonly headers: Record<string, string>

  constructor(shortMessage: string, params: GatewayErrorParameters) {
    super(params.details ? `${shortMessage}\n\nDetails: ${params.details}` : shortMessage, {
      cause: params.cause,
    })
    this.shortMessage = shortMessage
    this.code = params.code
    this.status = params.status ?? Status.GATEWAY_FAILURE
    this.details = params.details
    this.headers = params.headers ?? {}
  }

  /** Walks the cause chain; returns the first error `fn` accepts, or the deepest one. */
  walk(fn?: (err: unknown) => boolean): unknown {
    let current: unknown = this
    while (current) {
      if (fn?.(current)) return current
      const next = (current as { cause?: unknown }).cause
      if (!next) return fn ? undefined : current
      current = next
    }
    return undefined
  }
}
