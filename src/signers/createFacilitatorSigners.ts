// The in-process x402 facilitator's two keys, opened at start-up from where the configuration
// says they live: in the process (FACILITATOR_PRIVATE_KEY, FACILITATOR_SOLANA_PRIVATE_KEY), in the
// PKCS#11 token, or in KMS (config/signersConfig.ts). A key that cannot be opened stops the
// start-up naming its setting; the addresses are known from here on (the fleet's lease, the logs).
import { base58 } from '@scure/base'
import type { LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { FacilitatorConfig } from '../config/paymentsConfig.ts'
import { createEd25519Signer } from './createEd25519Signer.ts'
import { createEvmSigner } from './createEvmSigner.ts'
import { createLocalEd25519Signer } from './createLocalEd25519Signer.ts'
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

export async function createFacilitatorSigners(config: Extract<FacilitatorConfig, { kind: 'local' }>): Promise<FacilitatorSigners> {
  const evm = config.evmKey ? await createEvmSigner(config.evmKey) : config.privateKey ? { ...privateKeyToAccount(config.privateKey), backend: 'local' } : undefined
  const solana = config.solanaKey ? await createEd25519Signer(config.solanaKey) : config.solanaSecretKey ? createLocalEd25519Signer(config.solanaSecretKey.subarray(0, 32)) : undefined
  const keys: FacilitatorSigners['keys'] = [
    ...(evm ? [{ key: 'evm' as const, address: evm.address, signer: evm.backend, setting: config.evmKey?.setting ?? 'FACILITATOR_PRIVATE_KEY' }] : []),
    ...(solana ? [{ key: 'solana' as const, address: base58.encode(solana.publicKey), signer: solana.backend, setting: config.solanaKey?.setting ?? 'FACILITATOR_SOLANA_PRIVATE_KEY' }] : []),
  ]
  return { ...(evm ? { evm } : {}), ...(solana ? { solana } : {}), keys }
}
