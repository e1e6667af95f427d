// An Ed25519 key (a Solana or Sui relayer's, the facilitator's Solana key) from where the
// configuration says it lives (config/signersConfig.ts): the process (its seed), a PKCS#11 token
// or KMS. The token's native binding and KMS's SDK are loaded only when used.
// Start-up problems (no such key, a wrong PIN, a key of another kind) are thrown naming the setting.
import type { Ed25519KeySource } from '../config/signersConfig.ts'
import { ConfigError } from '../errors/configError.ts'
import { GatewayError } from '../errors/gatewayError.ts'
import { createLocalEd25519Signer } from './createLocalEd25519Signer.ts'
import type { Ed25519Signer } from './ed25519Signer.ts'

export async function createEd25519Signer(source: Ed25519KeySource): Promise<Ed25519Signer> {
  try {
    if (source.backend === 'local') return createLocalEd25519Signer(source.secret)
    if (source.backend === 'pkcs11') {
      const { createPkcs11EdDsaSigner } = await import('./createPkcs11EdDsaSigner.ts')
      return createPkcs11EdDsaSigner(source)
    }
    const { createKmsEd25519Signer } = await import('./createKmsEd25519Signer.ts')
    return await createKmsEd25519Signer(source)
  } catch (err) {
    throw new ConfigError([
      `${source.setting}: ${err instanceof GatewayError ? `${err.shortMessage} (${err.details})` : err instanceof Error ? err.message : String(err)}`,
    ])
  }
}
