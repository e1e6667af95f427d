// The x402 payment settings: what execute and validate cost per chain, who settles, and whether
// API-key clients pay too. Parsed once at start-up; every problem names its variable. A price is
// paid on a network of one payment family (x402's exact EVM scheme, an EIP-3009 token; the exact
// SVM scheme, an SPL token): the network's family decides, whatever runtime the priced chain is.
// Each family reads its own prices and facilitator key (PaymentFamilySettings, in its room
// payments/mechanisms/<family>/); the composition root hands the list in, so config/ names none.

import type { Hex } from 'viem'
import type { ChainType } from '../ports/chainId.ts'
import type { KeySource } from '../ports/keySource.ts'
import { readBoolean } from './readBoolean.ts'
import type { FacilitatorKeyRole, FacilitatorKeySources } from './signersConfig.ts'

/** A price in one EIP-3009 token or SPL token, in its smallest unit, or a dollar amount x402 resolves to USDC. */
export type PriceConfig = {
  /** CAIP-2 network the payment is made on (the chain's own id unless given). */
  network: `${string}:${string}`
  /** Who is paid: an EVM address, or a Solana address (the owner of the token account paid into). */
  payTo: string
  /**
   * EVM: `{ asset, amount, extra: { name, version } }`, or `"$0.01"` on a network with a default
   * USDC. Solana: `{ asset: <mint>, amount }`.
   */
  price: { asset: string; amount: string; extra?: { name: string; version: string } | undefined } | `$${string}`
  /**
   * Set when `network` is a public Solana cluster's id standing for the priced chain (the devnet
   * only): payments are then settled on the priced chain, not on that cluster.
   */
  settleOn?: string | undefined
  /** How long an authorization must stay valid for the gateway to settle it. */
  maxTimeoutSeconds: number
  /**
   * Execute only: the most gas one payment buys (what the price covers). A paid intent that needs
   * more answers 422 (0x06) before anything is paid; MAX_GAS_PER_EXECUTION applies too.
   */
  maxGas?: bigint | undefined
}

export type PricedRoute = 'execute' | 'validate'

/**
 * The in-process facilitator's keys: `privateKey` settles on EVM networks (it pays their gas),
 * `solanaSecretKey` (a 32-byte Ed25519 seed) co-signs and pays the fees of Solana settlements.
 * Either may instead live in a PKCS#11 token or KMS (`evmKey`, `solanaKey`: config/signersConfig.ts),
 * never both for one key.
 */
export type FacilitatorConfig =
  | {
      kind: 'local'
      privateKey?: Hex | undefined
      solanaSecretKey?: Uint8Array | undefined
      evmKey?: KeySource | undefined
      solanaKey?: KeySource | undefined
    }
  | { kind: 'remote'; url: string }

export type LocalFacilitatorConfig = Extract<FacilitatorConfig, { kind: 'local' }>

/** Where a price is read: its network, the priced chain, the setting's path for messages. */
export type PriceAt = { network: string; chainId: string; where: string; production: boolean; problems: string[] }

/**
 * What a payment family reads of the x402 settings itself, as a runtime reads its own
 * (config/runtimeModule.ts): a price on one of its networks and the in-process facilitator's key
 * for them. Each family's room (payments/mechanisms/<family>/) gives one with its mechanism; the
 * composition root (src/runtimes.ts) hands the list to loadConfig.
 */
export type PaymentFamilySettings = {
  /** How messages name its networks (`EVM (eip155:<chain id>)`) and x402's scheme for them (`EVM`). */
  networkForm: string
  schemeName: string
  /** How the message on a price that is not an object names its price's forms. */
  priceForms: string
  /** An example of X402_PRICES for messages (the first family's that gives one is shown). */
  pricesExample?: string | undefined
  /** Whether a CAIP-2 network is one of the family's. */
  isNetwork(network: string): boolean
  /** Reads a price on one of its networks, pushing every problem onto `at.problems`. */
  readPrice(value: Record<string, unknown>, at: PriceAt): PriceConfig | undefined
  facilitatorKey: FacilitatorKeySettings
}

/** The in-process facilitator's key for a family's networks. */
export type FacilitatorKeySettings = FacilitatorKeyRole & {
  /** Reads it as given in its setting (`<prefix>_PRIVATE_KEY`): the local facilitator's fields it sets, or the problem. */
  read(
    raw: string,
    at: { relayerKey: unknown; production: boolean },
  ): Partial<LocalFacilitatorConfig> | { problem: string }
  /** Its key held in a signer backend, as the local facilitator's field. */
  held(source: KeySource): Partial<LocalFacilitatorConfig>
  /** The problem when one of its networks is priced and the in-process facilitator has no key for it; `held`: the settings that could name it in a backend. */
  missing(held: readonly string[]): string
}

