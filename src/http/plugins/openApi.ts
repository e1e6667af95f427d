// GET /openapi.json: the OpenAPI 3.1 document @fastify/swagger builds from the route schemas
// (src/http/schemas), and GET /docs: Swagger UI rendering it, from the package's own files.
// Register it before the routes: @fastify/swagger only sees routes added after it has loaded.
// The document carries the one status vocabulary (`x-status-vocabulary`, docs/api-contract.md
// §18) from src/status/statusVocabulary.ts, and with OAuth on, an `oauth2` scheme beside the API
// key's on every operation that takes a credential. What it shows in a runtime's terms (X-Chain-Id's
// chain ids, worked requests and answers) comes from the runtime modules (schemas/createApiDocs.ts).
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { getStatusCode } from '../../status/statusCodes.ts'
import { statusVocabulary } from '../../status/statusVocabulary.ts'
import type { ApiDocs } from '../schemas/createApiDocs.ts'
import {
  apiKeyScheme,
  jsonResponse,
  metricsTokenScheme,
  openApiDocumentSchema,
  outcomeResponses,
  registerSharedSchemas,
} from '../schemas/httpSchemas.ts'
import { gatewayVersion } from './gatewayVersion.ts'

// biome-ignore lint/suspicious/noExplicitAny: route schemas are JSON Schema objects read and rewritten key by key
type RouteSchema = Record<string, any>

export type RegisterOpenApiOptions = {
  /** With OAUTH_ISSUER set: the issuer, whose RFC 8414 metadata the `oauth2` scheme names. */
  oauth?: { issuer: string } | undefined
  /** The runtimes' chain ids and worked examples the document shows. */
  docs: ApiDocs
}

/** The scheme of OAuth access tokens (OAUTH_ISSUER), beside the API key's. */
const oauthScheme = 'oauth2'

