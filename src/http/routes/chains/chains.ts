// GET /chains and GET /chains/{chainId}: each served chain's runtime, id, name, currency,
// contracts, relayer, availability, and every endpoint with where it came from and how it fares.
// URLs are shown redacted: a key in a URL never leaves the process.
import type { FastifyInstance } from 'fastify'
import { keccak256 } from '../../../crypto/keccak256.ts'
import { InputError } from '../../../errors/inputError.ts'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import { Status } from '../../../status/statusCodes.ts'
import { chainSchema, chainsSchema, jsonResponse, outcomeResponses } from '../../schemas/httpSchemas.ts'
import { sendOutcome } from '../../sendOutcome.ts'

export function registerChainsRoutes(app: FastifyInstance, { registry }: { registry: ChainRegistry }) {
  const listRoute = {
    schema: {
      operationId: 'listChains',
      tags: ['chains'],
      summary:
        'Every served chain: runtime, id, name, currency, contracts, relayer, availability, endpoints (redacted) and how intents are signed',
      response: { 200: jsonResponse('the served chains', chainsSchema) },
    },
  }
  const oneRoute = {
    schema: {
      operationId: 'getChain',
      tags: ['chains'],
      summary: 'One chain, by EVM chain id (84532) or CAIP-2 id (eip155:84532); its EIP-712 domain is in `signing`',
      params: {
        type: 'object',
        properties: { chainId: { type: 'string', description: 'an EVM chain id in decimal or a CAIP-2 id' } },
      },
      response: { 200: jsonResponse('the chain', chainSchema), ...outcomeResponses([400, 421]) },
    },
  }

  app.get('/chains', listRoute, async () => ({
    defaultChainId: registry.defaultChainId ?? null,
    chains: registry.adapters.map((a) => a.describe()),
  }))

  app.get<{ Params: { chainId: string } }>('/chains/:chainId', oneRoute, async (request, reply) => {
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
