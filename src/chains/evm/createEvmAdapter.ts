// The EVM implementation of the ChainAdapter port: validator reads, preflight simulation and
// execution through the relayer pool, over one viem client per chain. Each operation is a function
// of the chain's context (adapter/evmContext.ts), in adapter/.
import type { ChainAdapter } from '../../ports/chainAdapter.ts'
import type { LendsEndpoints } from '../../ports/chainEndpoints.ts'
import { probeHealth } from '../probeHealth.ts'
import { chainInstance } from './adapter/chainInstance.ts'
import { describeChain, preflight, signingRequest } from './adapter/describeChain.ts'
import type { CreateEvmAdapterParameters } from './adapter/evmAdapterParameters.ts'
import { createEvmContext } from './adapter/evmContext.ts'
import { prepareExecution } from './adapter/prepareExecution.ts'
import { readAccount } from './adapter/readAccount.ts'
import { fillNonceGaps, reconcile } from './adapter/reconcile.ts'
import { replacement } from './adapter/replacement.ts'
import { checkMined, confirmExecuted } from './adapter/settledChecks.ts'
import { validate } from './adapter/validate.ts'
import { classifyRpcError } from './classifyRpcError.ts'
import { evmRuntime } from './evmRuntime.ts'
import { evmSignedExecution } from './evmSignedExecution.ts'
import { readFundingShortfall } from './readFundingShortfall.ts'

export type { CreateEvmAdapterParameters } from './adapter/evmAdapterParameters.ts'

export function createEvmAdapter(parameters: CreateEvmAdapterParameters): ChainAdapter & LendsEndpoints {
  const ctx = createEvmContext(parameters)
  const { chain, client, relayers, log, state } = ctx
  log.info({ relayers: relayers?.addresses ?? [], endpoints: chain.endpoints.length }, 'chain configured')
  return {
    chainId: chain.chainId,
    chainType: 'evm',
    runtime: evmRuntime,
    canExecute: relayers !== undefined,
    confirmations: ctx.confirmations,
    executorAddress: chain.executor,
    ...(relayers
      ? {
          relayerBalance: async () =>
            (await Promise.all(relayers.addresses.map((address) => client.getBalance({ address })))).reduce(
              (a, b) => a + b,
              0n,
            ),
          relayerAccounts: () =>
            Promise.all(
              relayers.addresses.map(async (address) => {
                const [balance, nonce] = await Promise.all([
                  client.getBalance({ address }),
                  client.getTransactionCount({ address, blockTag: 'latest' }),
                ])
                return { address, balance, nonce }
              }),
            ),
          holdsRelayer: (relayer: string) => relayers.holds(relayer),
          canSendNow: () => relayers.canSendNow(),
        }
      : {}),
    accountMode: chain.accountDelegate !== undefined,
    accountModeUnavailable:
      chain.accountDelegate === undefined
        ? `chain ${chain.chainId} has no account delegate configured here (ACCOUNT_DELEGATE_ADDRESSES): only executor mode`
        : undefined,
    readAccount: (address) => readAccount(ctx, address),
    validate: (intent, signature, account) => validate(ctx, intent, signature, account),
    prepareExecution: (intent, signature, options) => prepareExecution(ctx, intent, signature, options),
    reconcile: (tx) => reconcile(ctx, tx),
    fillGaps: () => fillNonceGaps(ctx),
    sequenceOf: evmSignedExecution.txNonce,
    chainInstance: () => chainInstance(ctx),
    confirmExecuted: (tx) => confirmExecuted(ctx, tx),
    checkMined: (tx) => checkMined(ctx, tx),
    replacement: (tx) => replacement(ctx, tx),
    fundingShortfall: (intent, account) =>
      readFundingShortfall({ client, executor: chain.executor, registry: chain.registry, intent, account }),
    signingRequest: (intent, account) => signingRequest(ctx, intent, account),
    getHealth: () =>
      probeHealth({
        chainId: chain.chainId,
        chainType: 'evm',
        unavailableReason: state.unavailableReason,
        latest: () => client.getBlockNumber({ cacheTime: 0 }),
        classify: (err) => classifyRpcError(err, chain.chainId, 'block number request'),
      }),
    preflight: () => preflight(ctx),
    markUnavailable(reason) {
      state.unavailableReason = reason
      log.error({ reason }, `chain ${chain.chainId} is unavailable`)
    },
    describe: () => describeChain(ctx),
    // x402 settlement and recovery reach the chain through its pool (failover, standing, metrics).
    lendEndpoints: () => ({ request: (call) => ctx.pool.request(call) }),
    async close() {
      // Receipt waits end (the reconciler of the next start finishes them).
      ctx.receipts.close()
      await relayers?.close()
      await ctx.pool.close()
    },
  }
}
