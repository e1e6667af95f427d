// 405 with Allow for a known path asked with a method it does not serve (Fastify says 404). The
// paths and their methods are the routes actually added to the contexts watched, collected by
// an onRoute hook: a new route is covered without a line here.
import type { FastifyInstance, HTTPMethods } from 'fastify'
import { InputError } from '../../errors/inputError.ts'
import { Status } from '../../status/statusCodes.ts'

const methods: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

export type MethodNotAllowed = {
  /** Collects every route added to this context from now on (call it first thing in the context). */
  watch(context: FastifyInstance): void
  /** Once the watched contexts have loaded (a plugin registered after them): the 405 routes. */
  register(app: FastifyInstance): void
}

export function createMethodNotAllowed(): MethodNotAllowed {
  // In the order the routes were added; a GET's HEAD is added with it.
  const served = new Map<string, HTTPMethods[]>()
  return {
    watch(context) {
      context.addHook('onRoute', (route) => {
        const added = (Array.isArray(route.method) ? route.method : [route.method])
          .map((m) => m.toUpperCase() as HTTPMethods)
          .filter((m) => m !== 'HEAD')
        const known = served.get(route.url) ?? []
        served.set(route.url, [...known, ...added.filter((m) => !known.includes(m))])
      })
    },
    register(app) {
      registerMethodNotAllowed(app, Object.fromEntries([...served].filter(([, allowed]) => allowed.length > 0)))
    },
  }
}

/** 405 on each path for the methods it does not serve (a GET serves HEAD too): a server of few routes names them here. */
export function registerMethodNotAllowed(app: FastifyInstance, routes: Record<string, HTTPMethods[]>) {
  for (const [url, allowed] of Object.entries(routes)) {
    const served = allowed.includes('GET') ? [...allowed, 'HEAD' as const] : allowed
    app.route({
      method: methods.filter((m) => !served.includes(m)),
      url,
      // Not an operation: the OpenAPI document lists what each path serves.
      schema: { hide: true },
      // Never counted by the rate limit: these are added after its plugin loaded, which would otherwise limit them.
      config: { rateLimit: false },
      handler: async (request) => {
        throw new InputError('Method not allowed', {
          httpStatus: 405,
          status: Status.UNSUPPORTED_ACTION,
          headers: { allow: served.join(', ') },
          errors: [
            { field: 'method', message: `${request.method} is not supported on ${url}; use ${served.join(' or ')}` },
          ],
        })
      },
    })
  }
}
