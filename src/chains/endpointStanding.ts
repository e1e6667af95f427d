// Each endpoint's standing in its pool: which to try and in what order, what a failure or an
// answer does to it, the chain id check before first use, and what to say when none is left.
import { redactUrlsIn } from '../config/redactUrl.ts'
import { ChainUnavailableError } from '../errors/chainUnavailableError.ts'
import type { Endpoint, EndpointPoolContext } from './endpointPoolContext.ts'
import { describeFailure } from './rpcFailures.ts'

const maxCooldownMs = 30_000
const wrongChainCooldownMs = 5 * 60_000

export function orderEndpoints({ usable }: EndpointPoolContext, now: number): Endpoint[] {
  const ready = usable.filter((e) => e.retryAt <= now)
  // Endpoints back from a cooldown are probed first, so a recovered node is noticed at once.
  const probes = ready.filter((e) => e.consecutiveFailures > 0 || e.view.status === 'wrong-chain')
  const rest = ready
    .filter((e) => !probes.includes(e))
    .sort((a, b) => (a.view.latencyMs ?? Infinity) - (b.view.latencyMs ?? Infinity))
  const ordered = [...probes, ...rest]
  if (ordered.length > 0) return ordered
  // Everything is set aside: try the one whose cooldown ends first rather than fail outright.
  const soonest = usable.filter((e) => e.view.status !== 'wrong-chain').sort((a, b) => a.retryAt - b.retryAt)[0]
  return soonest ? [soonest] : []
}

/** No answer: set aside, for longer after each failure in a row. */
export function recordFailure(ctx: EndpointPoolContext, e: Endpoint, err: unknown): void {
  e.consecutiveFailures++
  e.view.failures++
  e.view.status = 'failing'
  e.view.lastError = redactUrlsIn(describeFailure(err))
  e.verified = false // what answers after a failure may be another node
  e.retryAt = Date.now() + Math.min(maxCooldownMs, 1000 * 2 ** (e.consecutiveFailures - 1))
  observe(ctx, e, false)
  ctx.log.warn(
    { endpoint: e.view.url, failures: e.consecutiveFailures, reason: e.view.lastError },
    'RPC endpoint failed; set aside',
  )
}

/** An answer (`latencyMs` undefined when it is not a measure of the endpoint: a node's error). */
export function recordSuccess(ctx: EndpointPoolContext, e: Endpoint, latencyMs: number | undefined): void {
  if (e.consecutiveFailures > 0) ctx.log.info({ endpoint: e.view.url }, 'RPC endpoint answers again')
  e.consecutiveFailures = 0
  e.retryAt = 0
  e.view.requests++
  e.view.status = 'healthy'
  observe(ctx, e, true)
  if (latencyMs !== undefined)
    e.view.latencyMs = e.view.latencyMs === undefined ? latencyMs : e.view.latencyMs * 0.8 + latencyMs * 0.2
}

/** Whether the endpoint serves the expected chain; one that serves another is refused loudly, for a while. */
export async function verifyChainId(ctx: EndpointPoolContext, e: Endpoint): Promise<boolean> {
  const { reference, chainId } = ctx
  const reported = Number(await e.send({ method: 'eth_chainId' }))
  if (reported !== reference) {
    e.view.status = 'wrong-chain'
    e.view.lastError = `reports chain id ${reported}, expected ${reference}`
    e.retryAt = Date.now() + wrongChainCooldownMs
    observe(ctx, e, false)
    ctx.log.error(
      { endpoint: e.view.url, reported, expected: reference },
      `RPC endpoint refused: it serves chain ${reported}, not ${chainId}`,
    )
    return false
  }
  e.verified = true
  return true
}

/** Why no endpoint could be asked. */
export function noEndpointError({ chainId, all, usable }: EndpointPoolContext): ChainUnavailableError {
  const wrongChain = usable.length > 0 && usable.every((e) => e.view.status === 'wrong-chain')
  const details = wrongChain
    ? 'every RPC endpoint serves another chain'
    : all.length > 0 && usable.length === 0
      ? 'every discovered RPC endpoint was refused (production calls only https endpoints at public addresses; set RPC_URLS)'
      : 'no RPC endpoint is configured or discovered'
  return new ChainUnavailableError(chainId, { details })
}

/** Up or down per endpoint, by its position in the list (never its URL). */
const observe = ({ rpcRecorder, chainId, all }: EndpointPoolContext, e: Endpoint, up: boolean) =>
  rpcRecorder?.observeEndpoint?.({ chain: chainId, endpoint: all.indexOf(e), up })
