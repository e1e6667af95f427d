// A LiteSVM with the feature set of the clusters' future rather than LiteSVM's default: every
// feature LiteSVM knows active, among them SBPF v3 (SIMD-0178, 0189, 0377) and SIMD-0500, under
// which Loader V3 refuses to deploy any ELF that is not SBPF v3. Shared by the devnet's RPC front
// and the program tests, so both deploy under the same rules.
import { type Address, getAddressEncoder } from '@solana/kit'
import { FeatureSet, LiteSVM } from 'litesvm'

/** `disable_sbpf_v0_v1_v2_deployment` (SIMD-0500). */
export const simd0500Feature = 'B8JJXCy5amZyWG9r7EnUYLwzXSXTxG7GZ1qZ1qggo83g' as Address

export type CreateClusterSvmParameters = {
  /** Turns SIMD-0500 off, as on clusters that have not activated it yet: then v0 ELFs deploy too. */
  allowSbpfV0Deployment?: boolean
}

export function createClusterSvm({ allowSbpfV0Deployment = false }: CreateClusterSvmParameters = {}): LiteSVM {
  const features = FeatureSet.allEnabled()
  if (allowSbpfV0Deployment) features.deactivate(Uint8Array.from(getAddressEncoder().encode(simd0500Feature)))
  // The order of LiteSVM's own constructor, with our feature set in place of its default one.
  return LiteSVM.default()
    .withFeatureSet(features)
    .withBuiltins()
    .withLamports(1_000_000_000_000_000n)
    .withSysvars()
    .withPrecompiles()
    .withDefaultPrograms()
    .withSigverify(true)
    .withBlockhashCheck(true)
}
