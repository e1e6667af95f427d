// What a node's error says, beyond viem's classes: that it lacks a method, or that its gas search
// found no limit that runs the call.

/** The node's gas search found no limit up to the one given that runs the call (geth: "gas required exceeds allowance"). */
export function isGasAboveAllowance(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const { message, details } = e as { message?: unknown; details?: unknown }
    if (
      /gas required exceeds|exceeds allowance|out of gas|intrinsic gas too low/i.test(
        `${String(message ?? '')} ${String(details ?? '')}`,
      )
    )
      return true
  }
  return false
}

/** A node that does not offer the method (not a dev node): JSON-RPC -32601, or a message saying so. */
export function isUnknownMethod(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const { code, message, details } = e as { code?: unknown; message?: unknown; details?: unknown }
    if (code === -32601 || code === -32600) return true
    if (
      /method not found|not supported|does not exist|unknown method|not available/i.test(
        `${String(message ?? '')} ${String(details ?? '')}`,
      )
    )
      return true
  }
  return false
}

/** The limit is below the transaction's intrinsic gas floor (EIP-7623, Prague): anvil "GasFloorMoreThanGasLimit", geth "floor data gas". */
export function isBelowGasFloor(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const { message, details } = e as { message?: unknown; details?: unknown }
    if (
      /GasFloorMoreThanGasLimit|floor data gas|intrinsic gas too high/i.test(
        `${String(message ?? '')} ${String(details ?? '')}`,
      )
    )
      return true
  }
  return false
}
