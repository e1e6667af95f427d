// Keys in a PKCS#11 token (an HSM; SoftHSM2 in tests), their private halves never read out. The
// token's native binding is loaded only when a key lives there.
import type { KeyBackend } from './keyBackend.ts'

declare module '../ports/keySource.ts' {
  interface HeldKeyFields {
    /** An object in the RELAYER_PKCS11_* token, by its label. */
    pkcs11: { modulePath: string; tokenLabel: string; pin: string; keyLabel: string }
  }
}

export const pkcs11KeyBackend: KeyBackend = {
  backend: 'pkcs11',
  opensTogether: false,
  async openEvm(source, { timeoutMs }) {
    if (source.backend !== 'pkcs11') throw new Error(`not a PKCS#11 key: ${source.backend}`)
    const { createPkcs11Signer } = await import('./createPkcs11Signer.ts')
    return createPkcs11Signer({ ...source, ...(timeoutMs ? { timeoutMs } : {}) })
  },
  async openEd25519(source) {
    if (source.backend !== 'pkcs11') throw new Error(`not a PKCS#11 key: ${source.backend}`)
    const { createPkcs11EdDsaSigner } = await import('./createPkcs11EdDsaSigner.ts')
    return createPkcs11EdDsaSigner(source)
  },
}
