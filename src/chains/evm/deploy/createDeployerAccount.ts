// The deployer's key as a viem account, wherever it lives: a local key, or through the gateway's
// own signer factories (createEvmSigner: PKCS#11 or KMS), which only ever ask the token or KMS to
// sign a digest. Start-up problems (no such key, a wrong PIN) name the setting, never the secret.
import type { LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createEvmSigner } from '../../../signers/createEvmSigner.ts'
import type { DeployerKeySource } from './readDeployOptions.ts'

export async function createDeployerAccount(source: DeployerKeySource): Promise<LocalAccount & { backend: string }> {
  if (source.backend === 'local') return { ...privateKeyToAccount(source.privateKey), backend: 'local' }
  return createEvmSigner(source)
}
