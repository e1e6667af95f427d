// The x402 payment settings: what execute and validate cost per chain, who settles, and whether
// API-key clients pay too. Parsed once at start-up; every problem names its variable. A price is
// paid on an EVM network (x402's exact EVM scheme, an EIP-3009 token) or a Solana one (the exact
// SVM scheme, an SPL token): the network's family decides, whatever runtime the priced chain is.

import { createHash } from 'node:crypto'
import { base58 } from '@scure/base'
import { getAddress, type Hex, isAddress, isHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { readBoolean } from './readBoolean.ts'
import type { FacilitatorKeySources, KeySource } from './signersConfig.ts'

/** The public Solana clusters' CAIP-2 ids: the only Solana networks x402's published SVM client pays on. */
export const solanaClusterNetworks = {
  mainnet: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  devnet: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  testnet: 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z',
} as const

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

/** The settings that put a facilitator key in the token or KMS, by key. */
const heldKeySettings = {
  evm: ['FACILITATOR_PKCS11_KEY_LABEL', 'FACILITATOR_KMS_KEY_ID'],
  solana: ['FACILITATOR_SOLANA_PKCS11_KEY_LABEL', 'FACILITATOR_SOLANA_KMS_KEY_ID'],
} as const

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
 * Reads X402_PRICES, PRICE_API_KEY_CLIENTS, FACILITATOR_PRIVATE_KEY, FACILITATOR_SOLANA_PRIVATE_KEY,
 * SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS and FACILITATOR_URL; `facilitatorKeys` are the facilitator's keys held in a token or KMS
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
    relayerPrivateKey,
    solanaRelayerPrivateKey,
    chainIds,
    problems,
    production = env.NODE_ENV?.trim() === 'production',
    facilitatorKeys,
  }: {
    relayerPrivateKey: Hex | undefined
    solanaRelayerPrivateKey?: Uint8Array | undefined
    chainIds: readonly string[] | undefined
    problems: string[]
    production?: boolean
    facilitatorKeys?: FacilitatorKeySources | undefined
  },
): PaymentsConfig | undefined {
  const priceApiKeyClients = readBoolean(env, 'PRICE_API_KEY_CLIENTS', problems)
  const facilitatorKey = env.FACILITATOR_PRIVATE_KEY?.trim() || undefined
  const facilitatorSolanaKey = env.FACILITATOR_SOLANA_PRIVATE_KEY?.trim() || undefined
  const facilitatorUrl = env.FACILITATOR_URL?.trim() || undefined
  // A key named in the token or KMS counts as given even when its source has a problem of its own (signersConfig reports it).
  const heldEvm = heldKeySettings.evm.find((name) => env[name]?.trim())
  const heldSolana = heldKeySettings.solana.find((name) => env[name]?.trim())
  const local = facilitatorKey || facilitatorSolanaKey || heldEvm || heldSolana
  const prices = readPrices(env.X402_PRICES, chainIds, production, problems)
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
  const families = new Set(
    Object.values(prices ?? {}).flatMap((routes) => Object.values(routes).map((p) => p.network.split(':')[0])),
  )

  let facilitator: FacilitatorConfig | undefined
  if (local && facilitatorUrl) {
    problems.push(
      `FACILITATOR_URL: set either FACILITATOR_URL (a remote facilitator) or the in-process facilitator's keys (FACILITATOR_PRIVATE_KEY / FACILITATOR_SOLANA_PRIVATE_KEY, or in a token or KMS: ${[...heldKeySettings.evm, ...heldKeySettings.solana].join(', ')}), not both`,
    )
  } else if (facilitatorUrl) {
    const problem = urlProblem(facilitatorUrl)
    if (problem) problems.push(`FACILITATOR_URL: ${problem}`)
    else facilitator = { kind: 'remote', url: facilitatorUrl.replace(/\/+$/, '') }
  } else if (local) {
    let privateKey: Hex | undefined
    let solanaSecretKey: Uint8Array | undefined
    let ok = true
    if (facilitatorKey) {
      if (!isHex(facilitatorKey) || facilitatorKey.length !== 66) {
        problems.push('FACILITATOR_PRIVATE_KEY: not a 32-byte hex private key (0x + 64 hex digits)')
        ok = false
      } else if (
        relayerPrivateKey &&
        privateKeyToAccount(facilitatorKey).address === privateKeyToAccount(relayerPrivateKey).address
      ) {
        // The relayer's nonces belong to the journal: a settlement sent from the same account would collide with executions.
        problems.push(
          "FACILITATOR_PRIVATE_KEY: must not be the relayer's key (RELAYER_PRIVATE_KEY); give the facilitator its own funded account",
        )
        ok = false
      } else privateKey = facilitatorKey
    }
    if (facilitatorSolanaKey) {
      const seed = readSolanaSeed(facilitatorSolanaKey)
      if (typeof seed === 'string') {
        problems.push(`FACILITATOR_SOLANA_PRIVATE_KEY: ${seed}`)
        ok = false
      } else if (
        solanaRelayerPrivateKey &&
        Buffer.from(seed).equals(Buffer.from(solanaRelayerPrivateKey.subarray(0, 32)))
      ) {
        // The relayer's transactions belong to the journal; a facilitator paying fees from the same account would spend its SOL unseen.
        problems.push(
          "FACILITATOR_SOLANA_PRIVATE_KEY: must not be the Solana relayer's key (SOLANA_RELAYER_PRIVATE_KEY); give the facilitator its own funded account",
        )
        ok = false
      } else if (production && Buffer.from(seed).equals(devnetFacilitatorSeed)) {
        problems.push(
          'FACILITATOR_SOLANA_PRIVATE_KEY: is the public devnet facilitator key and is refused when NODE_ENV=production',
        )
        ok = false
      } else solanaSecretKey = seed
    }
    const evmKey = facilitatorKeys?.evm
    const solanaKey = facilitatorKeys?.solana
    if (ok) {
      if (families.has('eip155') && !privateKey && !heldEvm)
        problems.push(
          'FACILITATOR_PRIVATE_KEY: an EVM network is priced in X402_PRICES: the in-process facilitator needs an EVM key to settle there (or FACILITATOR_PKCS11_KEY_LABEL, FACILITATOR_KMS_KEY_ID)',
        )
      else if (families.has('solana') && !solanaSecretKey && !heldSolana)
        problems.push(
          'FACILITATOR_SOLANA_PRIVATE_KEY: a Solana network is priced in X402_PRICES: the in-process facilitator needs a Solana key (it pays the settlement fees) (or FACILITATOR_SOLANA_PKCS11_KEY_LABEL, FACILITATOR_SOLANA_KMS_KEY_ID)',
        )
      else
        facilitator = {
          kind: 'local',
          ...(privateKey ? { privateKey } : {}),
          ...(solanaSecretKey ? { solanaSecretKey } : {}),
          ...(evmKey && !privateKey ? { evmKey } : {}),
          ...(solanaKey && !solanaSecretKey ? { solanaKey } : {}),
        }
    }
  }

  if (env.X402_PRICES?.trim() && !local && !facilitatorUrl) {
    problems.push(
      'X402_PRICES: prices need a facilitator: set FACILITATOR_PRIVATE_KEY and/or FACILITATOR_SOLANA_PRIVATE_KEY (in-process; or their keys in a token or KMS: FACILITATOR_PKCS11_KEY_LABEL, FACILITATOR_KMS_KEY_ID, FACILITATOR_SOLANA_PKCS11_KEY_LABEL, FACILITATOR_SOLANA_KMS_KEY_ID) or FACILITATOR_URL (remote)',
    )
  }
  const solanaMaxPriorityFeeMicroLamports = readFacilitatorPriorityFeeCeiling(env)
  if (!prices || Object.keys(prices).length === 0 || !facilitator) return undefined
  return { prices, priceApiKeyClients, facilitator, solanaMaxPriorityFeeMicroLamports }
}

