// The places a key can live, named once: the composition root hands this list to the
// configuration (src/runtimes.ts), which reads each backend's settings through it, and
// createEvmSigner and createEd25519Signer open every role's keys through it. A new backend is a
// file exporting a KeyBackend (keyBackend.ts: its keys' shape, its settings, its openers) and a
// line here. The order is the order messages list a role's settings in.
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
