// The Solana implementation of the ChainAdapter port, assembled from the operations in actions/,
// each a function of the chain's SolanaContext. Validate simulates the program's validate
// instruction; execute sends the sender's Ed25519 signature and the program's execute in one
// transaction the relayer signs and pays for, simulated, journaled, sent and confirmed by polling
// signature statuses; reconcile re-signs an attempt whose blockhash expired unmined while the
// intent may still run (a new attempt), and reports it dropped otherwise. Account mode
// (`mode: "account"`): the agent's wallet signs the transaction the gateway built, the relayer
// pays its fee (prepareAccountExecution.ts); such an attempt is never re-signed.
import type { ChainAdapter } from '../../ports/chainAdapter.ts'
import type { LendsEndpoints } from '../../ports/chainEndpoints.ts'
import { probeHealth } from '../probeHealth.ts'
import { accountSigningRequest } from './actions/accountSigningRequest.ts'
import { callSolanaRpc } from './actions/callSolanaRpc.ts'
import { checkDeployment } from './actions/checkDeployment.ts'
import { describeChain } from './actions/describeChain.ts'
import { lentRequest } from './actions/lentRequest.ts'
import { prepareExecution } from './actions/prepareExecution.ts'
import { reconcile } from './actions/reconcile.ts'
import { replacement } from './actions/replacement.ts'
import { validateAsSigner } from './actions/validateAsSigner.ts'
import { validateSigned } from './actions/validateIntent.ts'
import { classifySolanaRpcError } from './classifySolanaRpcError.ts'
import { type CreateSolanaAdapterParameters, createSolanaContext } from './createSolanaContext.ts'
import type { SolanaContext } from './solanaContext.ts'
import type { createSolanaRuntime } from './solanaRuntime.ts'

export type { CreateSolanaAdapterParameters } from './createSolanaContext.ts'
export type { SolanaChainConfig } from './solanaContext.ts'

export function createSolanaAdapter(
  parameters: CreateSolanaAdapterParameters,
): ChainAdapter & LendsEndpoints & { runtime: ReturnType<typeof createSolanaRuntime> } {
  const ctx: SolanaContext = createSolanaContext(parameters)
  const { chain, relayer, runtime } = ctx
  return {
    chainId: chain.chainId,
    chainType: 'solana',
    canExecute: relayer !== undefined,
    executorAddress: chain.programId,
    ...(relayer
      ? {
          relayerBalance: () =>
            callSolanaRpc(ctx, 'getBalance', 'relayer balance request', (rpc, abortSignal) =>
              rpc.getBalance(relayer.address, { commitment: 'confirmed' }).send({ abortSignal }),
            ).then((r) => BigInt(r.value)),
        }
      : {}),
    runtime,
    // Account mode (agent as signer, relayer as fee payer): every Solana chain offers it.
    accountMode: true,
    validate: (intent, signature, account) =>
      account ? validateAsSigner(ctx, intent, signature) : validateSigned(ctx, intent, signature),
    signingRequest(intent, account) {
      if (account) return accountSigningRequest(ctx, intent)
      return {
        scheme: 'ed25519',
        message: runtime.hashIntent(intent),
        instructions:
          'an Ed25519 signature by the sender (or a delegate of the policy) of the 32-byte message, the keccak256 of the canonical intent bytes (programs/solana/README.md)',
      }
    },
    prepareExecution: (intent, signature, options) => prepareExecution(ctx, intent, signature, options),
    reconcile: (tx) => reconcile(ctx, tx),
    replacement: (tx) => replacement(ctx, tx),
    getHealth: () =>
      probeHealth({
        chainId: chain.chainId,
        chainType: 'solana',
        unavailableReason: ctx.state.unavailableReason,
        latest: () =>
          callSolanaRpc(ctx, 'getSlot', 'slot request', (rpc, abortSignal) =>
            rpc.getSlot({ commitment: 'confirmed' }).send({ abortSignal }),
          ),
        classify: (err) => classifySolanaRpcError(err, chain.chainId, 'slot request'),
      }),
    preflight: () => checkDeployment(ctx),
    markUnavailable(reason) {
      ctx.state.unavailableReason = reason
      ctx.log.error({ reason }, `chain ${chain.chainId} is unavailable`)
    },
    describe: () => describeChain(ctx),
    // x402 settlement and recovery reach the chain through its endpoints (failover, standing, metrics).
    lendEndpoints: () => ({ request: (call, options) => lentRequest(ctx, call, options) }),
    async close() {},
  }
}
