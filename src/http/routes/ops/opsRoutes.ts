// The operator's console: GET /ops (the page and its two static files, no data in them), its
// snapshot (GET /ops/state) and live feed (GET /ops/events), and the switches, each an
// authenticated JSON endpoint journaled before it takes effect. Reading needs ops:read (or an
// OPS_API_KEYS key), switching ops:write (or such a key); an agent's key is refused.

import { readFileSync } from 'node:fs'
import { PassThrough } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { projectFile } from '../../../config/projectFile.ts'
import { GatewayError } from '../../../errors/gatewayError.ts'
import { InputError } from '../../../errors/inputError.ts'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import type { OpsCredentialCheck } from '../../../ops/createOpsCredentialCheck.ts'
import type { OpsFeed } from '../../../ops/createOpsFeed.ts'
import type { OpsSwitches } from '../../../ops/createOpsSwitches.ts'
import type { OpsState } from '../../../ops/gatherOpsState.ts'
import { parseChainId } from '../../../ports/chainId.ts'
import type { Journal } from '../../../ports/journal.ts'
import type { OpsAction, OpsAuditEntry, OpsSwitchStore } from '../../../ports/opsSwitchStore.ts'
import { Status } from '../../../status/statusCodes.ts'

/** The route patterns of the console: the Host check covers them (http/plugins/hostCheck.ts `hostRoutes`). */
export const opsRoutePatterns = [
  '/ops',
  '/ops/app.js',
  '/ops/app.css',
  '/ops/state',
  '/ops/events',
  '/ops/chains/:chainId/:action',
  '/ops/instances/:instanceId/:action',
  '/ops/transactions/:transactionId/retry',
] as const

/** What the page may load: its own files, nothing inline, never framed. */
export const opsContentSecurityPolicy = "default-src 'self'; script-src 'self'; frame-ancestors 'none'"

export type OpsRoutesOptions = {
  check: OpsCredentialCheck
  switches: OpsSwitches
  store: OpsSwitchStore
  feed: OpsFeed
  snapshot: () => Promise<OpsState>
  registry: ChainRegistry
  journal: Journal
  /** Viewers of the live feed at once on this instance (default 16): more are 429. */
  maxViewers?: number | undefined
  heartbeatMs?: number | undefined
  /** Told of every switch taken (metrics). */
  onSwitch?: ((action: OpsAction) => void) | undefined
}

const pageDir = projectFile('src/ops/page/')
const files = {
  '/ops': { type: 'text/html; charset=utf-8', name: 'index.html' },
  '/ops/app.js': { type: 'text/javascript; charset=utf-8', name: 'app.js' },
  '/ops/app.css': { type: 'text/css; charset=utf-8', name: 'app.css' },
} as const

const problemResponse = {
  description: 'a problem (RFC 9457)',
  content: { 'application/problem+json': { schema: { type: 'object', additionalProperties: true } } },
}
const jsonObject = (description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
})
const reasonBody = {
  type: 'object',
  additionalProperties: false,
  properties: { reason: { type: 'string', maxLength: 200, description: "the operator's reason, kept in the audit" } },
}
const security = [{ opsKey: [] }]

