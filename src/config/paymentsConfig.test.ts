import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { dollarPriceProblems } from '../payments/dollarPriceProblems.ts'
import { paymentFamilies as families } from '../payments/mechanisms/paymentFamilies.ts'
import { keyBackends } from '../signers/keyBackends.ts'
import { parsePaymentsConfig } from './paymentsConfig.ts'
import { type FacilitatorKeySources, heldKeySettings } from './signersConfig.ts'

/** As loadConfig hands them: the settings naming a facilitator key in each signer backend. */
const heldSettingsOf = (prefix: string) => heldKeySettings(keyBackends, prefix)

const relayer = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const facilitator = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba'
const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const payTo = '0x976EA74026E726554dB657fA54763abd0C3a0aa9'
const tokenPrice = { asset: token, amount: '10000', payTo, extra: { name: 'Demo Dollar', version: '1' } }

function parse(
  env: Record<string, string>,
  chainIds: string[] | undefined = ['eip155:31337', 'eip155:8453'],
  facilitatorKeys?: FacilitatorKeySources,
) {
  const problems: string[] = []
  const config = parsePaymentsConfig(env, {
    families,
    relayerKeyOf: (chainType) => (chainType === 'evm' ? relayer : undefined),
    chainIds,
    problems,
    facilitatorKeys,
    heldSettingsOf,
  })
  return { config, problems }
}

