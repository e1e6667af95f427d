// The CLI's exit codes: one per kind of outcome, so scripts can branch without parsing output.
import type { GatewayAction } from '../gatewayResult.ts'

export const exitCodes = {
  /** Done: validated, executed, settled (an executed intent sent again: its outcome, replayed). */
  success: 0,
  /** A bug in the CLI itself. */
  internal: 1,
  /** Bad usage: unknown command or flag, malformed intent, missing key or file. */
  usage: 2,
  /** Refused for good (403, 409 0x22 another intent on a used nonce, 410, 422 a revert, 400, ...). */
  refused: 3,
  /** The sender's signature is required or was refused (401 0xE5/0xE4). */
  signatureRequired: 4,
  /** The gateway asks an x402 price that was not paid (402 0x55/0x52). */
  paymentRequired: 5,
  /** The sender's deposit or policy cap is short (402 0x54). */
  fundsRequired: 6,
  /** Not settled yet or try later (202, a replayed 202 0xF3 in flight, 409 0xF8, 429, 503). */
  pending: 7,
  /** The gateway cannot be reached, timed out, or did not answer its protocol. */
  unreachable: 8,
} as const

export function exitCodeFor(action: GatewayAction): number {
  switch (action) {
    case 'done':
      return exitCodes.success
    case 'retry':
      return exitCodes.pending
    case 'pay':
      return exitCodes.paymentRequired
    case 'sign':
      return exitCodes.signatureRequired
    case 'fund':
      return exitCodes.fundsRequired
    case 'deny':
      return exitCodes.refused
  }
}
