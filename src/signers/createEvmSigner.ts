// One EVM key from where the configuration says it lives (config/signersConfig.ts): a secp256k1
// key in the process, in a PKCS#11 token or in KMS, as a viem account (the last two only asked to
// sign digests). The token's native binding and KMS's SDK are loaded only when used. Start-up
// problems (no such key, a wrong PIN, a key of another kind, KMS not answering) are thrown naming
// the setting.
import type { LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { EvmKeySource } from '../config/signersConfig.ts'
import { ConfigError } from '../errors/configError.ts'
import { GatewayError } from '../errors/gatewayError.ts'

export async function createEvmSigner(
  source: EvmKeySource,
  { timeoutMs }: { timeoutMs?: number } = {},
): Promise<LocalAccount & { backend: string }> {
  try {
    if (source.backend === 'local') return { ...privateKeyToAccount(source.secret), backend: 'local' }
    if (source.backend === 'pkcs11') {
      const { createPkcs11Signer } = await import('./createPkcs11Signer.ts')
      return createPkcs11Signer({ ...source, ...(timeoutMs ? { timeoutMs } : {}) })
    }
    const { createKmsSigner } = await import('./createKmsSigner.ts')
    return await createKmsSigner({
      keyId: source.keyId,
      region: source.region,
      endpoint: source.endpoint,
      ...(timeoutMs ? { timeoutMs } : {}),
    })
  } catch (err) {
    throw new ConfigError([
      `${source.setting}: ${err instanceof GatewayError ? `${err.shortMessage} (${err.details})` : err instanceof Error ? err.message : String(err)}`,
    ])
  }
}
