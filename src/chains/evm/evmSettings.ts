// The EVM runtime's own settings: RELAYER_PRIVATE_KEY and RELAYER_PRIVATE_KEYS, the relayer keys
// held in the process (keys in KMS or a PKCS#11 token are config/signersConfig.ts's).
import { type Address, type Hex, isHex } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import type { Env } from '../../config/gatewayConfig.ts'
import type { EvmKeySource } from '../../ports/keySource.ts'

/** The mnemonic behind anvil's funded accounts: public, so never a production relayer. */
const devnetMnemonic = 'test test test test test test test test test test test junk'

/**
 * RELAYER_PRIVATE_KEY and RELAYER_PRIVATE_KEYS (comma-separated: a pool of keys, each its own
 * nonce sequence): the EVM relayer keys held in the process, in that order, each key once.
 */
export function readRelayerKeys(env: Env, production: boolean, problems: string[]): EvmKeySource[] {
  const keys: EvmKeySource[] = []
  const seen = new Set<string>()
  const one = env.RELAYER_PRIVATE_KEY?.trim()
  const many = (env.RELAYER_PRIVATE_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
  for (const [name, raw, position] of [
    ...(one ? [['RELAYER_PRIVATE_KEY', one, ''] as const] : []),
    ...many.map((raw, i) => ['RELAYER_PRIVATE_KEYS', raw, ` (key ${i + 1})`] as const),
  ]) {
    const key = readRelayerKey(raw, `${name}${position}`, production, problems)
    if (!key) continue
    const address = privateKeyToAccount(key).address
    if (seen.has(address)) continue
    seen.add(address)
    keys.push({ backend: 'local', secret: key, setting: name })
  }
  return keys
}

function readRelayerKey(raw: string, name: string, production: boolean, problems: string[]): Hex | undefined {
  const key = (raw.startsWith('0x') ? raw : `0x${raw}`) as Hex
  // Never echo the value, not even part of it.
  if (!isHex(key) || key.length !== 66) {
    problems.push(`${name}: must be 32 bytes written as 64 hex digits (optionally 0x-prefixed)`)
    return undefined
  }
  let address: Address
  try {
    address = privateKeyToAccount(key).address
  } catch {
    problems.push(`${name}: is not a valid secp256k1 private key`)
    return undefined
  }
  if (production && isDevnetAccount(address)) {
    problems.push(`${name}: is one of the public devnet keys and is refused when NODE_ENV=production`)
    return undefined
  }
  return key
}

function isDevnetAccount(address: Address): boolean {
  for (let addressIndex = 0; addressIndex < 10; addressIndex++) {
    if (mnemonicToAccount(devnetMnemonic, { addressIndex }).address === address) return true
  }
  return false
}
