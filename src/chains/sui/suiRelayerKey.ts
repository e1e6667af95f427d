// SUI_RELAYER_PRIVATE_KEY in the form `sui keytool export` prints: bech32 `suiprivkey1…` over a
// scheme flag and 32 secret bytes. Read with the bech32 codec the Sui SDK itself uses, so that
// the SDK (~20 MB) loads only when a Sui chain is configured.
import { bech32 } from '@scure/base'
import type { Env } from '../../config/gatewayConfig.ts'

/** Sui's signature scheme flag for Ed25519. */
const ed25519Flag = 0x00

export function readSuiRelayerKey(env: Env, problems: string[]): string | undefined {
  const raw = env.SUI_RELAYER_PRIVATE_KEY?.trim()
  if (!raw) return undefined
  try {
    const { prefix, words } = bech32.decode(raw as `${string}1${string}`)
    const bytes = bech32.fromWords(words)
    if (prefix === 'suiprivkey' && bytes.length === 33 && bytes[0] === ed25519Flag) return raw
  } catch {}
  // Never echo the value, not even part of it.
  problems.push(
    'SUI_RELAYER_PRIVATE_KEY: must be an Ed25519 key in the form `sui keytool export` prints (suiprivkey1...)',
  )
  return undefined
}
