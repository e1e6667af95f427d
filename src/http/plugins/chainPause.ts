// The pause switch at the door of POST /intents/execute: on a chain an operator paused, an execute
// is answered 503 (0x42 Paused, problem type chain-paused, Retry-After) before any credential,
// price or payment is looked at and before anything is claimed. A repeat of an intent already sent
// still gets its outcome replayed (§15): the answer is the journal's, nothing is sent. Validate is
// not touched. An app-level preValidation hook: it runs before the route's own hooks (credential,
// payments), which is the point.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ChainRegistry } from '../../intents/createChainRegistry.ts'
import { parseIntent } from '../../intents/parseIntent.ts'
import { replayExecution } from '../../intents/replayExecution.ts'
import type { OpsSwitches } from '../../ops/createOpsSwitches.ts'
import type { ChainRuntime } from '../../ports/chainRuntime.ts'
import type { IntentBody } from '../../ports/intent.ts'
import type { Journal } from '../../ports/journal.ts'
import { toProblemDetails } from '../problemDetails.ts'
import { requestChain } from '../requestChain.ts'

/** ERC-1066 0x42: Paused (not among Status's names: no other route answers it). */
const paused = 0x42

export const chainPausedType = 'urn:intent-gateway:problem:chain-paused'

export type ChainPauseOptions = {
  registry: ChainRegistry
  journal: Journal
  switches: Pick<OpsSwitches, 'pausedOn'>
  /** Retry-After of the refusal, in seconds (default 30: an operator's pause is not a blip). */
  retryAfterSeconds?: number | undefined
  /** The route paused (default POST /intents/execute). */
  url?: string | undefined
}

export function registerChainPause(
  app: FastifyInstance,
  { registry, journal, switches, retryAfterSeconds = 30, url = '/intents/execute' }: ChainPauseOptions,
) {
  app.addHook('preValidation', async (request: FastifyRequest, reply) => {
    if (request.method !== 'POST' || request.routeOptions.url !== url) return
    let selection
    try {
      selection = requestChain(registry, request)
    } catch {
      // Not a chain id: the route answers that (400).
      return
    }
    if (!selection.configured) return
    const pause = switches.pausedOn(selection.chainId)
    if (!pause) return
    // A repeat of an intent already sent: the route replays its outcome (nothing sent, nothing charged).
    const hash = intentHashOf(selection.runtime, request.body)
    if (
      hash &&
      (await replayExecution({ adapter: selection.adapter, journal, intentHash: hash }).catch(() => undefined))
    )
      return
    request.gateway.chainId = selection.chainId
    request.gateway.chainType = selection.chainType
    if (hash) request.gateway.intentHash = hash
    request.gateway.status = paused
    const problem = toProblemDetails({
      httpStatus: 503,
      status: paused,
      title: 'Execution is paused on this chain',
      detail: `an operator paused execution on ${selection.chainId} at ${pause.at.toISOString()}; nothing was claimed or charged, and validate still answers: retry after it resumes`,
      context: request.gateway,
    })
    return reply
      .code(503)
      .header('retry-after', String(retryAfterSeconds))
      .type('application/problem+json')
      .send({ ...problem, type: chainPausedType })
  })
}

function intentHashOf(runtime: ChainRuntime, body: unknown): `0x${string}` | undefined {
  try {
    return runtime.hashIntent(parseIntent(body as IntentBody, runtime))
  } catch {
    return undefined
  }
}
