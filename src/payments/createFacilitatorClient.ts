// The x402 facilitator the gateway verifies and settles with: in-process (x402's own facilitator
// with the exact EVM scheme, sending from its own key) or a remote one by URL. Either way a
// payment that does not verify is a value, and a facilitator that cannot answer is a
// FacilitatorUnavailableError.
import { x402Facilitator } from '@x402/core/facilitator'
import { HTTPFacilitatorClient, type FacilitatorClient } from '@x402/core/server'
import { SettleError, VerifyError, type Network } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator'
import type { Logger } from 'pino'
import { createWalletClient, defineChain, http, nonceManager, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { FacilitatorConfig } from '../config/paymentsConfig.ts'
import { FacilitatorUnavailableError } from './facilitatorUnavailableError.ts'

export type CreateFacilitatorClientParameters = {
  config: FacilitatorConfig
  /** The RPC endpoint of each network the in-process facilitator settles on. */
  rpcUrls: Record<Network, string>
  logger: Logger
  /** How long one verify or settle may take before the facilitator counts as unavailable. */
  timeoutMs?: number
}

export function createFacilitatorClient({ config, rpcUrls, logger, timeoutMs = 30_000 }: CreateFacilitatorClientParameters): FacilitatorClient & { address?: `0x${string}` } {
  const log = logger.child({ module: 'x402-facilitator' })
  if (config.kind === 'remote') {
    return guard(new HTTPFacilitatorClient({ url: config.url, timeoutMs }), log)
  }

  // One account for every network, with a nonce manager: concurrent settlements from one key
  // otherwise collide on the account nonce.
  const account = privateKeyToAccount(config.privateKey, { nonceManager })
  const facilitator = new x402Facilitator()
  for (const [network, rpcUrl] of Object.entries(rpcUrls) as [Network, string][]) {
    const id = Number(network.split(':')[1])
    const chain = defineChain({ id, name: network, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } })
    const client = createWalletClient({ account, chain, transport: http(rpcUrl, { timeout: timeoutMs }), pollingInterval: 100, cacheTime: 0 }).extend(publicActions)
    const signer = toFacilitatorEvmSigner(
      {
        address: account.address,
        readContract: (args) => client.readContract(args as never),
        verifyTypedData: (args) => client.verifyTypedData(args as never),
        writeContract: (args) => client.writeContract(args as never),
        sendTransaction: (args) => client.sendTransaction(args as never),
        waitForTransactionReceipt: (args) => client.waitForTransactionReceipt({ ...args, timeout: args.timeout ?? timeoutMs }),
        getCode: (args) => client.getCode(args),
      },
      { confirmationTimeoutMs: timeoutMs },
    )
    registerExactEvmScheme(facilitator, { signer, networks: network })
  }
  const local: FacilitatorClient = {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>,
  }
  return { ...guard(local, log), address: account.address }
}

/** Failures the facilitator reports stay values; anything else means it could not answer. */
function guard(client: FacilitatorClient, log: Logger): FacilitatorClient {
  return {
    async verify(payload, requirements) {
      try {
        return await client.verify(payload, requirements)
      } catch (err) {
        if (err instanceof VerifyError) return { isValid: false, invalidReason: err.invalidReason ?? 'verification_failed', invalidMessage: err.invalidMessage, payer: err.payer }
        log.warn({ err }, 'x402 verify failed: facilitator unavailable')
        throw new FacilitatorUnavailableError('verify', { cause: err })
      }
    },
    async settle(payload, requirements) {
      try {
        return await client.settle(payload, requirements)
      } catch (err) {
        if (err instanceof SettleError) return { success: false, errorReason: err.errorReason ?? 'settlement_failed', errorMessage: err.errorMessage, payer: err.payer, transaction: err.transaction, network: err.network }
        log.warn({ err }, 'x402 settle failed: facilitator unavailable')
        throw new FacilitatorUnavailableError('settle', { cause: err })
      }
    },
    async getSupported() {
      try {
        return await client.getSupported()
      } catch (err) {
        log.warn({ err }, 'x402 supported kinds unavailable')
        throw new FacilitatorUnavailableError('supported', { cause: err })
      }
    },
  }
}
