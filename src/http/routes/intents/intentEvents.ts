// GET /intents/{intentHash}/events: an execution's events as server-sent events, read from the
// journal (so any instance streams any intent's events), until the intent is final, reverted or
// dropped. `Last-Event-ID` resumes after an event already delivered; a stream lasts at most
// streamLimitMs, after which the client reconnects with the last id it got. A client that has seen
// the last event of a finished intent gets 204, which tells an EventSource to stop reconnecting
// (otherwise it would, every second, for ever). Streams need no key, so they are bounded per client,
// per intent and in all (createStreamSlots): one more is 429 (0xF6) with Retry-After.
import { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { Hex } from 'viem'
import type { RequestAuthenticator } from '../../../auth/createRequestAuthenticator.ts'
import { InputError } from '../../../errors/inputError.ts'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import { intentHashParamsSchema } from '../../../intents/intentSchema.ts'
import { type ExecutionEvent, isFinished, toExecutionEvents } from '../../../intents/toExecutionEvents.ts'
import { isSettlementPending } from '../../../payments/settlementPending.ts'
import type { ExecutionRecord, Journal } from '../../../ports/journal.ts'
import { Status } from '../../../status/statusCodes.ts'
import { statusVocabulary } from '../../../status/statusVocabulary.ts'
import type { StreamRefusal, StreamSlots } from '../../createStreamSlots.ts'
import { toProblemDetails } from '../../problemDetails.ts'
import { namedChain } from '../../requestChain.ts'
import { chainHeaderSchema, commonResponseHeaders, outcomeResponses } from '../../schemas/httpSchemas.ts'
import { toClientAddressKey } from '../../toClientAddressKey.ts'

export const tooManyStreamsType = 'urn:intent-gateway:problem:too-many-event-streams'

export type IntentEventsOptions = {
  registry: ChainRegistry
  journal: Journal
  /** How often the journal is read for new events. Default 250 ms. */
  pollMs?: number
  /** The longest one stream lasts. Default 10 minutes. */
  streamLimitMs?: number
  /** A comment line this often keeps proxies from closing a quiet stream. Default 15 s. */
  heartbeatMs?: number
  /** The open streams' bounds; without it, none (tests of the route alone). */
  slots?: StreamSlots | undefined
  /** Who a request comes as: a client sending a valid API key or access token is counted by it, else by its address. */
  authenticate?: RequestAuthenticator | undefined
}

const refusals: Record<StreamRefusal, string> = {
  client:
    'this client (its API key, else its address) holds as many event streams as one client may (SSE_MAX_STREAMS_PER_CLIENT)',
  intent: 'this intent has as many event streams open as one intent may',
  total: 'the gateway has as many event streams open as it serves (SSE_MAX_STREAMS)',
}

export function registerIntentEventsRoute(
  app: FastifyInstance,
  {
    registry,
    journal,
    pollMs = 250,
    streamLimitMs = 600_000,
    heartbeatMs = 15_000,
    slots,
    authenticate,
  }: IntentEventsOptions,
) {
  app.get<{ Params: { intentHash: string } }>(
    '/intents/:intentHash/events',
    {
      schema: {
        operationId: 'getIntentEvents',
        tags: ['intents'],
        summary: "An execution's events, pushed as server-sent events until it is final",
        description:
          "text/event-stream: one event per state change of an execution this gateway sent (submitted, repriced, mined, final, reverted, dropped, reorged), each `id:` the event's id, `event:` its type and `data:` the JSON `{ id, type, intentHash, chainId, state, transactionHash, blockNumber, attempt, at, statusWords }` (`statusWords`: the MCP task state, the `relayer_*` code and its meaning, §18). Read from the journal: any instance streams any intent's events. The stream ends after `final`, or `dropped`; `Last-Event-ID` resumes after an event already received (receivers deduplicate by id). An intent paid for whose settlement is pending (x402 settlement_pending) streams once it is sent. 204 when the intent is finished and `Last-Event-ID` is its last event (nothing can follow: an EventSource stops reconnecting). Open streams are bounded: SSE_MAX_STREAMS_PER_CLIENT (default 4) per client (its API key when it sends a valid one, else its address, an IPv6 one by its /64), 16 per intent, SSE_MAX_STREAMS (default MAX_CONNECTIONS / 4) in all; one more is 429 (0xF6, problem type too-many-event-streams) with Retry-After. 404 (0xA0) for an intent this gateway never sent.",
        headers: chainHeaderSchema,
        params: intentHashParamsSchema,
        response: {
          200: {
            description: 'the event stream (text/event-stream)',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          204: {
            description:
              'the intent is finished and Last-Event-ID is its last event: nothing can follow (an EventSource stops reconnecting)',
            headers: commonResponseHeaders,
          },
          ...outcomeResponses([400, 404, 421, 429]),
        },
      },
    },
    async (request, reply) => {
      const intentHash = request.params.intentHash.toLowerCase() as Hex
      request.gateway.intentHash = intentHash
      const named = namedChain(registry, request)
      const chainId = named?.chainId ?? (await journal.get(intentHash))?.chainId
      const first = chainId ? await journal.attempts(chainId, intentHash) : []
      // Paid, its settlement not confirmed yet (x402 settlement_pending): nothing was sent, and it will
      // be once the settlement confirms: the stream waits for the execution's events.
      const awaitingSettlement =
        first.length === 0 &&
        chainId !== undefined &&
        (await journal.payments.forIntent(chainId, intentHash)).some(
          (p) => isSettlementPending(p) || (p.state === 'settled' && p.pendingRequest !== undefined),
        )
      if (first.length === 0 && !awaitingSettlement) {
        throw new InputError('Unknown intent', {
          httpStatus: 404,
          errors: [
            {
              field: 'intentHash',
              message: `no execution of this intent was sent by this gateway${chainId && named ? ` on ${chainId}` : ''}`,
            },
          ],
        })
      }
      request.gateway.chainId = chainId!
      request.gateway.chainType = registry.adapters.find((a) => a.chainId === chainId)?.chainType ?? ''
      request.gateway.status = Status.SUCCESS
      const lastEventId = request.headers['last-event-id']
      const resumeAfter = typeof lastEventId === 'string' ? lastEventId.slice(0, 200) : undefined
      // Finished, and the client has its last event: nothing can follow. 204 ends an EventSource for good.
      if (resumeAfter !== undefined && isFinished(first) && toExecutionEvents(first).at(-1)?.id === resumeAfter)
        return reply.code(204).header('cache-control', 'no-store').send()

      const authenticated =
        authenticate && request.headers.authorization !== undefined
          ? await authenticate(request).catch(() => undefined)
          : undefined
      const client = authenticated?.ok ? `key:${authenticated.caller.id}` : toClientAddressKey(request.ip)
      const slot = slots?.acquire(client, `${chainId}/${intentHash}`)
      if (slot && 'refused' in slot) {
        request.gateway.status = Status.RATE_LIMITED
        const problem = toProblemDetails({
          httpStatus: 429,
          status: Status.RATE_LIMITED,
          title: 'Too many event streams',
          detail: `${refusals[slot.refused]}; close one, or retry later`,
          context: request.gateway,
        })
        return reply
          .code(429)
          .header('retry-after', '5')
          .type('application/problem+json')
          .send({ ...problem, type: tooManyStreamsType })
      }
      // Freed when the stream ends, whichever side ends it.
      if (slot) reply.raw.once('close', slot.release)

      let closed = false
      request.raw.on('close', () => (closed = true))
      async function* stream(): AsyncGenerator<string> {
        const sent = new Set<string>()
        // Resuming: every event up to the one the client has is delivered already.
        if (resumeAfter) {
          const known = toExecutionEvents(first)
          const at = known.findIndex((e) => e.id === resumeAfter)
          for (const e of known.slice(0, at + 1)) sent.add(e.id)
        }
        const until = Date.now() + streamLimitMs
        let beat = Date.now() + heartbeatMs
        let records: ExecutionRecord[] = first
        // The mined (or reverted) event reported per attempt: a record back to pending has had its block reorganized away.
        const minedAt = new Map<number, string>()
        yield 'retry: 1000\n\n'
        for (;;) {
          for (const record of records) {
            const where = minedAt.get(record.attempt)
            if (where !== undefined && record.state === 'pending') {
              const reorged: ExecutionEvent = {
                id: `${where}:reorged`,
                type: 'reorged',
                intentHash,
                chainId: record.chainId,
                state: 'pending',
                transactionHash: record.transaction?.id,
                attempt: record.attempt,
                at: record.updatedAt.toISOString(),
                statusWords: statusVocabulary.ofEvent('reorged', 'pending'),
              }
              minedAt.delete(record.attempt)
              if (!sent.has(reorged.id)) {
                sent.add(reorged.id)
                yield format(reorged)
              }
            }
          }
          for (const event of toExecutionEvents(records)) {
            if (event.type === 'mined' || event.type === 'reverted') minedAt.set(event.attempt, event.id)
            if (sent.has(event.id)) continue
            sent.add(event.id)
            yield format(event)
          }
          if (isFinished(records) || closed || Date.now() >= until) return
          await new Promise((resolve) => setTimeout(resolve, pollMs))
          if (closed) return
          if (Date.now() >= beat) {
            beat = Date.now() + heartbeatMs
            yield ': keep-alive\n\n'
          }
          records = await journal.attempts(chainId!, intentHash)
        }
      }
      return reply
        .header('cache-control', 'no-store')
        .type('text/event-stream; charset=utf-8')
        .send(Readable.from(stream()))
    },
  )
}

function format(event: ExecutionEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
}