function readPrices(
  raw: string | undefined,
  chainIds: readonly string[] | undefined,
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
    problems.push(
      'X402_PRICES: must be a JSON object keyed by CAIP-2 chain id, e.g. {"eip155:8453":{"execute":{"price":"$0.01","payTo":"0x…"}}}',
    )
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
      const price = readPrice(value, chainId, `${where}.${route}`, production, problems)
      if (price) entry[route as PricedRoute] = price
    }
    if (Object.keys(entry).length > 0) prices[chainId] = entry
  }
  return prices
}

function readPrice(
  value: unknown,
  chainId: string,
  where: string,
  production: boolean,
  problems: string[],
): PriceConfig | undefined {
  if (!isObject(value)) {
    problems.push(
      `${where}: must be an object: {"asset","amount","payTo","extra":{"name","version"}} or {"price":"$0.01","payTo"} (EVM), {"asset","amount","payTo"} (Solana)`,
    )
    return undefined
  }
  const network = value.network === undefined ? chainId : value.network
  if (typeof network === 'string' && /^eip155:[0-9]{1,20}$/.test(network))
    return readEvmPrice(value, network, where, problems)
  if (typeof network === 'string' && /^solana:[1-9A-HJ-NP-Za-km-z]{32}$/.test(network))
    return readSolanaPrice(value, network, chainId, where, production, problems)
  problems.push(
    `${where}.network: "${String(network).slice(0, 40)}" is not an EVM (eip155:<chain id>) or Solana (solana:<genesis hash prefix>) CAIP-2 network; x402's exact EVM and SVM schemes are supported`,
  )
  return undefined
}