export type PaymentsConfig = {
  /** By the gateway's CAIP-2 chain id; a chain or route missing here is free. */
  prices: Record<string, Partial<Record<PricedRoute, PriceConfig>>>
  /** PRICE_API_KEY_CLIENTS: whether a request with a valid API key pays too (default: no). */
  priceApiKeyClients: boolean
  facilitator: FacilitatorConfig
  /**
   * SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: the highest compute unit price (micro-lamports per unit)
   * a Solana payment may set, the in-process facilitator paying it as fee payer; above it the
   * payment is refused before anything is signed. Default 50,000 (payments/svmFeeLimits.ts says why).
   */
  solanaMaxPriorityFeeMicroLamports?: number | undefined
}

export type Env = Record<string, string | undefined>

const routes: readonly PricedRoute[] = ['execute', 'validate']
const defaultMaxTimeoutSeconds = 300

/**
 * Reads X402_PRICES, PRICE_API_KEY_CLIENTS, each family's facilitator key (`families`: FACILITATOR_PRIVATE_KEY,
 * FACILITATOR_SOLANA_PRIVATE_KEY), SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS and FACILITATOR_URL; `facilitatorKeys` are the facilitator's keys held in a token or KMS
 * (signersConfig, which reads and checks their settings). Returns
 * undefined when no price is configured (payments off); pushes every problem onto `problems`.
 *
 * X402_PRICES is JSON: `{ "<CAIP-2 chain>": { "execute": <price>, "validate": <price> } }`, a price
 * being `{ "asset", "amount", "payTo", "extra": { "name", "version" }, "network"?, "maxTimeoutSeconds"? }`
 * or `{ "price": "$0.01", "payTo", "network"? }`.
 */
export function parsePaymentsConfig(
  env: Env,
  {
    families,
    relayerKeyOf = () => undefined,
    chainIds,
    problems,
    production = env.NODE_ENV?.trim() === 'production',
    facilitatorKeys,
    heldSettingsOf,
  }: {
    /** The payment families' settings (src/runtimes.ts passes payments/mechanisms/paymentFamilies.ts), each reading its own. */
    families: readonly PaymentFamilySettings[]
    /** A runtime's first relayer key held in the process, in its own form: a family's facilitator key must not be it. */
    relayerKeyOf?: ((chainType: ChainType) => unknown) | undefined
    chainIds: readonly string[] | undefined
    problems: string[]
    production?: boolean
    facilitatorKeys?: FacilitatorKeySources | undefined
    /** The settings that name a key of this prefix in the signer backends (signersConfig's heldKeySettings over the backends loadConfig is handed). */
    heldSettingsOf: (prefix: string) => readonly string[]
  },
): PaymentsConfig | undefined {
  const priceApiKeyClients = readBoolean(env, 'PRICE_API_KEY_CLIENTS', problems)
  const keys = families.map(({ facilitatorKey }) => facilitatorKey)
  const rawSettings = keys.map((key) => `${key.prefix}_PRIVATE_KEY`)
  const heldSettings = keys.map((key) => heldSettingsOf(key.prefix))
  const given = rawSettings.map((setting) => env[setting]?.trim() || undefined)
  const facilitatorUrl = env.FACILITATOR_URL?.trim() || undefined
  // A key named in a backend counts as given even when its source has a problem of its own (signersConfig reports it).
  const held = heldSettings.map((settings) => settings.find((setting) => env[setting]?.trim()))
  const local = given.some(Boolean) || held.some(Boolean)
  const prices = readPrices(env.X402_PRICES, chainIds, families, production, problems)
  // A public cluster's id standing for a local chain must stand for one chain only, and not also be served as itself.
  const standsFor = new Map<string, string>()
  for (const routes of Object.values(prices ?? {})) {
    for (const price of Object.values(routes)) {
      if (!price.settleOn) continue
      const other = standsFor.get(price.network)
      if (other && other !== price.settleOn)
        problems.push(
          `X402_PRICES: ${price.network} stands for both ${other} and ${price.settleOn}; a public cluster's id may stand for one chain only`,
        )
      else if (chainIds?.includes(price.network))
        problems.push(`X402_PRICES: ${price.network} is served as itself and cannot also stand for ${price.settleOn}`)
      standsFor.set(price.network, price.settleOn)
    }
  }
  const priced = families.map((family) =>
    Object.values(prices ?? {}).some((routes) => Object.values(routes).some((p) => family.isNetwork(p.network))),
  )

  let facilitator: FacilitatorConfig | undefined
  if (local && facilitatorUrl) {
    problems.push(
      `FACILITATOR_URL: set either FACILITATOR_URL (a remote facilitator) or the in-process facilitator's keys (${rawSettings.join(' / ')}, or in a token or KMS: ${heldSettings.flat().join(', ')}), not both`,
    )
  } else if (facilitatorUrl) {
    const problem = urlProblem(facilitatorUrl)
    if (problem) problems.push(`FACILITATOR_URL: ${problem}`)
    else facilitator = { kind: 'remote', url: facilitatorUrl.replace(/\/+$/, '') }
  } else if (local) {
    // Each family's key given in the process, read by the family: the fields it sets, or undefined.
    let ok = true
    const read = keys.map((key, i) => {
      const raw = given[i]
      if (!raw) return undefined
      const fields = key.read(raw, { relayerKey: relayerKeyOf(key.relayerChainType), production })
      if ('problem' in fields) {
        problems.push(fields.problem)
        ok = false
        return undefined
      }
      return fields
    })
    if (ok) {
      const missing = keys.findIndex((_, i) => priced[i] && !read[i] && !held[i])
      if (missing >= 0) problems.push(keys[missing]!.missing(heldSettings[missing]!))
      else
        facilitator = Object.assign(
          { kind: 'local' as const },
          ...read.map((fields) => fields ?? {}),
          ...keys.map((key, i) => {
            const source = facilitatorKeys?.[key.role]
            return source && !read[i] ? key.held(source) : {}
          }),
        )
    }
  }

  if (env.X402_PRICES?.trim() && !local && !facilitatorUrl) {
    problems.push(
      `X402_PRICES: prices need a facilitator: set ${rawSettings.join(' and/or ')} (in-process; or their keys in a token or KMS: ${heldSettings.flat().join(', ')}) or FACILITATOR_URL (remote)`,
    )
  }
  const solanaMaxPriorityFeeMicroLamports = readFacilitatorPriorityFeeCeiling(env)
  if (!prices || Object.keys(prices).length === 0 || !facilitator) return undefined
  return { prices, priceApiKeyClients, facilitator, solanaMaxPriorityFeeMicroLamports }
}

