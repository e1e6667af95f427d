// GET /status-codes: the whole ERC-1066 to HTTP table this gateway answers by.
import type { FastifyInstance } from 'fastify'
import { statusCodes } from '../../status/statusCodes.ts'
import { jsonResponse, statusCodesSchema } from '../schemas/httpSchemas.ts'

const body = JSON.stringify({
  codes: statusCodes.map((s) => ({
    code: s.hex,
    statusName: s.statusName,
    description: s.description,
    httpStatus: s.httpStatus,
    reserved: s.reserved,
  })),
})

export function registerStatusCodesRoute(app: FastifyInstance) {
  app.get(
    '/status-codes',
    {
      schema: {
        operationId: 'listStatusCodes',
        tags: ['operations'],
        summary: 'The whole ERC-1066 to HTTP table this gateway answers by (all 256 codes)',
        response: { 200: jsonResponse('the table', statusCodesSchema) },
      },
    },
    async (_request, reply) => reply.type('application/json').send(body),
  )
}