export function registerOpenApi(app: FastifyInstance, { oauth, docs }: RegisterOpenApiOptions) {
  // The shared bodies (Outcome, Problem) the route schemas refer to by $id.
  registerSharedSchemas(app)
  app.register(swagger, {
    // Shared schemas are named by their $id under components.schemas.
    transform: ({ schema, url }) => ({
      schema:
        schema && !(schema as RouteSchema).hide
          ? toDocumented(schema as RouteSchema, oauth !== undefined, docs)
          : schema,
      url,
    }),
    transformObject: (document) =>
      ({
        ...withoutUnusedSchemes(
          ('openapiObject' in document ? document.openapiObject : document.swaggerObject) as RouteSchema,
        ),
        'x-status-vocabulary': toStatusVocabularyDocument(),
      }) as RouteSchema,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Intent Gateway',
        version: gatewayVersion,
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'HTTP gateway between AI agents and blockchains (EVM, Solana, Sui): validates and executes intents and answers with the ERC-1066 code of the outcome, ' +
          'mapped to an HTTP status (GET /status-codes has the whole table). Every response carries X-ERC1066-Status, X-Status-Code, X-Intent-Hash, X-Chain-Type, ' +
          'X-Chain-Id and X-Payment-Required; errors are RFC 9457 problem details (application/problem+json) with the same outcome fields.',
      },
      // Relative: whichever host served this document (and "Try it out" on /docs) is the gateway.
      servers: [{ url: '/', description: 'this gateway: the host that served this document' }],
      tags: [
        { name: 'intents', description: 'validate, execute, and follow intents' },
        { name: 'chains', description: 'the chains this gateway serves' },
        { name: 'operations', description: 'health, readiness, the status code table, this document' },
        { name: 'agents', description: 'the Model Context Protocol server: the same operations as MCP tools' },
        {
          name: 'ops',
          description:
            "the operator's console: its snapshot, live feed and switches (OPS_API_KEYS or ops:read / ops:write)",
        },
      ],
      components: {
        securitySchemes: {
          [apiKeyScheme]: {
            type: 'http',
            scheme: 'bearer',
            description:
              'an API key, when the gateway is configured with API_KEYS: Authorization: Bearer <key>. Without keys configured every route is open.',
          },
          opsKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              "an operator's key (OPS_API_KEYS), or an OAuth access token granting ops:read (reading) or ops:write (switches); never an agent's API key",
          },
          [metricsTokenScheme]: {
            type: 'http',
            scheme: 'bearer',
            description:
              'METRICS_TOKEN, when configured: Authorization: Bearer <token> on GET /metrics (not an API key)',
          },
          ...(oauth
            ? {
                // OpenAPI 3.1 names a metadata document only as openIdConnectUrl; an RFC 8414 document has the same endpoints.
                [oauthScheme]: {
                  type: 'openIdConnect',
                  openIdConnectUrl: authorizationServerMetadataUrl(oauth.issuer),
                  description: `an OAuth 2.1 access token (JWT, typ at+jwt) from ${oauth.issuer}, for this gateway as its audience (RFC 8707 resource): Authorization: Bearer <token>. Checked after the API keys; scopes intents:validate, intents:execute, ops:read, ops:write. The protected resource metadata is at /.well-known/oauth-protected-resource (RFC 9728).`,
                },
              }
            : {}),
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

/**
 * What the document says of a route beyond its schema: an operation that declares no security
 * needs none (`security: []`, rather than leaving readers and linters to guess); every answer
 * names the common headers; every operation lists a 4xx (any request can have headers over the
 * limit: 431); the chain header described with the runtimes' chain ids; and working examples in
 * a runtime's terms, so that "Try it out" on /docs sends a real body and real parameters.
 */
function toDocumented(schema: RouteSchema, oauth: boolean, docs: ApiDocs): RouteSchema {
  const documented: RouteSchema = {
    ...schema,
    security: oauth ? withOAuth(schema.security ?? [], schema.operationId) : (schema.security ?? []),
  }
  const { requestExamples } = docs
  const examples = docs.responseExamples[schema.operationId] ?? {}
  const withDefault4xx: RouteSchema = Object.keys(schema.response ?? {}).some((status) => status.startsWith('4'))
    ? (schema.response ?? {})
    : { ...schema.response, ...outcomeResponses([431]) }
  // Every answer carries the common headers (X-Request-Id among them), also where a route's
  // schema names only its body; X-Chain-Id is described with a runtime's chain.
  documented.response = Object.fromEntries(
    Object.entries<RouteSchema>(withDefault4xx).map(([status, response]) => [
      status,
      withExamples(
        response.content && !response.headers
          ? { ...response, headers: docs.responseHeaders }
          : response.headers && 'X-Chain-Id' in response.headers
            ? { ...response, headers: { ...response.headers, 'X-Chain-Id': docs.chainIdAnswerHeader } }
            : response,
        examples[Number(status)],
      ),
    ]),
  )
  if (schema.headers?.properties?.['x-chain-id'])
    documented.headers = {
      ...schema.headers,
      properties: { ...schema.headers.properties, 'x-chain-id': docs.chainIdHeader },
    }
  const body = requestExamples.bodies[schema.operationId]
  if (body !== undefined && schema.body) documented.body = { ...schema.body, examples: [body] }
  if (schema.params?.properties) {
    const properties = Object.fromEntries(
      Object.entries<RouteSchema>(schema.params.properties).map(([name, property]) => [
        name,
        name in requestExamples.params ? { ...property, examples: [requestExamples.params[name]] } : property,
      ]),
    )
    documented.params = { ...schema.params, properties }
  }
  return documented
}

/** A response with examples of its body (`example1`, `example2`, … under its one media type). */
function withExamples(response: RouteSchema, values: unknown[] | undefined): RouteSchema {
  if (!values || !response.content) return response
  const content = Object.fromEntries(
    Object.entries<RouteSchema>(response.content).map(([mediaType, media]) => [
      mediaType,
      { ...media, examples: Object.fromEntries(values.map((value, i) => [`example${i + 1}`, { value }])) },
    ]),
  )
  return { ...response, content }
}

/** The scope a token needs per operation (the route's own check, src/app.ts); any valid token elsewhere. */
const scopeOf: Record<string, string[]> = { validateIntent: ['intents:validate'], executeIntent: ['intents:execute'] }

/** An access token beside each API-key requirement: either credential does. */
function withOAuth(security: Array<Record<string, string[]>>, operationId: string): Array<Record<string, string[]>> {
  return security.flatMap((requirement) =>
    apiKeyScheme in requirement ? [requirement, { [oauthScheme]: scopeOf[operationId] ?? [] }] : [requirement],
  )
}

/** RFC 8414 §3.1: the well-known path between the issuer's host and its path. */
function authorizationServerMetadataUrl(issuer: string): string {
  const url = new URL(issuer)
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')
  return `${url.origin}/.well-known/oauth-authorization-server${path}`
}

/**
 * The one status vocabulary (docs/api-contract.md §18) for clients that read the document: per
 * code its HTTP status, MCP task state, x402 settlement and `relayer_*` code; per execution state
 * the same; and what each `relayer_*` code means.
 */
function toStatusVocabularyDocument() {
  return {
    description:
      'ERC-1066 codes, HTTP statuses, MCP task states (Tasks extension of MCP 2026-07-28), x402 settlement states and the relayer_* status codes of Gelato-style relays, as this gateway maps them (docs/api-contract.md §18). GET /intents/{intentHash} and the execution events carry them as `statusWords`.',
    relayerStatusCodes: Object.fromEntries(Object.entries(statusVocabulary.relayerMeanings)),
    codes: statusVocabulary.codes().map((code) => {
      const entry = getStatusCode(code)
      const row = statusVocabulary.row(code)!
      return {
        code: entry.hex,
        statusName: entry.statusName,
        httpStatus: entry.httpStatus,
        taskState: row.taskState,
        ...(row.taskNote ? { taskNote: row.taskNote } : {}),
        ...(row.x402 ? { x402Settlement: row.x402 } : {}),
        ...(row.relayer ? { relayerStatus: row.relayer } : {}),
      }
    }),
    executionStates: statusVocabulary.executionStates.map(({ state, final, eventTypes, taskState, relayer }) => ({
      state,
      ...(final !== undefined ? { final } : {}),
      eventTypes,
      taskState,
      relayerStatus: relayer,
    })),
  }
}

/** The document without the security schemes no operation asks for (no API keys configured: none). */
function withoutUnusedSchemes(document: RouteSchema): RouteSchema {
  const operations = Object.values<RouteSchema>(document.paths ?? {}).flatMap((item) =>
    Object.values<RouteSchema>(item),
  )
  const used = new Set(
    operations.flatMap((operation) =>
      (operation.security ?? []).flatMap((requirement: Record<string, unknown>) => Object.keys(requirement)),
    ),
  )
  const schemes = Object.fromEntries(
    Object.entries(document.components?.securitySchemes ?? {}).filter(([name]) => used.has(name)),
  )
  const { securitySchemes: _all, ...components } = document.components ?? {}
  return {
    ...document,
    components: Object.keys(schemes).length > 0 ? { ...components, securitySchemes: schemes } : components,
  }
}
