// What a node's refusal of a transaction says.
import { BaseError } from 'viem'

/**
 * viem classifies node errors only on some paths (not for eth_sendRawTransaction), so match its
 * class where it did, and the node's own message where it did not.
 */
export function isNodeError(
  err: unknown,
  kind: (new (...args: never[]) => Error) | undefined,
  message: RegExp,
): boolean {
  if (!(err instanceof BaseError)) return false
  return Boolean(
    err.walk(
      (e) => (kind !== undefined && e instanceof kind) || (e instanceof BaseError && message.test(e.details ?? '')),
    ),
  )
}

/** The node has the transaction already: as good as accepted. */
export const isAlreadyKnown = (err: unknown) => isNodeError(err, undefined, /already known|known transaction/i)
