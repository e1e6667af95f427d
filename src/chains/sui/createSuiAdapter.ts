// The Sui implementation of the ChainAdapter port, over @mysten/sui's gRPC client (grpc-web) and
// its transport-neutral `client.core` API: validate is a simulated call of the Move module's
// validate function, execute is the module's execute function sent by the relayer's Ed25519 key as
// sender and gas owner. The Move code is in move/; it was not compiled or run on this machine.
// Each operation is a function of the adapter's context (suiContext.ts) in its own file.
import type { SuiGrpcClient } from '@mysten/sui/grpc'
import type { Logger } from 'pino'
import { redactUrl } from '../../config/redactUrl.ts'
import type { GatewayError } from '../../errors/gatewayError.ts'
import type { RpcRecorder } from '../../metrics/createMetrics.ts'
import type { ChainAdapter } from '../../ports/chainAdapter.ts'
import type { Journal } from '../../ports/journal.ts'
import type { RelayerLeases } from '../../ports/relayerLeases.ts'
import type { Ed25519Signer } from '../../signers/ed25519Signer.ts'
import { probeHealth } from '../probeHealth.ts'
import { callSui } from './callSui.ts'
import { createSuiContext } from './createSuiContext.ts'
import { describeSuiChain } from './describeSuiChain.ts'
import { encodeSuiIntent } from './encodeSuiIntent.ts'
import { preflightSui } from './preflightSui.ts'
import { prepareSuiExecution } from './prepareSuiExecution.ts'
import { prepareSuiSponsoredExecution } from './prepareSuiSponsoredExecution.ts'
import { reconcileSuiTransaction } from './reconcileSuiTransaction.ts'
import type { SuiChainConfig } from './suiChainConfig.ts'
import { suiRuntime } from './suiRuntime.ts'
import { suiSponsoredSigningRequest } from './suiSponsoredSigningRequest.ts'
import { validateSuiIntent } from './validateSuiIntent.ts'

export type CreateSuiAdapterParameters = {
  chain: SuiChainConfig
  /** The relayer's Ed25519 key: `suiprivkey1…` (as `sui keytool export` prints it) or 32 bytes. */
  relayerSecretKey: string | Uint8Array | undefined
  /** Or the relayer's key held outside the process (a PKCS#11 token, KMS). */
  relayerSigner?: Ed25519Signer | undefined
  rpcTimeoutMs: number
  logger: Logger
  /** Gas budget ceiling for the execute simulation, in MIST; the sent budget is the simulation's cost plus a margin. */
  maxGasBudget?: bigint
  /** Account mode (sponsored): the most gas one sponsored transaction may budget, in MIST (default 0.05 SUI); each sponsorship's coin holds this much. */
  maxSponsoredGasBudget?: bigint | undefined
  /** Account mode: how many issued, unsigned sponsorships are kept (default 1000). */
  sponsorshipCapacity?: number | undefined
  /** Tests pass a client with its own transport; by default a grpc-web client on chain.rpcUrl. */
  client?: SuiGrpcClient
  /** Told the duration and failure of every SDK call, by its name (metrics). */
  rpcRecorder?: RpcRecorder | undefined
  /** A fleet's relayer leases (a shared journal): the key is then used by one instance at a time, the others answer execute 503 no-relayer-key. */
  leases?: RelayerLeases | undefined
  /** The journal the leases share (with `leases`): a key taken over delivers its last holder's pending transactions before it signs again. */
  journal?: Journal | undefined
}

export function createSuiAdapter({
  maxGasBudget = 500_000_000n,
  ...parameters
}: CreateSuiAdapterParameters): ChainAdapter {
  const ctx = createSuiContext({ ...parameters, maxGasBudget })
  const { relayer, keyHold } = ctx
  ctx.log.info(
    { relayer: relayer ?? null, signer: ctx.relayerSigner ?? null, endpoint: redactUrl(ctx.rpcUrl) },
    'chain configured',
  )
  return {
    chainId: ctx.chainId,
    chainType: 'sui',
    runtime: suiRuntime,
    canExecute: ctx.keypair !== undefined,
    executorAddress: ctx.packageId,
    ...(relayer
      ? {
          relayerBalance: async () =>
            BigInt(
              (
                await callSui(ctx, 'getBalance', 'relayer balance request', (signal) =>
                  ctx.client.core.getBalance({ owner: relayer, signal }),
                )
              ).balance.balance,
            ),
        }
      : {}),
    // In a fleet only the key's holder sends, and reconciles what was sent from it.
    ...(keyHold
      ? {
          canSendNow: () => keyHold.canSendNow(),
          holdsRelayer: (address: string) => address.toLowerCase() === relayer?.toLowerCase() && keyHold.holdsLease(),
        }
      : {}),
    // Account mode: a sponsored transaction, the agent as sender, the relayer as gas owner.
    accountMode: ctx.keypair !== undefined,
    accountModeUnavailable:
      ctx.keypair === undefined
        ? `chain ${ctx.chainId} has no relayer key here (SUI_RELAYER_PRIVATE_KEY): account mode is sponsored by the relayer`
        : undefined,
    // The Move validate does not look at signatures; execute checks them (and aborts 0xE4).
    validate: async (intent) => (await validateSuiIntent(ctx, intent)).status,
    signingRequest: (intent, account) =>
      account
        ? suiSponsoredSigningRequest(ctx, intent)
        : {
            scheme: 'sui-personal-message',
            message: Buffer.from(encodeSuiIntent(intent)).toString('base64'),
            instructions:
              "sign `message` (base64 of the intent's BCS bytes) with the sender's key through signPersonalMessage, and send the serialized signature's bytes as 0x hex in `signature`",
          },
    prepareExecution: (intent, signature, options) =>
      options?.account
        ? prepareSuiSponsoredExecution(ctx, intent, signature, options.account)
        : prepareSuiExecution(ctx, intent, signature),
    reconcile: (tx) => reconcileSuiTransaction(ctx, tx),
    getHealth: () =>
      probeHealth({
        chainId: ctx.chainId,
        chainType: 'sui',
        unavailableReason: ctx.unavailableReason,
        latest: async () =>
          (
            await callSui(
              ctx,
              'getServiceInfo',
              'service info request',
              async (signal) => (await ctx.client.ledgerService.getServiceInfo({}, { abort: signal })).response,
            )
          ).checkpointHeight,
        // callSui already turned every failure into the gateway's error.
        classify: (err) => err as GatewayError,
      }),
    preflight: () => preflightSui(ctx),
    markUnavailable(reason) {
      ctx.unavailableReason = reason
      ctx.log.error({ reason }, `chain ${ctx.chainId} is unavailable`)
    },
    describe: () => describeSuiChain(ctx),
    close: async () => {
      keyHold?.close()
      ctx.watches.abort()
    },
  }
}
