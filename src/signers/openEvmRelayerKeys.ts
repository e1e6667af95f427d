// The EVM relayer keys held outside the process (GatewayConfig.keys.evm past the local ones:
// RELAYER_KMS_KEY_IDS, then RELAYER_PKCS11_KEY_LABELS), each a KeySource opened by its backend
// (keyBackends.ts), as viem accounts joined to the relayer pool. A key that cannot be opened stops
// the start-up naming its setting.
import type { LocalAccount } from 'viem'
import type { EvmKeySource } from '../ports/keySource.ts'
import { createEvmSigner } from './createEvmSigner.ts'
import { keyBackendOf } from './keyBackends.ts'

export async function openEvmRelayerKeys(
  sources: readonly EvmKeySource[],
): Promise<Array<LocalAccount & { backend: string }>> {
  // Keys of a backend that opens them together (KMS: their public keys asked at once) first, in
  // their order; then the others (a token's) one after another.
  const together = sources.filter((s) => keyBackendOf(s.backend).opensTogether)
  const inTurn = sources.filter((s) => !keyBackendOf(s.backend).opensTogether)
  const accounts = await Promise.all(together.map((source) => createEvmSigner(source)))
  for (const source of inTurn) accounts.push(await createEvmSigner(source))
  return accounts
}
