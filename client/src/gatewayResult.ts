// What every call answers with: the outcome as a value, refused intents included.
import type { Hex } from 'viem'
import type { ChainType } from './intentInput.ts'

/**
 * What to do next:
 * - `done`: the gateway did what was asked (validated, executed, or found the execution settled);
 * - `retry`: not now (submitted and unconfirmed, too early, in flight, rate-limited, chain
 *   unreachable): `retryAfter` and `location` say when and where;
 * - `pay`: the gateway asks an x402 price (0x55/0x52) and the client did not pay it (no payment
 *   signer, or the price is beyond the spend controls: `paymentError`);
 * - `sign`: the sender's signature is required or was refused (0xE5, or 0xE4 with `signing`);
 * - `fund`: the chain says the sender's deposit or policy cap is short (0x54): `funding`;
 * - `deny`: refused for good (bad input, disallowed, expired, reverted, another intent on a used
 *   nonce, ...). A repeat of an executed intent is `done` (`replayed`), not refused.
 */
export type GatewayAction = 'done' | 'retry' | 'pay' | 'sign' | 'fund' | 'deny'

export type GatewayResult<TBody = Record<string, unknown>> = {
  ok: boolean
  action: GatewayAction
  httpStatus: number
  /** The ERC-1066 code, 0x + two upper-case hex digits. */
  status: string
  statusName: string | undefined
  description: string | undefined
  detail: string | undefined
  intentHash: Hex | undefined
  chainId: string | undefined
  chainType: ChainType | undefined
  /** Absolute URL to poll while an execution is unconfirmed (202 0xF3). */
  location: string | undefined
  /** Seconds to wait, from Retry-After. */
  retryAfter: number | undefined
  /** Execution fields, when a transaction exists. */
  state: string | undefined
  transactionHash: Hex | undefined
  blockNumber: bigint | undefined
  gasUsed: bigint | undefined
  /**
   * A repeat of an intent the gateway sent already: its one outcome answered again (nothing sent
   * or charged). An agent whose first answer was lost learns the outcome this way.
   */
  replayed: boolean
  /** Input errors of a 4xx: the field and what is wrong with it. */
  errors: { field: string; message: string }[] | undefined
  /** With 0xE5 and 0xE4: what the sender must sign (EVM: EIP-712 typed data). */
  signing: Record<string, unknown> | undefined
  /** With 402: the x402 PaymentRequired object. */
  paymentRequired: Record<string, unknown> | undefined
  /** With 0x54: how to fund the intent (the deposit extension: executor, function, sender, amount). */
  funding: (Record<string, unknown> & { amount?: bigint | undefined }) | undefined
  /** The decoded PAYMENT-RESPONSE settlement when this request was paid. */
  payment: Record<string, unknown> | undefined
  /** Why a price was not paid (spend controls, no scheme for the network). */
  paymentError: string | undefined
  /** The whole parsed body. */
  body: TBody
}
