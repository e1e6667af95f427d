// Pays a 402 that carries the gateway's price (0x55/0x52) with @x402/fetch, replaying the 402
// already received so the intent is not sent once more unpaid. A 402 0x54 never comes here.
import { x402Client } from '@x402/core/client'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { GatewayClientError } from './gatewayClientError.ts'
import type { PaymentOptions } from './paymentOptions.ts'

export type Payer = {
  /** The paid answer, or why the price was not paid (spend controls, no scheme for the network). */
  pay(unpaid: Response, url: string, init: RequestInit): Promise<{ response: Response } | { paymentError: string }>
}

/** x402's own refusals to pay, as opposed to transport faults while paying. */
const refusals = /^Failed to (create payment payload|parse payment requirements)/

export function createPayer(options: PaymentOptions, fetchImpl: typeof fetch): Payer | undefined {
  let client = options.x402Client
  if (!client && options.signer) {
    client = new x402Client()
    registerExactEvmScheme(client, {
      signer: options.signer,
      ...(options.networks ? { networks: options.networks } : {}),
    })
  }
  if (!client) return undefined
  if (options.spendControls !== undefined) client.setSpendControls(options.spendControls)
  const payer = client
  return {
    async pay(unpaid, url, init) {
      let replayed = false
      const replayFirst: typeof fetch = async (input, requestInit) => {
        if (!replayed) {
          replayed = true
          return unpaid
        }
        return fetchImpl(input, requestInit)
      }
      try {
        return { response: await wrapFetchWithPayment(replayFirst, payer)(url, init) }
      } catch (err) {
        if (err instanceof GatewayClientError) throw err
        const message = err instanceof Error ? err.message : String(err)
        if (refusals.test(message)) return { paymentError: message }
        throw new GatewayClientError("Paying the gateway's price failed", {
          code: 'UNREACHABLE',
          details: message,
          cause: err,
        })
      }
    },
  }
}
