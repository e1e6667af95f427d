// One EVM key from where the configuration says it lives (config/signersConfig.ts), opened by its
// backend (keyBackends.ts: in the process, a PKCS#11 token, KMS) as a viem account. Start-up
// problems (no such key, a wrong PIN, a key of another kind, KMS not answering) are thrown naming
// the setting.
import type { LocalAccount } from 'viem'
import { ConfigError } from '../errors/configError.ts'
import { GatewayError } from '../errors/gatewayError.ts'
import type { EvmKeySource } from '../ports/keySource.ts'
import { keyBackendOf } from './keyBackends.ts'

export async function createEvmSigner(
  source: EvmKeySource,
  { timeoutMs }: { timeoutMs?: number } = {},
): Promise<LocalAccount & { backend: string }> {
  try {
    return await keyBackendOf(source.backend).openEvm(source, timeoutMs ? { timeoutMs } : {})
  } catch (err) {
    throw new ConfigError([
      `${source.setting}: ${err instanceof GatewayError ? `${err.shortMessage} (${err.details})` : err instanceof Error ? err.message : String(err)}`,
    ])
  }
}
