// What the Solana family reads of the x402 settings itself: a price on a solana network (an SPL
// token; outside production, a public cluster's id may stand for the priced devnet chain) and the
// in-process facilitator's Solana key (FACILITATOR_SOLANA_PRIVATE_KEY, or held in a token or KMS),
// as a runtime reads its own settings.
import { createHash } from 'node:crypto'
import { base58 } from '@scure/base'
import { type PaymentFamilySettings, type PriceConfig, readMaxTimeout } from '../../../config/paymentsConfig.ts'
import { readSolanaKeyBytes } from '../../../signers/readSolanaKeyBytes.ts'
import { svmClusterNetworks } from './svmClusterNetworks.ts'

export const svmPaymentSettings: PaymentFamilySettings = {
  networkForm: 'Solana (solana:<genesis hash prefix>)',
  schemeName: 'SVM',
  priceForms: '{"asset","amount","payTo"} (Solana)',
  isNetwork: (network) => /^solana:[1-9A-HJ-NP-Za-km-z]{32}$/.test(network),
  readPrice: readSolanaPrice,
  facilitatorKey: {
    role: 'solana',
    name: 'Solana',
    // FACILITATOR_SOLANA_PRIVATE_KEY in the process; in a signer backend, the setting it names one key by (FACILITATOR_SOLANA_PKCS11_KEY_LABEL, …).
    prefix: 'FACILITATOR_SOLANA',
    relayerChainType: 'solana',
    read(raw, { relayerKey, production }) {
      const seed = readSolanaSeed(raw)
      if (typeof seed === 'string') return { problem: `FACILITATOR_SOLANA_PRIVATE_KEY: ${seed}` }
      const relayer = relayerKey as Uint8Array | undefined
      // The relayer's transactions belong to the journal; a facilitator paying fees from the same account would spend its SOL unseen.
      if (relayer && Buffer.from(seed).equals(Buffer.from(relayer.subarray(0, 32))))
        return {
          problem:
            "FACILITATOR_SOLANA_PRIVATE_KEY: must not be the Solana relayer's key (SOLANA_RELAYER_PRIVATE_KEY); give the facilitator its own funded account",
        }
      if (production && Buffer.from(seed).equals(devnetFacilitatorSeed))
        return {
          problem:
            'FACILITATOR_SOLANA_PRIVATE_KEY: is the public devnet facilitator key and is refused when NODE_ENV=production',
        }
      return { solanaSecretKey: seed }
    },
    held: (solanaKey) => ({ solanaKey }),
    missing: (held) =>
      `FACILITATOR_SOLANA_PRIVATE_KEY: a Solana network is priced in X402_PRICES: the in-process facilitator needs a Solana key (it pays the settlement fees) (or ${held.join(', ')})`,
  },
}

/**
 * A price paid with an SPL token (x402's exact SVM scheme). Its network is the priced chain's own
 * id, another Solana chain the gateway serves, or — outside production — a public cluster's id
 * standing for a priced Solana chain that is not that cluster (the devnet: x402's published client
 * pays only on the public clusters): settled on the priced chain.
 */
function readSolanaPrice(
  value: Record<string, unknown>,
  {
    network,
    chainId,
    where,
    production,
    problems,
  }: { network: string; chainId: string; where: string; production: boolean; problems: string[] },
): PriceConfig | undefined {
  const before = problems.length
  const publicCluster = (svmClusterNetworks as readonly string[]).includes(network)
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

/** FACILITATOR_SOLANA_PRIVATE_KEY: the Solana CLI's keypair (a JSON array of 64 numbers), or base58 of the 64-byte keypair or 32-byte seed. */
function readSolanaSeed(text: string): Uint8Array | string {
  const bytes = readSolanaKeyBytes(text, "must be the Solana CLI's keypair (a JSON array of 64 numbers) or base58")
  return typeof bytes === 'string' ? bytes : bytes.slice(0, 32)
}

/** The devnet's facilitator seed (public, derived from a label as every devnet key): refused in production. */
const devnetFacilitatorSeed = createHash('sha256').update('intent-gateway solana devnet facilitator').digest()

/** How many bytes a base58 string decodes to (0 when it is not base58). */
function base58DecodedLength(text: string): number {
  try {
    return base58.decode(text).length
  } catch {
    return 0
  }
}
