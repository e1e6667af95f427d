// The x402 facilitator the gateway verifies and settles with: in-process (x402's own facilitator
// with the exact EVM scheme, sending from its own key, and the exact SVM scheme, co-signing the
// payer's SPL transfer as its fee payer) or a remote one by URL. Either way a payment that does
// not verify is a value, and a facilitator that cannot answer is a FacilitatorUnavailableError.
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
import { createSolanaFacilitatorSigner } from './createSolanaFacilitatorSigner.ts'
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator'

export type CreateFacilitatorClientParameters = {
  config: FacilitatorConfig
  /** The RPC endpoint of each network the in-process facilitator settles on. */
  rpcUrls: Record<Network, string>
  logger: Logger
  /** How long one verify or settle may take before the facilitator counts as unavailable. */
  timeoutMs?: number
  /**
   * How long a Solana settlement broadcast waits for its confirmation; past it, x402 answers
   * `settlement_pending` with the transaction (default: `timeoutMs`).
   */
  settlementTimeoutMs?: number
}

export type GatewayFacilitator = FacilitatorClient & {
  /** The in-process facilitator's EVM account. */
  address?: `0x${string}`
  /**
   * In-process only: the id a Solana payment's settlement transaction will have (the facilitator's
   * own fee-payer signature of the payer's message, known before it is sent), for the ledger to
   * find the settlement after a crash; undefined when it cannot be known.
   */
  settlementIdOf?(transaction: string): Promise<string | undefined>
}

export function createFacilitatorClient({ config, rpcUrls, logger, timeoutMs = 30_000, settlementTimeoutMs = timeoutMs }: CreateFacilitatorClientParameters): GatewayFacilitator {
  const log = logger.child({ module: 'x402-facilitator' })
  if (config.kind === 'remote') {
    return guard(new HTTPFacilitatorClient({ url: config.url, timeoutMs }), log)
  }

  const facilitator = new x402Facilitator()
  const evmNetworks = (Object.entries(rpcUrls) as [Network, string][]).filter(([network]) => network.startsWith('eip155:'))
  const solanaNetworks = (Object.entries(rpcUrls) as [Network, string][]).filter(([network]) => network.startsWith('solana:'))
  const solana =
    config.solanaSecretKey && solanaNetworks.length > 0
      ? createSolanaFacilitatorSigner({ secretKey: config.solanaSecretKey, rpcUrls: Object.fromEntries(solanaNetworks), confirmTimeoutMs: settlementTimeoutMs })
      : undefined
  if (solana) registerExactSvmScheme(facilitator, { signer: solana.signer, networks: solanaNetworks.map(([network]) => network) })

  // One account for every network, with a nonce manager: concurrent settlements from one key
  // otherwise collide on the account nonce.
  const account = config.privateKey ? privateKeyToAccount(config.privateKey, { nonceManager }) : undefined
  for (const [network, rpcUrl] of evmNetworks) {
    if (!account) break
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
        // Past it, x402 answers settlement_pending (the transaction was sent): the resolver finishes it.
        waitForTransactionReceipt: (args) => client.waitForTransactionReceipt({ ...args, timeout: args.timeout ?? settlementTimeoutMs }),
        getCode: (args) => client.getCode(args),
      },
      { confirmationTimeoutMs: settlementTimeoutMs },
    )
    registerExactEvmScheme(facilitator, { signer, networks: network })
  }
  const local: FacilitatorClient = {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => {
      await solana?.ready
      return facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>
    },
  }
  return { ...guard(local, log), ...(account ? { address: account.address } : {}), ...(solana ? { settlementIdOf: solana.settlementIdOf } : {}) }
}

/** Failures the facilitator reports stay values; anything else means it could not answer. */
function guard(client: FacilitatorClient, log: Logger): FacilitatorClient {
  return {
    async verify(payload, requirements) {
      try {
        return await client.verify(payload, requirements)
      } catch (err) {
        if (err instanceof VerifyError) return withoutUndefined({ isValid: false, invalidReason: err.invalidReason ?? 'verification_failed', invalidMessage: err.invalidMessage, payer: err.payer })
        log.warn({ err }, 'x402 verify failed: facilitator unavailable')
        throw new FacilitatorUnavailableError('verify', { cause: err })
      }
    },
    async settle(payload, requirements) {
      try {
        return await client.settle(payload, requirements)
      } catch (err) {
        if (err instanceof SettleError)
          return withoutUndefined({
            success: false,
            errorReason: err.errorReason ?? 'settlement_failed',
            errorMessage: err.errorMessage,
            payer: err.payer,
            transaction: err.transaction,
            network: err.network,
          })
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

/** The object without its undefined fields: x402's response types leave a missing field out rather than undefined. */
export function withoutUndefined<T extends Record<string, unknown>>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never
}
