// The chain a request is for (X-Chain-Id, else the default one: docs/api-contract.md §2), resolved
// once per request and kept with it: the common headers, the console's pause, the intent routes,
// the payment's price and the account route all ask here, and X-Chain-Id is read nowhere else.
import type { FastifyRequest } from 'fastify'
import type { ChainRegistry, ChainSelection } from '../intents/createChainRegistry.ts'

type Resolved = {
  /** registry.select's answer, or what it threw (a malformed or missing id: InputError). */
  selection: { ok: true; value: ChainSelection } | { ok: false; error: unknown }
  /** What the response's headers name: the chain selected, else the header as sent, made header-safe. */
  described: { chainId: string; chainType: string }
  /** Whether the request names a chain (X-Chain-Id present and not blank). */
  named: boolean
}

const resolved = new WeakMap<FastifyRequest, Resolved>()

function resolve(registry: ChainRegistry, request: FastifyRequest): Resolved {
  const known = resolved.get(request)
  if (known) return known
  const raw = request.headers['x-chain-id']
  const header = Array.isArray(raw) ? raw[0] : raw
  let entry: Resolved
  try {
    const value = registry.select(header)
    entry = {
      selection: { ok: true, value },
      described: { chainId: value.chainId, chainType: value.chainType ?? '' },
      named: Boolean(header?.trim()),
    }
  } catch (error) {
    entry = { selection: { ok: false, error }, described: registry.describe(header), named: Boolean(header?.trim()) }
  }
  resolved.set(request, entry)
  return entry
}

/** The chain the request is for; throws what the registry throws for a malformed or missing X-Chain-Id (400). */
export function requestChain(registry: ChainRegistry, request: FastifyRequest): ChainSelection {
  const { selection } = resolve(registry, request)
  if (!selection.ok) throw selection.error
  return selection.value
}

/** The chain the request names, when it names one (X-Chain-Id present and not blank); throws as requestChain does. */
export function namedChain(registry: ChainRegistry, request: FastifyRequest): ChainSelection | undefined {
  return resolve(registry, request).named ? requestChain(registry, request) : undefined
}

/** The chain id and type an answer to the request names, without failing (error answers included). */
export function describedChain(
  registry: ChainRegistry,
  request: FastifyRequest,
): { chainId: string; chainType: string } {
  return resolve(registry, request).described
}
