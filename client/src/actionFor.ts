// The next step an agent takes for an answer, from its HTTP status and ERC-1066 code.
import type { GatewayAction } from './gatewayResult.ts'

const paymentCodes = new Set(['0x52', '0x55'])
const retryStatuses = new Set([202, 429, 503])

export function actionFor({
  httpStatus,
  status,
  signing,
}: {
  httpStatus: number
  status: string
  signing?: unknown
}): GatewayAction {
  if (httpStatus === 402) {
    if (status === '0x54') return 'fund'
    return paymentCodes.has(status) ? 'pay' : 'deny'
  }
  if (status === '0xE5' || (status === '0xE4' && signing !== undefined)) return 'sign'
  if (retryStatuses.has(httpStatus) || status === '0xF8') return 'retry'
  if (httpStatus >= 200 && httpStatus < 300) return 'done'
  return 'deny'
}