/**
 * A price paid with an SPL token (x402's exact SVM scheme). Its network is the priced chain's own
 * id, another Solana chain the gateway serves, or — outside production — a public cluster's id
 * standing for a priced Solana chain that is not that cluster (the devnet: x402's published client
 * pays only on the public clusters): settled on the priced chain.
 */
function readSolanaPrice(
  value: Record<string, unknown>,
  network: string,
  chainId: string,
  where: string,
  production: boolean,
  problems: string[],
): PriceConfig | undefined {
  const before = problems.length
  const publicCluster = (Object.values(solanaClusterNetworks) as string[]).includes(network)
  let settleOn: string | undefined
  if (publicCluster && network !== chainId) {
    if (production)
      problems.push(
        `${where}.network: ${network} is a public Solana cluster and not the priced chain ${chainId}: a chain answering as a public cluster for payments is for the devnet only (refused when NODE_ENV=production)`,
      )
    else if (!chainId.startsWith('solana:'))
      problems.push(`${where}.network: ${network} may stand for a Solana chain only, and ${chainId} is not one`)
    else settleOn = chainId
  }
  for (const field of ['price', 'extra']) {
    if (value[field] !== undefined)
      problems.push(`${where}.${field}: not taken on a Solana network: give "asset" (the SPL mint) and "amount"`)
  }
  const isSolanaAddress = (a: unknown) =>
    typeof a === 'string' && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(a) && base58DecodedLength(a) === 32
  if (!isSolanaAddress(value.payTo)) problems.push(`${where}.payTo: not a Solana address (base58, 32 bytes)`)
  if (!isSolanaAddress(value.asset)) problems.push(`${where}.asset: not an SPL mint address (base58, 32 bytes)`)
  if (
    typeof value.amount !== 'string' ||
    !/^[1-9][0-9]{0,19}$/.test(value.amount) ||
    BigInt(value.amount) > 0xffffffffffffffffn
  )
    problems.push(
      `${where}.amount: must be a positive integer string in the mint's smallest unit, at most a u64 (e.g. "10000" for 0.01 of a 6-decimal token)`,
    )
  const maxTimeoutSeconds = readMaxTimeout(value, where, problems)
  if (value.maxGas !== undefined)
    problems.push(
      `${where}.maxGas: EVM only; a Solana execution's compute is bounded by the transaction the gateway builds`,
    )
  if (problems.length !== before) return undefined
  return {
    network: network as PriceConfig['network'],
    payTo: value.payTo as string,
    price: { asset: value.asset as string, amount: value.amount as string },
    maxTimeoutSeconds,
    ...(settleOn ? { settleOn } : {}),
  }
}

