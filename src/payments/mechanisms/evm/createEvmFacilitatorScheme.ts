// The exact EVM scheme of the in-process facilitator: one account for every EVM network, sending
// each settlement (an EIP-3009 transferWithAuthorization) from its own key, estimated first under
// a gas ceiling, with a nonce from the settler's counter (createSettlerNonces.ts), through the spend
// watch.
import type { Network } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator'
import { createPublicClient, createWalletClient, defineChain, type LocalAccount, publicActions } from 'viem'
import type { FacilitatorScheme, FacilitatorSchemeParameters } from '../paymentMechanism.ts'
import { defaultEvmMaxSettlementGas } from './evmSettlementGas.ts'
import { nodePoolNonces } from './nodePoolNonces.ts'
import { type EvmSettlementReader, outcomeOfSignedSettlement } from './outcomeOfSignedSettlement.ts'
import { settlerNonces } from './settlerNonces.ts'
import { toEvmTransport } from './toEvmTransport.ts'

export function createEvmFacilitatorScheme({
  facilitator,
  endpoints,
  keys,
  watch,
  watchAccount,
  log,
  settlementTimeoutMs,
  evmMaxSettlementGas = defaultEvmMaxSettlementGas,
}: FacilitatorSchemeParameters): FacilitatorScheme {
  if (!keys.evm) return { spendOf: async () => undefined }
  // One account for every network. Its nonces come from the settler's counter, handed out after the
  // estimate and given back when a send fails: concurrent settlements from one key otherwise collide.
  const account: LocalAccount = watchAccount(keys.evm)
  const clients = new Map<string, EvmSettlementReader>()
  for (const [network, lent] of endpoints) {
    const id = Number(network.split(':')[1])
    const chain = defineChain({
      id,
      name: network,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [] } },
    })
    const client = createWalletClient({
      account,
      chain,
      transport: toEvmTransport(lent),
      pollingInterval: 100,
      cacheTime: 0,
    }).extend(publicActions)
    const reader = createPublicClient({ transport: toEvmTransport(lent) })
    const node = {
      pendingCount: () => client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
      poolNonces: () => nodePoolNonces(reader, account.address),
      // A transfer of nothing to itself: the cheapest transaction, to let the ones queued above it land.
      // Its outcome is logged too: a fill that fails is tried again, and one that never lands holds every settlement above it.
      fillGap: async (nonce: number) => {
        log.warn({ network, nonce }, 'x402 facilitator: a nonce no settlement took is filled, so those above it land')
        try {
          const transaction = await client.sendTransaction({ to: account.address, value: 0n, gas: 21_000n, nonce })
          log.info({ network, nonce, transaction }, 'x402 facilitator: the fill was sent')
          return transaction
        } catch (err) {
          log.warn({ network, nonce, err }, 'x402 facilitator: the fill was not sent; the nonce is judged again')
          throw err
        }
      },
    }
    const withNonce = <T>(send: (nonce: number) => Promise<T>) =>
      settlerNonces.send({ address: account.address, chainId: id }, node, send)
    const signer = toFacilitatorEvmSigner(
      {
        address: account.address,
        readContract: (args) => client.readContract(args),
        // `as never`: x402's signer passes typed data loosely (Record<string, unknown> domain and types), which
        // viem's VerifyTypedDataParameters, generic in the types, does not take.
        verifyTypedData: (args) => client.verifyTypedData(args as never),
        // Estimated first: above the ceiling nothing is sent (x402 answers a failed settlement, no fee paid).
        writeContract: (args) =>
          watch.sent(async () => {
            const gas = await client.estimateContractGas(args)
            if (gas > evmMaxSettlementGas)
              throw new Error(
                `the settlement would take ${gas} gas, more than the ${evmMaxSettlementGas} allowed; not sent`,
              )
            // `as never`: x402's writeContract arguments (abi: readonly unknown[], functionName: string) are looser
            // than viem's WriteContractParameters, generic in the ABI and function.
            return withNonce((nonce) => client.writeContract({ ...(args as object), gas, nonce } as never))
          }),
        sendTransaction: (args) =>
          watch.sent(async () => {
            const gas = await client.estimateGas(args)
            if (gas > evmMaxSettlementGas)
              throw new Error(
                `the transaction would take ${gas} gas, more than the ${evmMaxSettlementGas} allowed; not sent`,
              )
            return withNonce((nonce) => client.sendTransaction({ ...(args as object), gas, nonce }))
          }),
        // Past it, x402 answers settlement_pending (the transaction was sent): the resolver finishes it.
        waitForTransactionReceipt: (args) =>
          client.waitForTransactionReceipt({ ...args, timeout: args.timeout ?? settlementTimeoutMs }),
        getCode: (args) => client.getCode(args),
      },
      { confirmationTimeoutMs: settlementTimeoutMs },
    )
    registerExactEvmScheme(facilitator, { signer, networks: network as Network })
    clients.set(network, client)
  }
  return {
    async spendOf(network, sent) {
      const client = clients.get(network)
      if (!client) return undefined
      const receipt = await client
        .getTransactionReceipt({ hash: sent.transaction as `0x${string}` })
        .catch((err: unknown) => {
          if ((err as Error).name === 'TransactionReceiptNotFoundError') return undefined
          throw err
        })
      return receipt
        ? { fee: receipt.gasUsed * receipt.effectiveGasPrice, failed: receipt.status !== 'success' }
        : undefined
    },
    signedOutcomeOf(network) {
      const client = clients.get(network)
      return client && ((args) => outcomeOfSignedSettlement({ client, ...args, logger: log }))
    },
    address: account.address,
  }
}
