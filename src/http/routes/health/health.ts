// GET /health (the process serves; per-chain reachability and the journal's unsettled
// executions in the body) and GET /health/ready (503 while no configured chain answers).
import type { FastifyInstance } from 'fastify'
import type { ChainRegistry } from '../../../chains/createChainRegistry.ts'
import type { Journal } from '../../../journal/openJournal.ts'
import { Status } from '../../../status/statusCodes.ts'
import { sendProblem } from '../../plugins/errorHandler.ts'
import { healthSchema, jsonResponse, outcomeResponses, readySchema } from '../../schemas/httpSchemas.ts'

export function registerHealthRoutes(app: FastifyInstance, { registry, journal }: { registry: ChainRegistry; journal: Journal }) {
  const startedAt = Date.now()
  const probe = () => Promise.all(registry.adapters.map((a) => a.getHealth()))

  const healthRoute = {
    schema: {
      operationId: 'getHealth',
      tags: ['operations'],
      summary: 'Liveness: 200 whenever the process serves, with each chain\'s reachability and the journal\'s unsettled executions',
      response: { 200: jsonResponse('the process serves', healthSchema) },
    },
  }
  const readyRoute = {
    schema: {
      operationId: 'getReadiness',
      tags: ['operations'],
      summary: 'Readiness: 503 while no configured chain is reachable',
      response: { 200: jsonResponse('at least one chain is reachable', readySchema), ...outcomeResponses([503]) },
    },
  }

  app.get('/health', healthRoute, async () => {
    const chains = await probe()
    return { status: 'ok', uptimeSeconds: Math.round((Date.now() - startedAt) / 1000), chains, journal: { pendingExecutions: await journal.pendingCount() } }
  })

  app.get('/health/ready', readyRoute, async (request, reply) => {
    const chains = await probe()
    if (chains.some((c) => c.reachable)) return { ready: true, chains }
    reply.header('retry-after', '5')
    return sendProblem(request, reply, 503, Status.CHAIN_UNREACHABLE, 'No configured chain is reachable', chains.map((c) => `${c.chainId}: ${c.error ?? 'unreachable'}`).join('; ') || 'no chain is configured', undefined, {})
  })
}
