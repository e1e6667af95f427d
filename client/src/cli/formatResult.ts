// How the CLI prints results: JSON for scripts (bigints as decimal strings), aligned tables for people.
import type { GatewayResult } from '../gatewayResult.ts'

export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v), 2)
}

export function table(rows: [string, unknown][]): string {
  const shown = rows.filter(([, v]) => v !== undefined && v !== null && v !== '')
  const width = Math.max(0, ...shown.map(([k]) => k.length))
  return shown.map(([k, v]) => `${k.padEnd(width)}  ${typeof v === 'string' ? v : toJson(v)}`).join('\n')
}

/** What the CLI was asked to do, where it changes the advice. */
export type FormatContext = { paying?: boolean | undefined }

/** The next step for a result: a command or flag that works for this answer, never one that answers 404. */
export function nextStep(result: GatewayResult, { paying = false }: FormatContext = {}): string | undefined {
  const after = result.retryAfter === undefined ? '' : ` (Retry-After: ${result.retryAfter} s)`
  switch (result.action) {
    case 'retry':
      // Too early: nothing was sent, so there is no execution to ask about; the same request works later.
      if (result.status === '0x20')
        return `not valid yet: send the same request again once its validAfter has passed${after}`
      if (result.status === '0xF3' || result.status === '0xF8')
        return `not settled yet: wait for it with intent-gateway status ${result.intentHash ?? '<intentHash>'} --wait`
      return `not now: send the same request again later${after}`
    case 'pay': {
      if (!paying) return 'the gateway asks a price: set INTENT_PAYER_PRIVATE_KEY and pass --pay'
      // --pay was given and did not pay: the price is beyond the spend controls (an asset x402
      // does not know, or above --max-usd); name what to allow.
      const offer = firstOffer(result.paymentRequired)
      const allow = offer
        ? `--allow-asset ${offer.network}/${offer.asset}=${offer.amount}`
        : '--allow-asset <network>/<asset>[=<max atomic units>]'
      return `--pay did not pay this price (see payment error): allow its asset with ${allow}, or raise --max-usd`
    }
    case 'sign':
      return "the sender must sign: set INTENT_SIGNER_PRIVATE_KEY (the sender's or a delegate's key) and execute again"
    case 'fund':
      return "the sender's deposit or policy cap is short: fund it (see funding) and try again"
    default:
      // Account mode: the sender's code is not this chain's delegate (or is, but the authorization was skipped).
      if ((result.body as { type?: unknown }).type === 'urn:intent-gateway:problem:account-not-delegated') {
        return "the sender's account is not delegated to this chain's IntentAccount: see intent-gateway account <sender>; an EOA without code delegates on its next execute signed with its own key (INTENT_SIGNER_PRIVATE_KEY)"
      }
      return undefined
  }
}

function firstOffer(
  paymentRequired: Record<string, unknown> | undefined,
): { network: string; asset: string; amount: string } | undefined {
  const accepts = paymentRequired?.accepts
  const first: unknown = Array.isArray(accepts) ? accepts[0] : undefined
  if (typeof first !== 'object' || first === null) return undefined
  const { network, asset, amount } = first as Record<string, unknown>
  return typeof network === 'string' && typeof asset === 'string' && typeof amount === 'string'
    ? { network, asset, amount }
    : undefined
}

export function formatResult(result: GatewayResult, context: FormatContext = {}): string {
  const { action } = result
  return table([
    [
      'outcome',
      `${action.toUpperCase()}  HTTP ${result.httpStatus}  ${result.status} ${result.statusName ?? ''}`.trim(),
    ],
    ['description', result.description],
    ['detail', result.detail],
    ['intent hash', result.intentHash],
    ['chain', result.chainId ? `${result.chainId}${result.chainType ? ` (${result.chainType})` : ''}` : undefined],
    ['state', result.state],
    ['transaction', result.transactionHash],
    ['block', result.blockNumber?.toString()],
    ['gas used', result.gasUsed?.toString()],
    ['location', result.location],
    ['retry after', result.retryAfter === undefined ? undefined : `${result.retryAfter} s`],
    ...(result.errors ?? []).map((e): [string, string] => [`error`, `${e.field}: ${e.message}`]),
    ['funding', result.funding],
    ['payment', result.payment],
    ['payment error', result.paymentError],
    ['next step', nextStep(result, context)],
  ])
}
