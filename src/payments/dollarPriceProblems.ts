// A price given in dollars ("$0.01") is paid in the USDC x402 knows on its network; on a network
// where it knows none, the price is refused at start-up naming its setting. Checked here, with
// x402's own table (@x402/evm's getDefaultAsset), rather than in config/paymentsConfig.ts: the
// configuration is read by every gateway, and x402's EVM package is loaded only by one that takes
// payments (createGateway imports payments/startPayments.ts only then).
import { getDefaultAsset } from '@x402/evm'
import type { PaymentsConfig } from '../config/paymentsConfig.ts'

export function dollarPriceProblems(prices: PaymentsConfig['prices']): string[] {
  const problems: string[] = []
  for (const [chainId, routes] of Object.entries(prices)) {
    for (const [route, price] of Object.entries(routes)) {
      if (!price || typeof price.price !== 'string') continue
      try {
        getDefaultAsset(price.network as `${string}:${string}`)
      } catch {
        problems.push(
          `X402_PRICES["${chainId.slice(0, 60)}"].${route}.price: x402 knows no USDC on ${price.network}; give "asset", "amount" and "extra": {"name","version"} instead`,
        )
      }
    }
  }
  return problems
}