function readMaxTimeout(value: Record<string, unknown>, where: string, problems: string[]): number {
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

/** FACILITATOR_SOLANA_PRIVATE_KEY: the Solana CLI's keypair (a JSON array of 64 numbers), or base58 of the 64-byte keypair or 32-byte seed. */
function readSolanaSeed(text: string): Uint8Array | string {
  let bytes: Uint8Array | undefined
  if (text.startsWith('[')) {
    try {
      const list = JSON.parse(text) as unknown
      if (Array.isArray(list) && list.every((n) => Number.isInteger(n) && n >= 0 && n <= 255))
        bytes = Uint8Array.from(list as number[])
    } catch {
      bytes = undefined
    }
    if (!bytes) return "not a JSON array of byte values (the Solana CLI's keypair file holds 64 numbers)"
  } else {
    if (!/^[1-9A-HJ-NP-Za-km-z]+$/.test(text))
      return "must be the Solana CLI's keypair (a JSON array of 64 numbers) or base58"
    bytes = base58.decode(text)
  }
  if (bytes.length !== 64 && bytes.length !== 32)
    return `must hold 64 bytes (seed and public key) or the 32-byte seed; it holds ${bytes.length}`
  return bytes.slice(0, 32)
}

/** The devnet's facilitator seed (public, derived from a label as every devnet key): refused in production. */
const devnetFacilitatorSeed = createHash('sha256').update('intent-gateway solana devnet facilitator').digest()

function readEvmPrice(
  value: Record<string, unknown>,
  network: string,
  where: string,
  problems: string[],
): PriceConfig | undefined {
  const before = problems.length
  const payTo = value.payTo
  if (typeof payTo !== 'string' || !isAddress(payTo, { strict: false }))
    problems.push(`${where}.payTo: not an address (0x + 40 hex digits)`)
  const maxTimeoutSeconds = readMaxTimeout(value, where, problems)

  let maxGas: bigint | undefined
  if (value.maxGas !== undefined) {
    if (typeof value.maxGas !== 'number' || !Number.isSafeInteger(value.maxGas) || value.maxGas < 21_000) {
      problems.push(`${where}.maxGas: must be an integer of at least 21000: the most gas one payment buys`)
    } else maxGas = BigInt(value.maxGas)
  }

  let price: PriceConfig['price'] | undefined
  if (value.price !== undefined) {
    for (const field of ['asset', 'amount', 'extra']) {
      if (value[field] !== undefined)
        problems.push(
          `${where}.${field}: give either "price" (a dollar amount) or "asset", "amount" and "extra", not both`,
        )
    }
    if (
      typeof value.price !== 'string' ||
      !/^\$(0|[1-9][0-9]*)(\.[0-9]{1,6})?$/.test(value.price) ||
      /^\$0(\.0*)?$/.test(value.price)
    ) {
      problems.push(
        `${where}.price: "${String(value.price).slice(0, 20)}" is not a positive dollar amount like "$0.01"`,
      )
    } else price = value.price as `$${string}` // paid in x402's USDC on the network: checked when payments start (payments/dollarPriceProblems.ts)
  } else {
    const { asset, amount, extra } = value
    if (typeof asset !== 'string' || !isAddress(asset, { strict: false }))
      problems.push(`${where}.asset: not a token address (0x + 40 hex digits)`)
    if (typeof amount !== 'string' || !/^[1-9][0-9]{0,77}$/.test(amount))
      problems.push(
        `${where}.amount: must be a positive integer string in the token's smallest unit (e.g. "10000" for 0.01 of a 6-decimal token)`,
      )
    if (
      !isObject(extra) ||
      typeof extra.name !== 'string' ||
      !extra.name ||
      typeof extra.version !== 'string' ||
      !extra.version
    ) {
      problems.push(`${where}.extra: must be {"name","version"}: the token's EIP-712 domain name and version`)
    }
    if (problems.length === before) {
      const e = extra as { name: string; version: string }
      price = {
        asset: getAddress(asset as string),
        amount: amount as string,
        extra: { name: e.name, version: e.version },
      }
    }
  }
  if (problems.length !== before || !price) return undefined
  return {
    network: network as PriceConfig['network'],
    payTo: getAddress(payTo as string),
    price,
    maxTimeoutSeconds,
    ...(maxGas !== undefined ? { maxGas } : {}),
  }
}

/** How many bytes a base58 string decodes to (0 when it is not base58). */
function base58DecodedLength(text: string): number {
  try {
    return base58.decode(text).length
  } catch {
    return 0
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
