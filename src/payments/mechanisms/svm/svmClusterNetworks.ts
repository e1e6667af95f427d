// The networks x402's published SVM client pays on: the public Solana clusters, by CAIP-2 id (as
// @x402/svm names them; not imported from it, which would load x402 with the configuration). A
// price may name one of them for the priced devnet chain (svmPaymentSettings.ts). The Solana
// runtime keeps its own table of the clusters (chains/solana/solanaClusters.ts): what its devnet stands for.
export const svmClusterNetworks = [
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z',
] as const
