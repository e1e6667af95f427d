// The operator's console on the app (buildApp calls it when createGateway built one): the execute
// pause hook, the recorder of every 429 (a throttled client on the page), the shared feed started
// with the app and stopped before it closes, and the /ops routes.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ApiKeyCheck } from '../../../auth/createApiKeyCheck.ts'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import type { Ops } from '../../../ops/createOps.ts'
import type { Journal } from '../../../ports/journal.ts'
import { registerChainPause } from '../../plugins/chainPause.ts'
import { registerOpsRoutes } from './opsRoutes.ts'

export function registerOps(
  app: FastifyInstance,
  ops: Ops,
  { registry, journal, agentKeys }: { registry: ChainRegistry; journal: Journal; agentKeys?: ApiKeyCheck | undefined },
) {
  const { store, feed, snapshot, check, onSwitch } = ops.attach({ registry, journal, agentKeys })
  registerChainPause(app, { registry, journal, switches: ops.switches })
  // Every 429 of the gateway (rate limit, standing, spent budgets, stream limits): a throttled client.
  app.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode === 429 && !request.url.startsWith('/ops')) {
      const retry = Number(reply.getHeader('retry-after'))
      ops.activity.recordThrottled({
        client: clientOf(request, agentKeys),
        reason: `${request.method} ${request.routeOptions.url ?? 'unknown route'}`,
        retryAfterSeconds: Number.isFinite(retry) ? retry : undefined,
      })
    }
    done()
  })
  app.addHook('onReady', () => feed.start())
  app.addHook('preClose', () => feed.stop())
  app.register(async (scope) =>
    registerOpsRoutes(scope, { check, switches: ops.switches, store, feed, snapshot, registry, journal, onSwitch }),
  )
}

/** Who a 429 went to: its key (a rate limit answers before the route's credential check names it), else its address. */
function clientOf(request: FastifyRequest, agentKeys: ApiKeyCheck | undefined): string {
  if (request.apiKeyId) return `key:${request.apiKeyId}`
  const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1]
  const id = token === undefined ? undefined : agentKeys?.identify(token)
  return id ? `key:${id}` : `ip:${request.ip}`
}
