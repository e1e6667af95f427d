// The chain as /chains shows it: network, deployment, relayer, availability and the endpoint's counters.
import { redactUrl } from '../../config/redactUrl.ts'
import type { ChainDescription } from '../../ports/chainAdapter.ts'
import type { SuiContext } from './suiContext.ts'

export function describeSuiChain(ctx: SuiContext): ChainDescription {
  const { requests, failures, lastLatencyMs, lastError } = ctx.endpoint
  return {
    chainId: ctx.chainId,
    chainType: 'sui',
    reference: ctx.network,
    name: `Sui ${ctx.network}`,
    nativeCurrency: { name: 'Sui', symbol: 'SUI', decimals: 9 },
    contracts: { validator: ctx.packageId, executor: ctx.packageId, registry: ctx.hubId },
    signing: {
      scheme: 'sui-personal-message',
      message: "the intent's BCS bytes (see move/README.md), signed with signPersonalMessage",
    },
    relayer: ctx.relayer,
    relayerSigner: ctx.relayerSigner,
    finality: {
      rule: 'effects',
      description:
        "final once the validators' effects are certified (Sui does not reorganise); the checkpoint that includes them follows",
    },
    available: !ctx.unavailableReason,
    unavailableReason: ctx.unavailableReason,
    endpoints: [
      {
        url: redactUrl(ctx.rpcUrl),
        source: 'config',
        status: failures > 0 && lastError ? 'failing' : requests > 0 ? 'healthy' : 'unverified',
        latencyMs: lastLatencyMs,
        requests,
        failures,
        lastError,
      },
    ],
  }
}
