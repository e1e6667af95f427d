// What the EVM family reads of the x402 settings itself: a price on an eip155 network (an EIP-3009
// token, or a dollar amount x402 resolves to USDC) and the in-process facilitator's EVM key
// (FACILITATOR_PRIVATE_KEY, or held in a token or KMS), as a runtime reads its own settings.
import { getAddress, type Hex, isAddress, isHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  isObject,
  type PaymentFamilySettings,
  type PriceConfig,
  readMaxTimeout,
} from '../../../config/paymentsConfig.ts'

export const evmPaymentSettings: PaymentFamilySettings = {
  networkForm: 'EVM (eip155:<chain id>)',
  schemeName: 'EVM',
  priceForms: '{"asset","amount","payTo","extra":{"name","version"}} or {"price":"$0.01","payTo"} (EVM)',
  pricesExample: '{"eip155:8453":{"execute":{"price":"$0.01","payTo":"0x…"}}}',
  isNetwork: (network) => /^eip155:[0-9]{1,20}$/.test(network),
  readPrice: readEvmPrice,
  facilitatorKey: {
    role: 'evm',
    name: 'EVM',
    // FACILITATOR_PRIVATE_KEY in the process; in a signer backend, the setting it names one key by (FACILITATOR_PKCS11_KEY_LABEL, …).
    prefix: 'FACILITATOR',
    relayerChainType: 'evm',
    read(raw, { relayerKey }) {
      if (!isHex(raw) || raw.length !== 66)
        return { problem: 'FACILITATOR_PRIVATE_KEY: not a 32-byte hex private key (0x + 64 hex digits)' }
      const relayer = relayerKey as Hex | undefined
      // The relayer's nonces belong to the journal: a settlement sent from the same account would collide with executions.
      if (relayer && privateKeyToAccount(raw).address === privateKeyToAccount(relayer).address)
        return {
          problem:
            "FACILITATOR_PRIVATE_KEY: must not be the relayer's key (RELAYER_PRIVATE_KEY); give the facilitator its own funded account",
        }
      return { privateKey: raw }
    },
    held: (evmKey) => ({ evmKey }),
    missing: (held) =>
      `FACILITATOR_PRIVATE_KEY: an EVM network is priced in X402_PRICES: the in-process facilitator needs an EVM key to settle there (or ${held.join(', ')})`,
  },
}

function readEvmPrice(
  value: Record<string, unknown>,
  { network, where, problems }: { network: string; where: string; problems: string[] },
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
