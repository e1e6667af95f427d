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

const nextSteps = {
  done: undefined,
  retry: 'not settled yet: wait and ask again (intent-gateway status <intentHash> --wait)',
  pay: 'the gateway asks a price: set INTENT_PAYER_PRIVATE_KEY and pass --pay',
  sign: 'the sender must sign: set INTENT_SIGNER_PRIVATE_KEY (the sender\'s or a delegate\'s key) and execute again',
  fund: 'the sender\'s deposit or policy cap is short: fund it (see funding) and try again',
  deny: undefined,
} as const

export function formatResult(result: GatewayResult): string {
  const { action } = result
  return table([
    ['outcome', `${action.toUpperCase()}  HTTP ${result.httpStatus}  ${result.status} ${result.statusName ?? ''}`.trim()],
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
    ['next step', nextSteps[action]],
  ])
}
