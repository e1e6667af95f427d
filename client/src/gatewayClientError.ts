// The one error root of the client: transport faults and misuse, never a refused intent (those
// are values, see GatewayResult). Modelled on viem's BaseError: shortMessage, details, cause, code.

export type GatewayClientErrorCode =
  /** The gateway could not be reached (connection refused, DNS, TLS, reset). */
  | 'UNREACHABLE'
  /** No answer within the request's or the wait's time limit. */
  | 'TIMEOUT'
  /** The gateway answered something that is not the gateway's protocol (no JSON, no status code). */
  | 'BAD_RESPONSE'
  /** The intent given to the client is malformed; `field` names the culprit. */
  | 'INVALID_INTENT'
  /** A local argument is wrong (no account to sign with, an unknown chain runtime, ...). */
  | 'INVALID_ARGUMENT'
  /** The gateway does not serve what was asked (an older gateway: GET /accounts/{address}). */
  | 'UNSUPPORTED'

export class GatewayClientError extends Error {
  override name = 'GatewayClientError'
  readonly code: GatewayClientErrorCode
  readonly shortMessage: string
  readonly details: string | undefined
  readonly field: string | undefined

  constructor(
    shortMessage: string,
    options: {
      code: GatewayClientErrorCode
      details?: string | undefined
      field?: string | undefined
      cause?: unknown
    },
  ) {
    super(
      [shortMessage, options.details].filter(Boolean).join(': '),
      options.cause === undefined ? undefined : { cause: options.cause },
    )
    this.code = options.code
    this.shortMessage = shortMessage
    this.details = options.details
    this.field = options.field
  }

  /** This error and its causes, outermost first, until `predicate` holds (viem's walk). */
  walk(predicate?: (err: unknown) => boolean): unknown {
    let err: unknown = this
    while (err) {
      if (predicate?.(err)) return err
      const next = (err as { cause?: unknown }).cause
      if (!next) return predicate ? undefined : err
      err = next
    }
    return undefined
  }
}