describe('parsePaymentsConfig', () => {
  it('is off (undefined, no problem) when no price is set', () => {
    assert.deepEqual(parse({}), { config: undefined, problems: [] })
  })

  it('reads a token price and a dollar price, with the in-process facilitator', () => {
    const { config, problems } = parse({
      X402_PRICES: JSON.stringify({
        'eip155:31337': { execute: tokenPrice },
        'eip155:8453': {
          execute: { price: '$0.01', payTo },
          validate: { price: '$0.001', payTo, maxTimeoutSeconds: 60 },
        },
      }),
      FACILITATOR_PRIVATE_KEY: facilitator,
      PRICE_API_KEY_CLIENTS: 'true',
    })
    assert.deepEqual(problems, [])
    assert.deepEqual(config, {
      prices: {
        'eip155:31337': {
          execute: {
            network: 'eip155:31337',
            payTo,
            price: { asset: token, amount: '10000', extra: { name: 'Demo Dollar', version: '1' } },
            maxTimeoutSeconds: 300,
          },
        },
        'eip155:8453': {
          execute: { network: 'eip155:8453', payTo, price: '$0.01', maxTimeoutSeconds: 300 },
          validate: { network: 'eip155:8453', payTo, price: '$0.001', maxTimeoutSeconds: 60 },
        },
      },
      priceApiKeyClients: true,
      facilitator: { kind: 'local', privateKey: facilitator },
      solanaMaxPriorityFeeMicroLamports: 50_000,
    })
  })

  it("reads SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS (default 50,000), at most x402's own ceiling of 5,000,000, leaving a malformed value to the Solana runtime's check", () => {
    const env = {
      X402_PRICES: JSON.stringify({ 'eip155:31337': { execute: tokenPrice } }),
      FACILITATOR_PRIVATE_KEY: facilitator,
    }
    assert.equal(parse(env).config?.solanaMaxPriorityFeeMicroLamports, 50_000)
    assert.equal(
      parse({ ...env, SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: '0' }).config?.solanaMaxPriorityFeeMicroLamports,
      0,
    )
    assert.equal(
      parse({ ...env, SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: '1000' }).config?.solanaMaxPriorityFeeMicroLamports,
      1000,
    )
    // The relayer's ceiling may be higher than any payment's: a payment is then held to x402's 5,000,000.
    const high = parse({ ...env, SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: '10000000' })
    assert.deepEqual([high.problems, high.config?.solanaMaxPriorityFeeMicroLamports], [[], 5_000_000])
    // readSolanaOptions reports a malformed value once; payments keep their default meanwhile.
    const malformed = parse({ ...env, SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS: '-1' })
    assert.deepEqual([malformed.problems, malformed.config?.solanaMaxPriorityFeeMicroLamports], [[], 50_000])
  })

  it('takes a remote facilitator by URL', () => {
    const { config, problems } = parse({
      X402_PRICES: JSON.stringify({ 'eip155:31337': { execute: tokenPrice } }),
      FACILITATOR_URL: 'https://x402.example/facilitator/',
    })
    assert.deepEqual(problems, [])
    assert.deepEqual(config?.facilitator, { kind: 'remote', url: 'https://x402.example/facilitator' })
  })

  it("refuses the relayer's key as the facilitator's", () => {
    const { problems } = parse({
      X402_PRICES: JSON.stringify({ 'eip155:31337': { execute: tokenPrice } }),
      FACILITATOR_PRIVATE_KEY: relayer,
    })
    assert.deepEqual(problems, [
      "FACILITATOR_PRIVATE_KEY: must not be the relayer's key (RELAYER_PRIVATE_KEY); give the facilitator its own funded account",
    ])
  })

  it('names the variable and the field of every problem, all at once', () => {
    const { config, problems } = parse(
      {
        X402_PRICES: JSON.stringify({
          'eip155:31337': {
            execute: { asset: '0x12', amount: '0.5', payTo: 'nobody', extra: { name: 'Demo Dollar' } },
            refund: tokenPrice,
          },
          'eip155:1': { execute: tokenPrice },
          'eip155:8453': { validate: { price: '$0', payTo } },
          'solana:devnet': { execute: tokenPrice },
        }),
        PRICE_API_KEY_CLIENTS: 'sometimes',
      },
      ['eip155:31337', 'eip155:8453', 'solana:devnet'],
    )
    assert.equal(config, undefined)
    assert.deepEqual(problems, [
      'PRICE_API_KEY_CLIENTS: "sometimes" is not true or false',
      'X402_PRICES["eip155:31337"].execute.payTo: not an address (0x + 40 hex digits)',
      'X402_PRICES["eip155:31337"].execute.asset: not a token address (0x + 40 hex digits)',
      'X402_PRICES["eip155:31337"].execute.amount: must be a positive integer string in the token\'s smallest unit (e.g. "10000" for 0.01 of a 6-decimal token)',
      'X402_PRICES["eip155:31337"].execute.extra: must be {"name","version"}: the token\'s EIP-712 domain name and version',
      'X402_PRICES["eip155:31337"].refund: not a priced route (execute, validate)',
      'X402_PRICES["eip155:1"]: chain eip155:1 is not configured (configured: eip155:31337, eip155:8453, solana:devnet)',
      'X402_PRICES["eip155:8453"].validate.price: "$0" is not a positive dollar amount like "$0.01"',
      'X402_PRICES["solana:devnet"].execute.network: "solana:devnet" is not an EVM (eip155:<chain id>) or Solana (solana:<genesis hash prefix>) CAIP-2 network; x402\'s exact EVM and SVM schemes are supported',
      'X402_PRICES: prices need a facilitator: set FACILITATOR_PRIVATE_KEY and/or FACILITATOR_SOLANA_PRIVATE_KEY (in-process; or their keys in a token or KMS: FACILITATOR_PKCS11_KEY_LABEL, FACILITATOR_KMS_KEY_ID, FACILITATOR_SOLANA_PKCS11_KEY_LABEL, FACILITATOR_SOLANA_KMS_KEY_ID) or FACILITATOR_URL (remote)',
    ])
  })

  it('refuses bad JSON, a dollar price where x402 knows no USDC (when payments start), both facilitators, and a bad key or URL', () => {
    assert.match(parse({ X402_PRICES: '{"eip155:31337":' }).problems[0]!, /^X402_PRICES: not valid JSON/)
    const dollars = parse({
      X402_PRICES: JSON.stringify({ 'eip155:31337': { execute: { price: '$0.01', payTo } } }),
      FACILITATOR_PRIVATE_KEY: facilitator,
    })
    assert.deepEqual(dollars.problems, [])
    assert.deepEqual(dollarPriceProblems(dollars.config!.prices), [
      'X402_PRICES["eip155:31337"].execute.price: x402 knows no USDC on eip155:31337; give "asset", "amount" and "extra": {"name","version"} instead',
    ])
    assert.deepEqual(
      dollarPriceProblems(
        parse({
          X402_PRICES: JSON.stringify({ 'eip155:8453': { execute: { price: '$0.01', payTo } } }),
          FACILITATOR_PRIVATE_KEY: facilitator,
        }).config?.prices ?? {},
      ),
      [],
    )
    const prices = JSON.stringify({ 'eip155:31337': { execute: tokenPrice } })
    assert.deepEqual(
      parse({ X402_PRICES: prices, FACILITATOR_PRIVATE_KEY: facilitator, FACILITATOR_URL: 'http://127.0.0.1:1' })
        .problems,
      [
        "FACILITATOR_URL: set either FACILITATOR_URL (a remote facilitator) or the in-process facilitator's keys (FACILITATOR_PRIVATE_KEY / FACILITATOR_SOLANA_PRIVATE_KEY, or in a token or KMS: FACILITATOR_PKCS11_KEY_LABEL, FACILITATOR_KMS_KEY_ID, FACILITATOR_SOLANA_PKCS11_KEY_LABEL, FACILITATOR_SOLANA_KMS_KEY_ID), not both",
      ],
    )
    assert.deepEqual(parse({ X402_PRICES: prices, FACILITATOR_PRIVATE_KEY: '0x1234' }).problems, [
      'FACILITATOR_PRIVATE_KEY: not a 32-byte hex private key (0x + 64 hex digits)',
    ])
    assert.deepEqual(parse({ X402_PRICES: prices, FACILITATOR_URL: 'ftp://x' }).problems, [
      'FACILITATOR_URL: "ftp:" is not http or https',
    ])
  })

  it('reads maxGas, the most gas one paid execute buys, and refuses what is not an integer of at least 21000', () => {
    const good = parse({
      X402_PRICES: JSON.stringify({ 'eip155:31337': { execute: { ...tokenPrice, maxGas: 250000 } } }),
      FACILITATOR_PRIVATE_KEY: facilitator,
    })
    assert.deepEqual(good.problems, [])
    assert.equal(good.config?.prices['eip155:31337']?.execute?.maxGas, 250_000n)
    for (const maxGas of [20_999, 1.5, '300000', -1]) {
      const bad = parse({
        X402_PRICES: JSON.stringify({ 'eip155:31337': { execute: { ...tokenPrice, maxGas } } }),
        FACILITATOR_PRIVATE_KEY: facilitator,
      })
      assert.deepEqual(bad.problems, [
        'X402_PRICES["eip155:31337"].execute.maxGas: must be an integer of at least 21000: the most gas one payment buys',
      ])
    }
  })
})

