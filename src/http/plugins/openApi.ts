// GET /openapi.json: the OpenAPI 3.1 document @fastify/swagger builds from the route schemas
// (src/http/schemas), and GET /docs: Swagger UI rendering it, from the package's own files.
// Register it before the routes: @fastify/swagger only sees routes added after it has loaded.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { apiKeyScheme, jsonResponse, openApiDocumentSchema, registerSharedSchemas } from '../schemas/httpSchemas.ts'

export function registerOpenApi(app: FastifyInstance) {
  // The shared bodies (Outcome, Problem) the route schemas refer to by $id.
  registerSharedSchemas(app)
  app.register(swagger, {
    // Shared schemas are named by their $id under components.schemas.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Intent Gateway',
        version: '0.1.0',
        description:
          'HTTP gateway between AI agents and blockchains (EVM, Solana, Sui): validates and executes intents and answers with the ERC-1066 code of the outcome, ' +
          'mapped to an HTTP status (GET /status-codes has the whole table). Every response carries X-ERC1066-Status, X-Status-Code, X-Intent-Hash, X-Chain-Type, ' +
          'X-Chain-Id and X-Payment-Required; errors are RFC 9457 problem details (application/problem+json) with the same outcome fields.',
      },
      tags: [
        { name: 'intents', description: 'validate, execute, and follow intents' },
        { name: 'chains', description: 'the chains this gateway serves' },
        { name: 'operations', description: 'health, readiness, the status code table, this document' },
        { name: 'agents', description: 'the Model Context Protocol server: the same operations as MCP tools' },
      ],
      components: {
        securitySchemes: {
          [apiKeyScheme]: {
            type: 'http',
            scheme: 'bearer',
            description: 'an API key, when the gateway is configured with API_KEYS: Authorization: Bearer <key>. Without keys configured every route is open.',
          },
        },
      },
    },
  })

  // Swagger UI's own page, scripts and styles, served by this process: nothing from the internet.
  app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } })

  app.register(async (instance) => {
    instance.get(
      '/openapi.json',
      {
        schema: {
          operationId: 'getOpenApi',
          tags: ['operations'],
          summary: 'This OpenAPI 3.1 document, generated from the route schemas; GET /docs renders it',
          response: { 200: jsonResponse('the document', openApiDocumentSchema) },
        },
      },
      async (_request, reply) => reply.type('application/json').send(instance.swagger()),
    )
  })
}
