import type { Address } from 'viem'

/** Where Multicall3 lives on nearly every EVM chain (deployed with the same keyless transaction). */
export const multicall3Address: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