export function registerOpsRoutes(
  app: FastifyInstance,
  {
    check,
    switches,
    store,
    feed,
    snapshot,
    registry,
    journal,
    maxViewers = 16,
    heartbeatMs = 15_000,
    onSwitch,
  }: OpsRoutesOptions,
) {
  // Read once: the page is three small files.
  const served = Object.entries(files).map(([url, f]) => ({
    url,
    type: f.type,
    body: readFileSync(new URL(f.name, pageDir)),
  }))
  for (const file of served) {
    app.get(file.url, { schema: { hide: true } as object }, async (_request, reply) =>
      reply
        .header('content-security-policy', opsContentSecurityPolicy)
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .type(file.type)
        .send(file.body),
    )
  }
  const reading = async (request: FastifyRequest) => void (request.opsActor = (await check(request, 'ops:read')).actor)
  const writing = async (request: FastifyRequest) => void (request.opsActor = (await check(request, 'ops:write')).actor)

  app.get(
    '/ops/state',
    {
      preValidation: reading,
      schema: {
        operationId: 'getOpsState',
        tags: ['ops'],
        summary:
          "The operator console's snapshot: chains, relayer keys, intents, payments, webhooks, throttled clients, the fleet, the switches",
        security,
        response: { 200: jsonObject('the snapshot'), 401: problemResponse, 403: problemResponse },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'no-store').send(await snapshot()),
  )

  app.get(
    '/ops/events',
    {
      preValidation: reading,
      schema: {
        operationId: 'opsEvents',
        tags: ['ops'],
        summary:
          "The console's live feed (text/event-stream): `state` (a whole snapshot, at least every 2 s while anything changes) and `intent` (one execution changed); read with fetch and the Authorization header",
        security,
        response: {
          200: { description: 'the event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          401: problemResponse,
          403: problemResponse,
          429: problemResponse,
        },
      },
    },
    async (request, reply) => {
      if (feed.viewers() >= maxViewers) {
        throw new GatewayError('Too many console feeds are open on this instance', {
          code: 'TOO_MANY_STREAMS',
          status: Status.RATE_LIMITED,
          details: `at most ${maxViewers}; close one`,
          headers: { 'retry-after': '5' },
        })
      }
      const stream = new PassThrough()
      const viewer = feed.subscribe({
        write: (frame) => stream.write(frame),
        onDrain: (listener) => stream.on('drain', listener),
      })
      const beat = setInterval(() => stream.write(': keep-alive\n\n'), heartbeatMs)
      beat.unref()
      request.raw.once('close', () => {
        clearInterval(beat)
        viewer.close()
        stream.end()
      })
      stream.write(': ops feed\n\n')
      return reply
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        .type('text/event-stream; charset=utf-8')
        .send(stream)
    },
  )

  const switchResponse = {
    200: jsonObject('the switch in force (unchanged when it already was)'),
    400: problemResponse,
    401: problemResponse,
    403: problemResponse,
    404: problemResponse,
  }
  app.post<{ Params: { chainId: string; action: string }; Body: { reason?: string } | undefined }>(
    '/ops/chains/:chainId/:action',
    {
      preValidation: writing,
      schema: {
        operationId: 'opsChainSwitch',
        tags: ['ops'],
        summary:
          'Pause or resume execution on one chain (journaled first; every instance within 2 s). Paused: execute answers 503 (0x42, chain-paused) before any price or claim, validate still answers, sent intents still replay',
        security,
        params: {
          type: 'object',
          properties: {
            chainId: { type: 'string', description: 'CAIP-2 id or EVM chain id' },
            action: { type: 'string', enum: ['pause', 'resume'] },
          },
          required: ['chainId', 'action'],
        },
        body: reasonBody,
        response: switchResponse,
      },
    },
    async (request, reply) => {
      const chainId = servedChain(registry, request.params.chainId)
      const pausing = request.params.action === 'pause'
      const before = switches.pausedOn(chainId)
      let entry: OpsAuditEntry | undefined
      if (pausing !== (before !== undefined)) {
        entry = await switches.apply({
          actor: request.opsActor!,
          action: pausing ? 'pause' : 'resume',
          target: chainId,
          detail: request.body?.reason,
        })
        onSwitch?.(entry.action)
      }
      const now = switches.pausedOn(chainId)
      return reply.header('cache-control', 'no-store').send({
        chainId,
        paused: now !== undefined,
        changed: entry !== undefined,
        since: (now ?? entry)?.at.toISOString() ?? null,
        by: (now ?? entry)?.actor ?? null,
        auditId: entry?.id ?? null,
      })
    },
  )

  app.post<{ Params: { instanceId: string; action: string }; Body: { reason?: string } | undefined }>(
    '/ops/instances/:instanceId/:action',
    {
      preValidation: writing,
      schema: {
        operationId: 'opsInstanceSwitch',
        tags: ['ops'],
        summary:
          'Drain an instance (it claims nothing new at once; each relayer key goes back once its transactions are mined or dropped) or undrain it',
        security,
        params: {
          type: 'object',
          properties: {
            instanceId: { type: 'string', maxLength: 100 },
            action: { type: 'string', enum: ['drain', 'undrain'] },
          },
          required: ['instanceId', 'action'],
        },
        body: reasonBody,
        response: switchResponse,
      },
    },
    async (request, reply) => {
      const { instanceId } = request.params
      const known = new Set([
        switches.instanceId,
        ...(await store.fleet()).map((f) => f.instanceId),
        ...switches.drained().map((d) => d.target),
      ])
      if (!known.has(instanceId)) throw notFound('instance', instanceId, `known: ${[...known].join(', ')}`)
      const draining = request.params.action === 'drain'
      const before = switches.drained().find((d) => d.target === instanceId)
      let entry: OpsAuditEntry | undefined
      if (draining !== (before !== undefined)) {
        entry = await switches.apply({
          actor: request.opsActor!,
          action: draining ? 'drain' : 'undrain',
          target: instanceId,
          detail: request.body?.reason,
        })
        onSwitch?.(entry.action)
      }
      const now = switches.drained().find((d) => d.target === instanceId)
      return reply.header('cache-control', 'no-store').send({
        instanceId,
        draining: now !== undefined,
        changed: entry !== undefined,
        since: (now ?? entry)?.at.toISOString() ?? null,
        by: (now ?? entry)?.actor ?? null,
        auditId: entry?.id ?? null,
      })
    },
  )

  app.post<{ Params: { transactionId: string }; Body: { reason?: string } | undefined }>(
    '/ops/transactions/:transactionId/retry',
    {
      preValidation: writing,
      schema: {
        operationId: 'opsRetryTransaction',
        tags: ['ops'],
        summary:
          "Re-price a stuck transaction now (journaled first): the same relayer nonce with fees raised to the market (at least the node's replacement minimum, within the fee ceiling), journaled as a new attempt before it is broadcast; whichever is mined settles the intent",
        security,
        params: {
          type: 'object',
          properties: {
            transactionId: { type: 'string', maxLength: 100, description: 'the pending transaction (EVM: its hash)' },
          },
          required: ['transactionId'],
        },
        body: reasonBody,
        response: { ...switchResponse, 409: problemResponse },
      },
    },
    async (request, reply) => {
      const wanted = request.params.transactionId.toLowerCase()
      const record = (await journal.pending()).find((r) => r.transaction?.id.toLowerCase() === wanted)
      if (!record?.transaction)
        throw notFound(
          'transaction',
          request.params.transactionId,
          'no pending transaction of this gateway has that id',
        )
      const adapter = registry.adapters.find((a) => a.chainId === record.chainId)
      if (!adapter?.replacement) throw conflict(`chain ${record.chainId} cannot re-price a transaction`)
      if (adapter.holdsRelayer && !adapter.holdsRelayer(record.transaction.relayer))
        throw conflict(`its relayer key ${record.transaction.relayer} is held by another instance: retry it there`)
      // Journaled before it takes effect.
      const entry = await switches.apply({
        actor: request.opsActor!,
        action: 'retry',
        target: record.transaction.id,
        detail: request.body?.reason,
      })
      onSwitch?.('retry')
      const replaced = record.attempt > 1 ? await journal.replaced(record) : []
      // As stuck as can be: the operator says so.
      const replacement = await adapter.replacement(
        { ...record.transaction, intent: record.intent, replaced },
        Math.max(Date.now() - record.updatedAt.getTime(), 86_400_000),
      )
      if (!replacement)
        return reply.send({
          transaction: record.transaction.id,
          retried: false,
          detail: 'nothing to do: its fees are already at the market or at the ceiling',
          auditId: entry.id,
        })
      const next = await journal.replace(
        record,
        replacement.tx,
        `replaced by attempt ${record.attempt + 1} (operator ${request.opsActor}): ${replacement.detail}`,
      )
      await replacement.broadcast()
      return reply.send({
        transaction: record.transaction.id,
        retried: true,
        replacement: replacement.tx.id,
        attempt: next.attempt,
        detail: replacement.detail,
        auditId: entry.id,
      })
    },
  )
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The operator a console request came from (`ops:<key id>` or an OAuth caller's id). */
    opsActor?: string | undefined
  }
}

function servedChain(registry: ChainRegistry, raw: string): string {
  const parsed = parseChainId(raw)
  const served = registry.adapters.find((a) => a.chainId === (typeof parsed === 'string' ? raw : parsed.caip2))
  if (!served) throw notFound('chain', raw, `served: ${registry.adapters.map((a) => a.chainId).join(', ') || 'none'}`)
  return served.chainId
}

function conflict(detail: string): InputError {
  return new InputError('The transaction cannot be retried here', {
    httpStatus: 409,
    errors: [{ field: 'transactionId', message: detail }],
  })
}

function notFound(kind: 'chain' | 'instance' | 'transaction', name: string, known: string): InputError {
  const shown = name.replace(/[^\x20-\x7e]/g, '?').slice(0, 100)
  return new InputError(`No such ${kind}: ${shown}`, {
    httpStatus: 404,
    errors: [
      {
        field: `${kind === 'chain' ? 'chain' : kind}Id`,
        message: `${kind} "${shown}" is not known to this gateway (${known})`,
      },
    ],
  })
}

export type { FastifyReply }
