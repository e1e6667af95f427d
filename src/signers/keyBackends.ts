// The places a key can live, named once: createEvmSigner and createEd25519Signer open every role's
// keys through this list. A new backend is a file exporting a KeyBackend (keyBackend.ts), its
// keys' shape added to ports/keySource.ts' HeldKeyFields there, and a line here (and its settings
// read in config/signersConfig.ts).
import type { KeyBackend } from './keyBackend.ts'
import { kmsKeyBackend } from './kmsKeyBackend.ts'
import { localKeyBackend } from './localKeyBackend.ts'
import { pkcs11KeyBackend } from './pkcs11KeyBackend.ts'

export const keyBackends: readonly KeyBackend[] = [localKeyBackend, pkcs11KeyBackend, kmsKeyBackend]

export function keyBackendOf(backend: string): KeyBackend {
  const found = keyBackends.find((b) => b.backend === backend)
  if (!found) throw new Error(`no key backend "${backend}" (${keyBackends.map((b) => b.backend).join(', ')})`)
  return found
}
