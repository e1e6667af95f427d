// 405 with Allow for a known path asked with a method it does not serve (Fastify says 404).
import type { FastifyInstance, HTTPMethods } from 'fastify'
import { InputError } from '../../errors/inputError.ts'
import { Status } from '../../status/statusCodes.ts'

const methods: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

export function registerMethodNotAllowed(app: FastifyInstance, routes: Record<string, HTTPMethods[]>) {
  for (const [url, allowed] of Object.entries(routes)) {
    const served = allowed.includes('GET') ? [...allowed, 'HEAD' as const] : allowed
    app.route({
      method: methods.filter((m) => !served.includes(m)),
      url,
      // Not an operation: the OpenAPI document lists what each path serves.
      schema: { hide: true },
      handler: async (request) => {
        throw new InputError('Method not allowed', {
          httpStatus: 405,
          status: Status.UNSUPPORTED_ACTION,
          headers: { allow: served.join(', ') },
          errors: [{ field: 'method', message: `${request.method} is not supported on ${url}; use ${served.join(' or ')}` }],
        })
      },
    })
  }
}