describe('parsePaymentsConfig on Solana', () => {
  const local = 'solana:Ab1cdefghijkmnopqrstuvwxyzABCDEF'
  const mint = 'So11111111111111111111111111111111111111112'
  const treasury = 'HA6uuuKQoGXC5PxEA4v9EkkbfhuVdivEhSdUDWeSsMWV'
  const seed = Array.from({ length: 32 }, (_, i) => i + 1)
  const solanaRelayer = Uint8Array.from(Array.from({ length: 32 }, () => 7))
  const solanaParse = (env: Record<string, string>, production = false) => {
    const problems: string[] = []
    const config = parsePaymentsConfig(env, {
      families,
      relayerKeyOf: (chainType) => ({ evm: relayer, solana: solanaRelayer, sui: undefined })[chainType],
      chainIds: [local, 'eip155:31337'],
      problems,
      production,
      heldSettingsOf,
    })
    return { config, problems }
  }

  it("reads an SPL price on the chain itself, and on Solana devnet's id standing for the local chain (settled on it)", () => {
    const { config, problems } = solanaParse({
      X402_PRICES: JSON.stringify({
        [local]: {
          execute: { asset: mint, amount: '10000', payTo: treasury },
          validate: { network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', asset: mint, amount: '100', payTo: treasury },
        },
      }),
      FACILITATOR_SOLANA_PRIVATE_KEY: JSON.stringify(seed),
    })
    assert.deepEqual(problems, [])
    assert.deepEqual(config?.prices[local], {
      execute: { network: local, payTo: treasury, price: { asset: mint, amount: '10000' }, maxTimeoutSeconds: 300 },
      validate: {
        network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
        payTo: treasury,
        price: { asset: mint, amount: '100' },
        maxTimeoutSeconds: 300,
        settleOn: local,
      },
    })
    assert.deepEqual(config?.facilitator, { kind: 'local', solanaSecretKey: Uint8Array.from(seed) })
  })

  it('accepts a payment on one runtime for an intent on another (a Solana price for an EVM chain), with the keys both need', () => {
    const { config, problems } = solanaParse({
      X402_PRICES: JSON.stringify({
        'eip155:31337': { execute: { network: local, asset: mint, amount: '10000', payTo: treasury } },
      }),
      FACILITATOR_SOLANA_PRIVATE_KEY: JSON.stringify(seed),
    })
    assert.deepEqual(problems, [])
    assert.equal(config?.prices['eip155:31337']?.execute?.network, local)
  })

  it("refuses a public cluster standing for another chain in production, a public cluster for an EVM chain, bad fields, a missing key, and the relayer's key", () => {
    const devnetId = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
    const prices = JSON.stringify({
      [local]: { execute: { network: devnetId, asset: mint, amount: '10000', payTo: treasury } },
      'eip155:31337': { execute: { network: devnetId, asset: 'nope', amount: '-1', payTo: treasury, extra: {} } },
    })
    assert.deepEqual(
      solanaParse({ X402_PRICES: prices, FACILITATOR_SOLANA_PRIVATE_KEY: JSON.stringify(seed) }, true).problems,
      [
        `X402_PRICES["${local}"].execute.network: ${devnetId} is a public Solana cluster and not the priced chain ${local}: a chain answering as a public cluster for payments is for the devnet only (refused when NODE_ENV=production)`,
        `X402_PRICES["eip155:31337"].execute.network: ${devnetId} is a public Solana cluster and not the priced chain eip155:31337: a chain answering as a public cluster for payments is for the devnet only (refused when NODE_ENV=production)`,
        'X402_PRICES["eip155:31337"].execute.extra: not taken on a Solana network: give "asset" (the SPL mint) and "amount"',
        'X402_PRICES["eip155:31337"].execute.asset: not an SPL mint address (base58, 32 bytes)',
        'X402_PRICES["eip155:31337"].execute.amount: must be a positive integer string in the mint\'s smallest unit, at most a u64 (e.g. "10000" for 0.01 of a 6-decimal token)',
      ],
    )
    assert.deepEqual(
      solanaParse({
        X402_PRICES: JSON.stringify({ [local]: { execute: { asset: mint, amount: '1', payTo: treasury } } }),
        FACILITATOR_PRIVATE_KEY: facilitator,
      }).problems,
      [
        'FACILITATOR_SOLANA_PRIVATE_KEY: a Solana network is priced in X402_PRICES: the in-process facilitator needs a Solana key (it pays the settlement fees) (or FACILITATOR_SOLANA_PKCS11_KEY_LABEL, FACILITATOR_SOLANA_KMS_KEY_ID)',
      ],
    )
    assert.deepEqual(
      solanaParse({
        X402_PRICES: JSON.stringify({ [local]: { execute: { asset: mint, amount: '1', payTo: treasury } } }),
        FACILITATOR_SOLANA_PRIVATE_KEY: JSON.stringify([...solanaRelayer]),
      }).problems,
      [
        "FACILITATOR_SOLANA_PRIVATE_KEY: must not be the Solana relayer's key (SOLANA_RELAYER_PRIVATE_KEY); give the facilitator its own funded account",
      ],
    )
  })

  it("lets a public cluster's id stand for one chain only", () => {
    const devnetId = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
    const other = 'solana:Zb1cdefghijkmnopqrstuvwxyzABCDEF'
    const problems: string[] = []
    parsePaymentsConfig(
      {
        X402_PRICES: JSON.stringify({
          [local]: { execute: { network: devnetId, asset: mint, amount: '1', payTo: treasury } },
          [other]: { execute: { network: devnetId, asset: mint, amount: '1', payTo: treasury } },
        }),
        FACILITATOR_SOLANA_PRIVATE_KEY: JSON.stringify(seed),
      },
      { families, chainIds: [local, other], problems, production: false, heldSettingsOf },
    )
    assert.deepEqual(problems, [
      `X402_PRICES: ${devnetId} stands for both ${local} and ${other}; a public cluster's id may stand for one chain only`,
    ])
  })

  it("takes the facilitator's EVM key from the token or KMS (signersConfig's source), in place of FACILITATOR_PRIVATE_KEY", () => {
    const prices = JSON.stringify({ 'eip155:31337': { execute: tokenPrice } })
    const evm = {
      backend: 'kms' as const,
      keyId: 'alias/facilitator',
      region: 'eu-west-1',
      endpoint: undefined,
      setting: 'FACILITATOR_KMS_KEY_ID',
    }
    const { config, problems } = parse(
      { X402_PRICES: prices, FACILITATOR_KMS_KEY_ID: 'alias/facilitator' },
      undefined,
      { evm },
    )
    assert.deepEqual(problems, [])
    assert.deepEqual(config?.facilitator, { kind: 'local', evmKey: evm })
    // A key named there counts as given even if signersConfig refused its source (it names the problem): no second problem here.
    assert.deepEqual(parse({ X402_PRICES: prices, FACILITATOR_PKCS11_KEY_LABEL: 'facilitator' }).problems, [])
    assert.deepEqual(
      parse({
        X402_PRICES: prices,
        FACILITATOR_PKCS11_KEY_LABEL: 'facilitator',
        FACILITATOR_URL: 'http://127.0.0.1:1',
      }).problems.map((p) => p.split(':')[0]),
      ['FACILITATOR_URL'],
    )
    // Only a Solana key in the token, and an EVM network priced: the EVM key is missing.
    assert.deepEqual(
      parse({ X402_PRICES: prices, FACILITATOR_SOLANA_PKCS11_KEY_LABEL: 'facilitator-solana' }).problems,
      [
        'FACILITATOR_PRIVATE_KEY: an EVM network is priced in X402_PRICES: the in-process facilitator needs an EVM key to settle there (or FACILITATOR_PKCS11_KEY_LABEL, FACILITATOR_KMS_KEY_ID)',
      ],
    )
  })
})
