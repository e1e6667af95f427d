// The headers every response carries (api-contract.md §3), set in one onSend hook from whatever
// the route recorded, so that errors raised anywhere, even before routing, carry them too.
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Hex } from 'viem'
import { keccak256 } from '../../crypto/keccak256.ts'
import type { ChainRegistry } from '../../chains/createChainRegistry.ts'
import { Status, toStatusHex } from '../../status/statusCodes.ts'

const emptyBodyHash = keccak256('0x')

export function registerCommonHeaders(app: FastifyInstance, registry: ChainRegistry) {
  app.decorateRequest('gateway', null as never)
  app.decorateRequest('rawBody', undefined)

  app.addHook('onRequest', async (request) => {
    const header = request.headers['x-chain-id']
    request.gateway = { ...registry.describe(Array.isArray(header) ? header[0] : header), intentHash: undefined, status: undefined }
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const context = request.gateway ?? { ...registry.describe(undefined), intentHash: undefined, status: undefined }
    const status = toStatusHex(context.status ?? fallbackStatus(reply))
    const intentHash: Hex = context.intentHash ?? (request.rawBody?.length ? keccak256(request.rawBody) : emptyBodyHash)
    reply.header('x-erc1066-status', status)
    reply.header('x-status-code', status)
    reply.header('x-intent-hash', intentHash)
    reply.header('x-chain-type', context.chainType)
    reply.header('x-chain-id', context.chainId)
    reply.header('x-payment-required', reply.statusCode === 402 ? 'true' : 'false')
    return payload
  })
}

/** The code for a response no route described: a plain success, or the transport error's code. */
function fallbackStatus(reply: FastifyReply): number {
  const code = reply.statusCode
  if (code < 400) return Status.SUCCESS
  if (code === 404 || code === 405 || code === 501) return Status.UNSUPPORTED_ACTION
  if (code >= 500) return Status.GATEWAY_FAILURE
  return Status.INVALID_FORMAT
}
