// Keys in a PKCS#11 token (an HSM; SoftHSM2 in tests), their private halves never read out. One
// token for every role (RELAYER_PKCS11_MODULE, RELAYER_PKCS11_TOKEN, RELAYER_PKCS11_PIN), each key
// named by its label: `<prefix>_PKCS11_KEY_LABELS` for a pool, `<prefix>_PKCS11_KEY_LABEL` for one
// key. The token's native binding is loaded only when a key is opened. The PIN is never echoed.
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
  settings: {
    setting: (prefix, many) => `${prefix}_PKCS11_KEY_LABEL${many ? 'S' : ''}`,
    read(env) {
      const modulePath = env.RELAYER_PKCS11_MODULE?.trim()
      const tokenLabel = env.RELAYER_PKCS11_TOKEN?.trim()
      const pin = env.RELAYER_PKCS11_PIN
      return {
        check: () => [],
        // Without the token's settings no key is read; finish names what is missing, once for every label.
        keys: (labels, setting) =>
          modulePath && tokenLabel && pin
            ? labels.map((keyLabel) => ({ backend: 'pkcs11', modulePath, tokenLabel, pin, keyLabel, setting }))
            : [],
        // The token's settings are required with any label, and a label with any of them (not the PIN alone).
        finish(named, every) {
          if (named.length === 0 && !modulePath && !tokenLabel) return []
          const problems: string[] = []
          const withLabels = named.join(' or ') || every[0]
          if (named.length === 0)
            problems.push(
              `${every[0]}: required with RELAYER_PKCS11_MODULE: the labels of the relayer keys in the token (or ${every.slice(1).join(', ')})`,
            )
          if (!modulePath)
            problems.push(`RELAYER_PKCS11_MODULE: required with ${withLabels}: the path of the token's PKCS#11 library`)
          if (!tokenLabel) problems.push(`RELAYER_PKCS11_TOKEN: required with ${withLabels}: the token's label`)
          if (!pin) problems.push(`RELAYER_PKCS11_PIN: required with ${withLabels}: the token's user PIN`)
          return problems
        },
      }
    },
  },
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
