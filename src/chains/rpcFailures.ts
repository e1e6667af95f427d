// How an endpoint pool tells a failed endpoint (no answer) from a node's answer that is an error,
// and how it names a failure in metrics and in /chains.
import { BaseError, HttpRequestError, TimeoutError } from 'viem'
import { ChainUnavailableError } from '../errors/chainUnavailableError.ts'
import type { RpcFailureKind } from '../metrics/createMetrics.ts'

/** No answer from the endpoint: it is set aside and the next one tried. */
export function isTransportFailure(err: unknown): boolean {
  return (
    err instanceof BaseError && Boolean(err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError))
  )
}

export function failureKind(err: unknown): RpcFailureKind {
  if (err instanceof BaseError && err.walk((e) => e instanceof TimeoutError)) return 'timeout'
  if (err instanceof ChainUnavailableError || isTransportFailure(err)) return 'unreachable'
  return 'node_error'
}

/** A failure in a few words, for an endpoint's lastError (redacted by the caller). */
export function describeFailure(err: unknown): string {
  if (err instanceof BaseError)
    return err.walk((e) => e instanceof TimeoutError) ? 'timed out' : err.details || err.shortMessage
  return (err as Error)?.message ?? String(err)
}
