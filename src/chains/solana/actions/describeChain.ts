// The chain as /chains shows it: deployment, relayer, availability, endpoints, how to sign.
import type { ChainDescription } from '../../../ports/chainAdapter.ts'
import type { SolanaContext } from '../solanaContext.ts'

export function describeChain(ctx: SolanaContext): ChainDescription {
  const { chain } = ctx
  return {
    chainId: chain.chainId,
    chainType: 'solana',
    reference: chain.reference,
    name: chain.name ?? `Solana ${chain.reference.slice(0, 8)}`,
    nativeCurrency: { name: 'Solana', symbol: 'SOL', decimals: 9 },
    contracts: { validator: chain.programId, executor: chain.programId, registry: chain.config },
    relayer: ctx.relayer?.address,
    relayerSigner: ctx.relayer?.backend,
    available: !ctx.state.unavailableReason,
    unavailableReason: ctx.state.unavailableReason,
    endpoints: ctx.endpoints.map((e) => ({ ...e.view })),
    signing: {
      scheme: 'ed25519',
      message:
        'keccak256 of the canonical intent bytes, bound to this program and config account (programs/solana/README.md)',
    },
    finality: {
      rule: 'commitment',
      commitment: 'confirmed',
      description: "final at the `confirmed` commitment (a supermajority of the cluster's stake voted on the slot)",
    },
  }
}
