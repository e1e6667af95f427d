// Several RPC endpoints behind one chain. A request fails over between them; an endpoint that
// fails is set aside (with a growing cooldown) and probed again once the cooldown ends; healthy
// endpoints are ranked by measured latency. No endpoint is used before it has answered
// eth_chainId with the expected id, and one that reports another chain is refused loudly.
// An endpoint marked publicOnly (discovered, in production) is refused unless it is https and
// at a public address, checked on every connection, not only here (DNS can change).
import type { Logger } from 'pino'
import { BaseError, HttpRequestError, TimeoutError } from 'viem'
import { redactUrl, redactUrlsIn } from '../config/redactUrl.ts'
import { ChainUnavailableError } from '../errors/chainUnavailableError.ts'
import { isPublicAddress } from '../net/isPublicAddress.ts'
import { publicOnlyLookup } from '../net/publicOnlyLookup.ts'
import type { EndpointView, ResolvedEndpoint } from '../ports/endpoint.ts'
import type { RpcFailureKind, RpcRecorder } from '../metrics/createMetrics.ts'
import { type RpcCall, createJsonRpcClient } from './createJsonRpcClient.ts'


export type EndpointPool = {
  request(args: RpcCall): Promise<unknown>
  /**
   * The calls in one request, in this order, to one endpoint; on to the next endpoint only when
   * none of them got an answer. One settled answer per call.
   */
  sequence(calls: readonly RpcCall[]): Promise<PromiseSettledResult<unknown>[]>
  endpoints(): EndpointView[]
  close(): Promise<void>
}

type Endpoint = {
  view: EndpointView
  send: (args: RpcCall) => Promise<unknown>
  sequence: (calls: readonly RpcCall[]) => Promise<unknown>[]
  close: () => Promise<void>
  verified: boolean
  consecutiveFailures: number
  retryAt: number
}

const maxCooldownMs = 30_000
const wrongChainCooldownMs = 5 * 60_000

