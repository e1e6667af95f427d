// The EVM relayer keys held outside the process (config/signersConfig.ts: RELAYER_KMS_KEY_IDS,
// then RELAYER_PKCS11_KEY_LABELS), each a KeySource opened by createEvmSigner, as viem accounts
// joined to the relayer pool. A key that cannot be opened stops the start-up naming its setting.
import type { LocalAccount } from 'viem'
import type { EvmKeySource, SignersConfig } from '../config/signersConfig.ts'
import { createEvmSigner } from './createEvmSigner.ts'

export async function openEvmRelayerKeys(
  signers: SignersConfig | undefined,
): Promise<Array<LocalAccount & { backend: string }>> {
  const { kms, pkcs11 } = signers ?? {}
  const inKms: EvmKeySource[] =
    kms && kms.keyIds.length > 0
      ? kms.keyIds.map((keyId) => ({
          backend: 'kms',
          keyId,
          region: kms.region!,
          endpoint: kms.endpoint,
          setting: 'RELAYER_KMS_KEY_IDS',
        }))
      : []
  const inToken: EvmKeySource[] = pkcs11
    ? pkcs11.keyLabels.map((keyLabel) => ({
        backend: 'pkcs11',
        modulePath: pkcs11.modulePath,
        tokenLabel: pkcs11.tokenLabel,
        pin: pkcs11.pin,
        keyLabel,
        setting: 'RELAYER_PKCS11_KEY_LABELS',
      }))
    : []
  // KMS's keys are asked for their public keys together; the token's are opened one after another.
  const accounts = await Promise.all(inKms.map((source) => createEvmSigner(source)))
  for (const source of inToken) accounts.push(await createEvmSigner(source))
  return accounts
}
