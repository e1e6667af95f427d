// A Sui chain as the gateway is configured with it: its network, its gRPC endpoint and the
// deployment of move/ (the package and the shared Hub object).

export type SuiNetwork = 'mainnet' | 'testnet' | 'devnet' | 'localnet'

export const suiChainIds = ['sui:mainnet', 'sui:testnet', 'sui:devnet', 'sui:localnet'] as const

export type SuiChainConfig = {
  /** `sui:mainnet`, `sui:testnet`, `sui:devnet` or `sui:localnet`. */
  chainId: string
  /** The gRPC (grpc-web) endpoint, e.g. https://fullnode.testnet.sui.io:443. */
  rpcUrl: string
  /** The published package of move/ (the module `intents`). */
  packageId: string
  /** The shared Hub object its `init` created (vaults and nonces). */
  hubId: string
}
