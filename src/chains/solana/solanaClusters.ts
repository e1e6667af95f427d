// The public Solana clusters' CAIP-2 ids (solana:<the first 32 characters of the genesis hash>).
// The Solana devnet stands for the devnet cluster in its prices (devnet/startSolanaDevnet.ts): the
// only Solana networks x402's published SVM client pays on, which the Solana payment family lists
// in its own room (payments/mechanisms/svm/svmClusterNetworks.ts).
export const solanaClusterNetworks = {
  mainnet: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  devnet: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  testnet: 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z',
} as const
