// Per-request state the common-headers hook reads: whatever a route learnt about the chain, the
// intent and the outcome. Routes fill it in; the hook fills in the rest.
import type { Hex } from 'viem'

export type GatewayContext = {
  chainId: string
  chainType: string
  intentHash: Hex | undefined
  status: number | undefined
}

declare module 'fastify' {
  interface FastifyRequest {
    gateway: GatewayContext
    /** The request body exactly as received, for hashing bodies that are not intents. */
    rawBody: Buffer | undefined
  }
}
