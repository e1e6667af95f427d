// The x402 payment settings: what execute and validate cost per chain, who settles, and whether
// API-key clients pay too. Parsed once at start-up; every problem names its variable.
import { readBoolean } from './readBoolean.ts'
import { getDefaultAsset } from '@x402/evm'
import { type Address, type Hex, getAddress, isAddress, isHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** A price in one EIP-3009 token, in its smallest unit, or a dollar amount x402 resolves to USDC. */
export type PriceConfig = {
  /** CAIP-2 network the payment is made on (the chain's own id unless given). */
  network: `${string}:${string}`
  payTo: Address
  /** `{ asset, amount, extra: { name, version } }`, or `"$0.01"` on a network with a default USDC. */
  price: { asset: Address; amount: string; extra: { name: string; version: string } } | `$${string}`
  /** How long an authorization must stay valid for the gateway to settle it. */
  maxTimeoutSeconds: number
  /**
   * Execute only: the most gas one payment buys (what the price covers). A paid intent that needs
   * more answers 422 (0x06) before anything is paid; MAX_GAS_PER_EXECUTION applies too.
   */
  maxGas?: bigint | undefined
}

export type PricedRoute = 'execute' | 'validate'

export type FacilitatorConfig = { kind: 'local'; privateKey: Hex } | { kind: 'remote'; url: string }

export type PaymentsConfig = {
  /** By the gateway's CAIP-2 chain id; a chain or route missing here is free. */
  prices: Record<string, Partial<Record<PricedRoute, PriceConfig>>>
  /** PRICE_API_KEY_CLIENTS: whether a request with a valid API key pays too (default: no). */
  priceApiKeyClients: boolean
  facilitator: FacilitatorConfig
}

export type Env = Record<string, string | undefined>

const routes: readonly PricedRoute[] = ['execute', 'validate']
const defaultMaxTimeoutSeconds = 300

/**
 * Reads X402_PRICES, PRICE_API_KEY_CLIENTS, FACILITATOR_PRIVATE_KEY and FACILITATOR_URL. Returns
 * undefined when no price is configured (payments off); pushes every problem onto `problems`.
 *
 * X402_PRICES is JSON: `{ "<CAIP-2 chain>": { "execute": <price>, "validate": <price> } }`, a price
 * being `{ "asset", "amount", "payTo", "extra": { "name", "version" }, "network"?, "maxTimeoutSeconds"? }`
 * or `{ "price": "$0.01", "payTo", "network"? }`.
 */
export function parsePaymentsConfig(
  env: Env,
  { relayerPrivateKey, chainIds, problems }: { relayerPrivateKey: Hex | undefined; chainIds: readonly string[] | undefined; problems: string[] },
): PaymentsConfig | undefined {
  const priceApiKeyClients = readBoolean(env, 'PRICE_API_KEY_CLIENTS', problems)
  const facilitatorKey = env.FACILITATOR_PRIVATE_KEY?.trim() || undefined
  const facilitatorUrl = env.FACILITATOR_URL?.trim() || undefined
  const prices = readPrices(env.X402_PRICES, chainIds, problems)

  let facilitator: FacilitatorConfig | undefined
  if (facilitatorKey && facilitatorUrl) {
    problems.push('FACILITATOR_URL: set either FACILITATOR_URL (a remote facilitator) or FACILITATOR_PRIVATE_KEY (the in-process one), not both')
  } else if (facilitatorUrl) {
    const problem = urlProblem(facilitatorUrl)
    if (problem) problems.push(`FACILITATOR_URL: ${problem}`)
    else facilitator = { kind: 'remote', url: facilitatorUrl.replace(/\/+$/, '') }
  } else if (facilitatorKey) {
    if (!isHex(facilitatorKey) || facilitatorKey.length !== 66) {
      problems.push('FACILITATOR_PRIVATE_KEY: not a 32-byte hex private key (0x + 64 hex digits)')
    } else if (relayerPrivateKey && privateKeyToAccount(facilitatorKey).address === privateKeyToAccount(relayerPrivateKey).address) {
      // The relayer's nonces belong to the journal: a settlement sent from the same account would collide with executions.
      problems.push('FACILITATOR_PRIVATE_KEY: must not be the relayer\'s key (RELAYER_PRIVATE_KEY); give the facilitator its own funded account')
    } else {
      facilitator = { kind: 'local', privateKey: facilitatorKey }
    }
  }

  if (env.X402_PRICES?.trim() && !facilitatorKey && !facilitatorUrl) {
    problems.push('X402_PRICES: prices need a facilitator: set FACILITATOR_PRIVATE_KEY (in-process) or FACILITATOR_URL (remote)')
  }
  if (!prices || Object.keys(prices).length === 0 || !facilitator) return undefined
  return { prices, priceApiKeyClients, facilitator }
}

function readPrices(raw: string | undefined, chainIds: readonly string[] | undefined, problems: string[]): PaymentsConfig['prices'] | undefined {
  if (!raw?.trim()) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch (err) {
    problems.push(`X402_PRICES: not valid JSON (${(err as Error).message})`)
    return undefined
  }
  if (!isObject(parsed)) {
    problems.push('X402_PRICES: must be a JSON object keyed by CAIP-2 chain id, e.g. {"eip155:8453":{"execute":{"price":"$0.01","payTo":"0x…"}}}')
    return undefined
  }
  const prices: PaymentsConfig['prices'] = {}
  for (const [chainId, perRoute] of Object.entries(parsed)) {
    const where = `X402_PRICES["${chainId.slice(0, 60)}"]`
    if (!/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(chainId)) {
      problems.push(`${where}: not a CAIP-2 chain id (namespace:reference, e.g. eip155:8453)`)
      continue
    }
    if (chainIds && !chainIds.includes(chainId)) {
      problems.push(`${where}: chain ${chainId} is not configured (configured: ${chainIds.join(', ') || 'none'})`)
      continue
    }
    if (!isObject(perRoute)) {
      problems.push(`${where}: must be an object with "execute" and/or "validate"`)
      continue
    }
    const entry: Partial<Record<PricedRoute, PriceConfig>> = {}
    for (const [route, value] of Object.entries(perRoute)) {
      if (!routes.includes(route as PricedRoute)) {
        problems.push(`${where}.${route.slice(0, 20)}: not a priced route (execute, validate)`)
        continue
      }
      const price = readPrice(value, chainId, `${where}.${route}`, problems)
      if (price) entry[route as PricedRoute] = price
    }
    if (Object.keys(entry).length > 0) prices[chainId] = entry
  }
  return prices
}

function readPrice(value: unknown, chainId: string, where: string, problems: string[]): PriceConfig | undefined {
  if (!isObject(value)) {
    problems.push(`${where}: must be an object: {"asset","amount","payTo","extra":{"name","version"}} or {"price":"$0.01","payTo"}`)
    return undefined
  }
  const before = problems.length
  const network = value.network === undefined ? chainId : value.network
  if (typeof network !== 'string' || !/^eip155:[0-9]{1,20}$/.test(network)) {
    problems.push(`${where}.network: "${String(network).slice(0, 40)}" is not an EVM CAIP-2 network (eip155:<chain id>); only x402's exact EVM scheme is supported`)
  }
  const payTo = value.payTo
  if (typeof payTo !== 'string' || !isAddress(payTo, { strict: false })) problems.push(`${where}.payTo: not an address (0x + 40 hex digits)`)
  let maxTimeoutSeconds = defaultMaxTimeoutSeconds
  if (value.maxTimeoutSeconds !== undefined) {
    if (!Number.isInteger(value.maxTimeoutSeconds) || (value.maxTimeoutSeconds as number) < 10 || (value.maxTimeoutSeconds as number) > 86_400) {
      problems.push(`${where}.maxTimeoutSeconds: must be an integer from 10 to 86400`)
    } else maxTimeoutSeconds = value.maxTimeoutSeconds as number
  }

  let maxGas: bigint | undefined
  if (value.maxGas !== undefined) {
    if (typeof value.maxGas !== 'number' || !Number.isSafeInteger(value.maxGas) || value.maxGas < 21_000) {
      problems.push(`${where}.maxGas: must be an integer of at least 21000: the most gas one payment buys`)
    } else maxGas = BigInt(value.maxGas)
  }

  let price: PriceConfig['price'] | undefined
  if (value.price !== undefined) {
    for (const field of ['asset', 'amount', 'extra']) {
      if (value[field] !== undefined) problems.push(`${where}.${field}: give either "price" (a dollar amount) or "asset", "amount" and "extra", not both`)
    }
    if (typeof value.price !== 'string' || !/^\$(0|[1-9][0-9]*)(\.[0-9]{1,6})?$/.test(value.price) || /^\$0(\.0*)?$/.test(value.price)) {
      problems.push(`${where}.price: "${String(value.price).slice(0, 20)}" is not a positive dollar amount like "$0.01"`)
    } else if (typeof network === 'string' && !hasDefaultUsdc(network)) {
      problems.push(`${where}.price: x402 knows no USDC on ${network}; give "asset", "amount" and "extra": {"name","version"} instead`)
    } else price = value.price as `$${string}`
  } else {
    const { asset, amount, extra } = value
    if (typeof asset !== 'string' || !isAddress(asset, { strict: false })) problems.push(`${where}.asset: not a token address (0x + 40 hex digits)`)
    if (typeof amount !== 'string' || !/^[1-9][0-9]{0,77}$/.test(amount)) problems.push(`${where}.amount: must be a positive integer string in the token's smallest unit (e.g. "10000" for 0.01 of a 6-decimal token)`)
    if (!isObject(extra) || typeof extra.name !== 'string' || !extra.name || typeof extra.version !== 'string' || !extra.version) {
      problems.push(`${where}.extra: must be {"name","version"}: the token's EIP-712 domain name and version`)
    }
    if (problems.length === before) {
      const e = extra as { name: string; version: string }
      price = { asset: getAddress(asset as string), amount: amount as string, extra: { name: e.name, version: e.version } }
    }
  }
  if (problems.length !== before || !price) return undefined
  return { network: network as PriceConfig['network'], payTo: getAddress(payTo as string), price, maxTimeoutSeconds, ...(maxGas !== undefined ? { maxGas } : {}) }
}

function hasDefaultUsdc(network: string): boolean {
  try {
    getDefaultAsset(network as `${string}:${string}`)
    return true
  } catch {
    return false
  }
}

function urlProblem(raw: string): string | undefined {
  try {
    const url = new URL(raw)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${url.protocol}" is not http or https`
    return undefined
  } catch {
    return 'not a URL'
  }
}


function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
