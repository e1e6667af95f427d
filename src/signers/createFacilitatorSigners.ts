// The in-process x402 facilitator's two keys, opened at start-up from where the configuration
// says they live: in the process (FACILITATOR_PRIVATE_KEY, FACILITATOR_SOLANA_PRIVATE_KEY), in the
// PKCS#11 token, or in KMS (config/signersConfig.ts). A key that cannot be opened stops the
// start-up naming its setting; the addresses are known from here on (the fleet's lease, the logs).
import { base58 } from '@scure/base'
import type { LocalAccount } from 'viem'
import type { FacilitatorConfig } from '../config/paymentsConfig.ts'
import type { Ed25519KeySource, EvmKeySource } from '../ports/keySource.ts'
import { createEd25519Signer } from './createEd25519Signer.ts'
import { createEvmSigner } from './createEvmSigner.ts'
import type { Ed25519Signer } from './ed25519Signer.ts'

/** The in-process facilitator's keys, wherever they live. */
export type FacilitatorSigners = {
  /** Settles on EVM networks (it pays their gas). */
  evm?: (LocalAccount & { backend: string }) | undefined
  /** Co-signs Solana settlements as their fee payer. */
  solana?: Ed25519Signer | undefined
  /** Each key as the logs show it: its address (0x…, base58) and where it lives, never a secret; its setting. */
  keys: Array<{ key: 'evm' | 'solana'; address: string; signer: string; setting: string }>
}

export async function createFacilitatorSigners(
  config: Extract<FacilitatorConfig, { kind: 'local' }>,
): Promise<FacilitatorSigners> {
  // Each key as a KeySource (a key from the environment is `local`), opened the one way every key is.
  const evmKey: EvmKeySource | undefined =
    config.evmKey ??
    (config.privateKey
      ? { backend: 'local', secret: config.privateKey, setting: 'FACILITATOR_PRIVATE_KEY' }
      : undefined)
  const solanaKey: Ed25519KeySource | undefined =
    config.solanaKey ??
    (config.solanaSecretKey
      ? { backend: 'local', secret: config.solanaSecretKey.subarray(0, 32), setting: 'FACILITATOR_SOLANA_PRIVATE_KEY' }
      : undefined)
  const evm = evmKey ? await createEvmSigner(evmKey) : undefined
  const solana = solanaKey ? await createEd25519Signer(solanaKey) : undefined
  const keys: FacilitatorSigners['keys'] = [
    ...(evm && evmKey
      ? [{ key: 'evm' as const, address: evm.address, signer: evm.backend, setting: evmKey.setting }]
      : []),
    ...(solana && solanaKey
      ? [
          {
            key: 'solana' as const,
            address: base58.encode(solana.publicKey),
            signer: solana.backend,
            setting: solanaKey.setting,
          },
        ]
      : []),
  ]
  return { ...(evm ? { evm } : {}), ...(solana ? { solana } : {}), keys }
}