export function createEndpointPool({
  chainId,
  reference,
  endpoints,
  timeoutMs,
  logger,
  rpcRecorder,
}: {
  chainId: string
  reference: number
  endpoints: ResolvedEndpoint[]
  timeoutMs: number
  logger: Logger
  /** Told the duration (and failure) of each request, failover included. */
  rpcRecorder?: RpcRecorder | undefined
}): EndpointPool {
  const log = logger.child({ module: 'endpoints', chainId })
  // Up or down per endpoint, by its position in the list (never its URL).
  const observe = (e: Endpoint, up: boolean) => rpcRecorder?.observeEndpoint?.({ chain: chainId, endpoint: pool.indexOf(e), up })
  const pool: Endpoint[] = endpoints.map(({ url, source, publicOnly }, index) => {
    const view: EndpointView = { url: redactUrl(url), source, status: 'unverified', latencyMs: undefined, requests: 0, failures: 0, lastError: undefined }
    const refusal = publicOnly ? refuseInward(url) : undefined
    if (refusal) {
      log.warn({ endpoint: view.url, source, reason: refusal }, 'discovered RPC endpoint refused')
      rpcRecorder?.observeEndpoint?.({ chain: chainId, endpoint: index, up: false })
      const refused = async () => {
        throw new ChainUnavailableError(chainId, { details: refusal })
      }
      return { view: { ...view, status: 'refused', lastError: refusal }, send: refused, sequence: (calls: readonly RpcCall[]) => calls.map(refused), close: async () => {}, verified: false, consecutiveFailures: 0, retryAt: Infinity }
    }
    const { target, headers } = splitCredentials(url)
    const client = createJsonRpcClient({ url: target, headers, timeoutMs, lookup: publicOnly ? publicOnlyLookup : undefined })
    return { view, send: client.request, sequence: client.sequence, close: client.close, verified: false, consecutiveFailures: 0, retryAt: 0 }
  })
  const usable = pool.filter((e) => e.view.status !== 'refused')

  function order(now: number): Endpoint[] {
    const ready = usable.filter((e) => e.retryAt <= now)
    // Endpoints back from a cooldown are probed first, so a recovered node is noticed at once.
    const probes = ready.filter((e) => e.consecutiveFailures > 0 || e.view.status === 'wrong-chain')
    const rest = ready.filter((e) => !probes.includes(e)).sort((a, b) => (a.view.latencyMs ?? Infinity) - (b.view.latencyMs ?? Infinity))
    const ordered = [...probes, ...rest]
    if (ordered.length > 0) return ordered
    // Everything is set aside: try the one whose cooldown ends first rather than fail outright.
    const soonest = usable.filter((e) => e.view.status !== 'wrong-chain').sort((a, b) => a.retryAt - b.retryAt)[0]
    return soonest ? [soonest] : []
  }

  function fail(e: Endpoint, err: unknown) {
    e.consecutiveFailures++
    e.view.failures++
    e.view.status = 'failing'
    e.view.lastError = redactUrlsIn(describe(err))
    e.verified = false // what answers after a failure may be another node
    e.retryAt = Date.now() + Math.min(maxCooldownMs, 1000 * 2 ** (e.consecutiveFailures - 1))
    observe(e, false)
    log.warn({ endpoint: e.view.url, failures: e.consecutiveFailures, reason: e.view.lastError }, 'RPC endpoint failed; set aside')
  }

  async function verify(e: Endpoint): Promise<boolean> {
    const reported = Number(await e.send({ method: 'eth_chainId' }))
    if (reported !== reference) {
      e.view.status = 'wrong-chain'
      e.view.lastError = `reports chain id ${reported}, expected ${reference}`
      e.retryAt = Date.now() + wrongChainCooldownMs
      observe(e, false)
      log.error({ endpoint: e.view.url, reported, expected: reference }, `RPC endpoint refused: it serves chain ${reported}, not ${chainId}`)
      return false
    }
    e.verified = true
    return true
  }

  async function request(args: RpcCall): Promise<unknown> {
    if (!rpcRecorder) return requestWithFailover(args)
    const started = performance.now()
    try {
      const result = await requestWithFailover(args)
      rpcRecorder.observeRpc({ chain: chainId, method: args.method, seconds: (performance.now() - started) / 1000 })
      return result
    } catch (err) {
      rpcRecorder.observeRpc({ chain: chainId, method: args.method, seconds: (performance.now() - started) / 1000, failure: failureKind(err) })
      throw err
    }
  }

  async function requestWithFailover(args: RpcCall): Promise<unknown> {
    let lastError: unknown
    for (const e of order(Date.now())) {
      try {
        if (!e.verified && !(await verify(e))) continue
        const started = performance.now()
        const result = await e.send(args)
        succeed(e, performance.now() - started)
        return result
      } catch (err) {
        if (!isTransportFailure(err)) {
          // The node answered (a revert, a rejected transaction): that is its answer, not a fault.
          succeed(e, undefined)
          throw err
        }
        fail(e, err)
        lastError = err
      }
    }
    throw lastError ?? noEndpoint()
  }

  async function sequence(calls: readonly RpcCall[]): Promise<PromiseSettledResult<unknown>[]> {
    const started = performance.now()
    let answers: PromiseSettledResult<unknown>[] | undefined
    let lastError: unknown
    for (const e of order(Date.now())) {
      try {
        if (!e.verified && !(await verify(e))) continue
      } catch (err) {
        if (!isTransportFailure(err)) {
          answers = calls.map(() => ({ status: 'rejected', reason: err }))
          break
        }
        fail(e, err)
        lastError = err
        continue
      }
      const tried = await Promise.allSettled(e.sequence(calls))
      const unanswered = tried.find((a): a is PromiseRejectedResult => a.status === 'rejected' && isTransportFailure(a.reason))
      if (unanswered && tried.every((a) => a.status === 'rejected' && isTransportFailure(a.reason))) {
        fail(e, unanswered.reason)
        lastError = unanswered.reason
        continue
      }
      succeed(e, unanswered ? undefined : performance.now() - started)
      answers = tried
      break
    }
    const settled = answers ?? calls.map(() => ({ status: 'rejected' as const, reason: lastError ?? noEndpoint() }))
    const seconds = (performance.now() - started) / 1000
    calls.forEach((c, i) => {
      const a = settled[i]!
      rpcRecorder?.observeRpc({ chain: chainId, method: c.method, seconds, ...(a.status === 'rejected' ? { failure: failureKind(a.reason) } : {}) })
    })
    return settled
  }

  function noEndpoint(): ChainUnavailableError {
    const wrongChain = usable.length > 0 && usable.every((e) => e.view.status === 'wrong-chain')
    const details = wrongChain
      ? 'every RPC endpoint serves another chain'
      : pool.length > 0 && usable.length === 0
        ? 'every discovered RPC endpoint was refused (production calls only https endpoints at public addresses; set RPC_URLS)'
        : 'no RPC endpoint is configured or discovered'
    return new ChainUnavailableError(chainId, { details })
  }

  return {
    request,
    sequence,
    endpoints: () => pool.map((e) => ({ ...e.view })),
    close: async () => {
      await Promise.all(pool.map((e) => e.close()))
    },
  }

  function succeed(e: Endpoint, latencyMs: number | undefined) {
    if (e.consecutiveFailures > 0) log.info({ endpoint: e.view.url }, 'RPC endpoint answers again')
    e.consecutiveFailures = 0
    e.retryAt = 0
    e.view.requests++
    e.view.status = 'healthy'
    observe(e, true)
    if (latencyMs !== undefined) e.view.latencyMs = e.view.latencyMs === undefined ? latencyMs : e.view.latencyMs * 0.8 + latencyMs * 0.2
  }
}

function isTransportFailure(err: unknown): boolean {
  return err instanceof BaseError && Boolean(err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError))
}

function failureKind(err: unknown): RpcFailureKind {
  if (err instanceof BaseError && err.walk((e) => e instanceof TimeoutError)) return 'timeout'
  if (err instanceof ChainUnavailableError || isTransportFailure(err)) return 'unreachable'
  return 'node_error'
}

function describe(err: unknown): string {
  if (err instanceof BaseError) return err.walk((e) => e instanceof TimeoutError) ? 'timed out' : (err.details || err.shortMessage)
  return (err as Error)?.message ?? String(err)
}

/** Why a discovered URL is refused outright in production, if it is: its scheme or its IP literal. */
function refuseInward(url: string): string | undefined {
  const { protocol, hostname } = new URL(url)
  if (protocol !== 'https:') return 'discovered endpoints must use https in production'
  const literal = hostname.replace(/^\[|\]$/g, '')
  // A literal address is never looked up; a name is checked by publicOnlyLookup on each connection.
  if (/^[0-9.]+$/.test(literal) || literal.includes(':')) {
    if (!isPublicAddress(literal)) return `discovered endpoints must not be at a loopback, private or link-local address in production (${literal})`
  }
  return undefined
}

/** fetch refuses URLs with userinfo: send it as Basic authorization instead. */
function splitCredentials(url: string): { target: string; headers: Record<string, string> } {
  const parsed = new URL(url)
  if (!parsed.username && !parsed.password) return { target: url, headers: {} }
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`
  parsed.username = ''
  parsed.password = ''
  return { target: parsed.toString(), headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } }
}
