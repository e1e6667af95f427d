// An Ed25519 key (a Solana or Sui relayer's, the facilitator's Solana key) from where the
// configuration says it lives (config/signersConfig.ts), opened by its backend (keyBackends.ts: the
// process, a PKCS#11 token, KMS). Start-up problems (no such key, a wrong PIN, a key of another
// kind) are thrown naming the setting.

import { ConfigError } from '../errors/configError.ts'
import { GatewayError } from '../errors/gatewayError.ts'
import type { Ed25519KeySource } from '../ports/keySource.ts'
import type { Ed25519Signer } from './ed25519Signer.ts'
import { keyBackendOf } from './keyBackends.ts'

export async function createEd25519Signer(source: Ed25519KeySource): Promise<Ed25519Signer> {
  try {
    return await keyBackendOf(source.backend).openEd25519(source)
  } catch (err) {
    throw new ConfigError([
      `${source.setting}: ${err instanceof GatewayError ? `${err.shortMessage} (${err.details})` : err instanceof Error ? err.message : String(err)}`,
    ])
  }
}