function readPrices(
  raw: string | undefined,
  chainIds: readonly string[] | undefined,
  families: readonly PaymentFamilySettings[],
  production: boolean,
  problems: string[],
): PaymentsConfig['prices'] | undefined {
  if (!raw?.trim()) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch (err) {
    problems.push(`X402_PRICES: not valid JSON (${(err as Error).message})`)
    return undefined
  }
  if (!isObject(parsed)) {
    const example = families.find((f) => f.pricesExample)?.pricesExample
    problems.push(`X402_PRICES: must be a JSON object keyed by CAIP-2 chain id${example ? `, e.g. ${example}` : ''}`)
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
      const price = readPrice(value, chainId, `${where}.${route}`, families, production, problems)
      if (price) entry[route as PricedRoute] = price
    }
    if (Object.keys(entry).length > 0) prices[chainId] = entry
  }
  return prices
}

/** A price on the network of the family whose network it is, read by that family. */
function readPrice(
  value: unknown,
  chainId: string,
  where: string,
  families: readonly PaymentFamilySettings[],
  production: boolean,
  problems: string[],
): PriceConfig | undefined {
  if (!isObject(value)) {
    problems.push(`${where}: must be an object: ${families.map((f) => f.priceForms).join(', ')}`)
    return undefined
  }
  const network = value.network === undefined ? chainId : value.network
  const family = typeof network === 'string' ? families.find((f) => f.isNetwork(network)) : undefined
  if (family && typeof network === 'string')
    return family.readPrice(value, { network, chainId, where, production, problems })
  problems.push(
    `${where}.network: "${String(network).slice(0, 40)}" is not an ${families.map((f) => f.networkForm).join(' or ')} CAIP-2 network; x402's exact ${families.map((f) => f.schemeName).join(' and ')} schemes are supported`,
  )
  return undefined
}

/** A price's maxTimeoutSeconds (default 300), read the same for every family. */
export function readMaxTimeout(value: Record<string, unknown>, where: string, problems: string[]): number {
  if (value.maxTimeoutSeconds === undefined) return defaultMaxTimeoutSeconds
  if (
    !Number.isInteger(value.maxTimeoutSeconds) ||
    (value.maxTimeoutSeconds as number) < 10 ||
    (value.maxTimeoutSeconds as number) > 86_400
  ) {
    problems.push(`${where}.maxTimeoutSeconds: must be an integer from 10 to 86400`)
    return defaultMaxTimeoutSeconds
  }
  return value.maxTimeoutSeconds as number
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

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Default SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: 50,000 micro-lamports per unit, x402's own
 * ceiling for smart-wallet payments (its smartWalletMaxPriorityFeeMicroLamports default), and
 * room for a wallet that bids to land faster. With the 20,000-unit ceiling the priority fee is at
 * most 1,000 lamports, a tenth of the two signatures' 10,000, so a payment costs the fee payer at
 * most 11,000 lamports; x402's own client bids 1 (a priority fee of 1 lamport: 10,001 in all).
 */
export const defaultSolanaMaxPriorityFeeMicroLamports = 50_000

/**
 * SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS is one ceiling for everything the gateway pays per compute
 * unit on Solana: the relayer's bids (chains/solana/solanaOptions.ts, which reports a malformed
 * value) and what a payment may ask its fee payer for. Set, it caps both (a payment's price at most
 * x402's own 5,000,000); unset, each has its own default, the payment's lower (svmFeeLimits.ts says why).
 */
function readFacilitatorPriorityFeeCeiling(env: Env): number {
  const raw = env.SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS?.trim()
  const value = raw && /^\d+$/.test(raw) ? Number(raw) : Number.NaN
  return Number.isSafeInteger(value) ? Math.min(value, 5_000_000) : defaultSolanaMaxPriorityFeeMicroLamports
}
