// GET /health (the process serves; per-chain reachability and the journal's unsettled
// executions in the body) and GET /health/ready (503 while no configured chain answers).
import type { FastifyInstance } from 'fastify'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import type { Journal } from '../../../ports/journal.ts'
import { Status } from '../../../status/statusCodes.ts'
import { sendProblem } from '../../plugins/errorHandler.ts'
import { gatewayVersion } from '../../plugins/gatewayVersion.ts'
import { healthSchema, jsonResponse, outcomeResponses, readySchema } from '../../schemas/httpSchemas.ts'

/** This instance's name and what it shares with other instances. */
export type InstanceDescription = { id: string; rateLimits: 'off' | 'memory' | 'redis' }

export function registerHealthRoutes(
  app: FastifyInstance,
  {
    registry,
    journal,
    instance = { id: 'local', rateLimits: 'off' },
  }: { registry: ChainRegistry; journal: Journal; instance?: InstanceDescription | undefined },
) {
  const startedAt = Date.now()
  // The journal's own state: its backend, and whether it answers (a shared database can be down while the process serves).
  const journalHealth = async () => {
    try {
      return { backend: journal.backend, reachable: true, pendingExecutions: await journal.pendingCount() }
    } catch (err) {
      return {
        backend: journal.backend,
        reachable: false,
        error: err instanceof Error ? err.message.split('\n')[0] : String(err),
      }
    }
  }
  const probe = () => Promise.all(registry.adapters.map((a) => a.getHealth()))

  const healthRoute = {
    schema: {
      operationId: 'getHealth',
      tags: ['operations'],
      summary:
        "Liveness: 200 whenever the process serves, with each chain's reachability and the journal's unsettled executions",
      response: { 200: jsonResponse('the process serves', healthSchema) },
    },
  }
  const readyRoute = {
    schema: {
      operationId: 'getReadiness',
      tags: ['operations'],
      summary: "Readiness: 503 while no configured chain is reachable, or while the journal's database is unreachable",
      response: { 200: jsonResponse('at least one chain is reachable', readySchema), ...outcomeResponses([503]) },
    },
  }

  app.get('/health', healthRoute, async () => {
    const [chains, journalState] = await Promise.all([probe(), journalHealth()])
    return {
      status: 'ok',
      version: gatewayVersion,
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
      instance: { id: instance.id, journal: journal.backend, rateLimits: instance.rateLimits },
      chains,
      journal: journalState,
    }
  })

  app.get('/health/ready', readyRoute, async (request, reply) => {
    const [chains, journalState] = await Promise.all([probe(), journalHealth()])
    if (!journalState.reachable) {
      reply.header('retry-after', '5')
      return sendProblem(
        request,
        reply,
        503,
        Status.UNAVAILABLE,
        'The journal database is unreachable',
        `${journal.path}: ${journalState.error}; no execution can be journaled`,
        undefined,
        {},
      )
    }
    if (chains.some((c) => c.reachable)) return { ready: true, chains }
    reply.header('retry-after', '5')
    return sendProblem(
      request,
      reply,
      503,
      Status.CHAIN_UNREACHABLE,
      'No configured chain is reachable',
      chains.map((c) => `${c.chainId}: ${c.error ?? 'unreachable'}`).join('; ') || 'no chain is configured',
      undefined,
      {},
    )
  })
}
