// Keys held in the process, read from the environment (the devnet's way): the baseline the other
// backends are measured against. It has no settings of its own here: each runtime reads its keys
// in the process itself (RuntimeModule.readSettings), and each payment family its facilitator's.
import { privateKeyToAccount } from 'viem/accounts'
import { createLocalEd25519Signer } from './createLocalEd25519Signer.ts'
import type { KeyBackend } from './keyBackend.ts'

export const localKeyBackend: KeyBackend = {
  backend: 'local',
  opensTogether: true,
  async openEvm(source) {
    if (source.backend !== 'local') throw new Error(`not a local key: ${source.backend}`)
    return { ...privateKeyToAccount(source.secret), backend: 'local' }
  },
  async openEd25519(source) {
    if (source.backend !== 'local') throw new Error(`not a local key: ${source.backend}`)
    return createLocalEd25519Signer(source.secret)
  },
}
