// GET /chains and GET /chains/{chainId}: each served chain's runtime, id, name, currency,
// contracts, relayer, availability, and every endpoint with where it came from and how it fares.
// URLs are shown redacted: a key in a URL never leaves the process.
import type { FastifyInstance } from 'fastify'
import type { ChainRegistry } from '../../../chains/createChainRegistry.ts'
import { InputError } from '../../../errors/inputError.ts'
import { Status } from '../../../status/statusCodes.ts'
import { sendOutcome } from '../../sendOutcome.ts'
import { keccak256 } from '../../../crypto/keccak256.ts'

export function registerChainsRoutes(app: FastifyInstance, { registry }: { registry: ChainRegistry }) {
  app.get('/chains', async () => ({ defaultChainId: registry.defaultChainId ?? null, chains: registry.adapters.map((a) => a.describe()) }))

  app.get<{ Params: { chainId: string } }>('/chains/:chainId', async (request, reply) => {
    let selection
    try {
      selection = registry.select(request.params.chainId)
    } catch (err) {
      if (!(err instanceof InputError)) throw err
      throw new InputError('The chain id is not valid', { errors: err.errors.map((e) => ({ ...e, field: 'chainId' })) })
    }
    request.gateway.chainId = selection.chainId
    request.gateway.chainType = selection.chainType ?? ''
    if (!selection.configured) {
      return sendOutcome(request, reply, {
        status: Status.UNSUPPORTED_CHAIN,
        intentHash: keccak256(new Uint8Array()),
        chainId: selection.chainId,
        chainType: selection.chainType,
        detail: `chain ${selection.chainId} is not served by this gateway (configured: ${registry.adapters.map((a) => a.chainId).join(', ') || 'none'})`,
      })
    }
    return selection.adapter.describe()
  })
}
