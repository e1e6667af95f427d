// Relayer keys as the configuration carries them (GatewayConfig.keys: KeySources by chain type),
// for tests that build a configuration without reading an environment.
import type { EvmKeySource, KeySource } from '../../src/ports/keySource.ts'

/** A key held in the process, in its runtime's own form, as its setting named it. */
export function localKey<Secret>(secret: Secret, setting: string): KeySource<Secret> {
  return { backend: 'local', secret, setting } as KeySource<Secret>
}

/** EVM relayer keys in a PKCS#11 token (RELAYER_PKCS11_KEY_LABELS). */
export function tokenKeys(
  token: { modulePath: string; tokenLabel: string; pin: string },
  keyLabels: string[],
): EvmKeySource[] {
  const { modulePath, tokenLabel, pin } = token
  return keyLabels.map((keyLabel) => ({
    backend: 'pkcs11',
    modulePath,
    tokenLabel,
    pin,
    keyLabel,
    setting: 'RELAYER_PKCS11_KEY_LABELS',
  }))
}

/** EVM relayer keys in KMS (RELAYER_KMS_KEY_IDS). */
export function kmsKeys(keyIds: string[], region: string, endpoint: string | undefined): EvmKeySource[] {
  return keyIds.map((keyId) => ({ backend: 'kms', keyId, region, endpoint, setting: 'RELAYER_KMS_KEY_IDS' }))
}
