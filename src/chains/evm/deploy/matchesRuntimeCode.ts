// Whether a chain's runtime code is the build's: byte for byte, except in the ranges the compiler
// reports as immutables (`immutableReferences`), which the constructor fills with each
// deployment's own values (addresses, the EIP-712 domain) and which are checked by reading them.
import type { Hex } from 'viem'

export type RuntimeArtifact = {
  deployedBytecode: Hex
  immutableReferences: readonly { start: number; length: number }[]
}

export function matchesRuntimeCode(code: Hex | undefined, artifact: RuntimeArtifact): boolean {
  if (!code) return false
  const expected = artifact.deployedBytecode.toLowerCase()
  const actual = code.toLowerCase()
  if (actual.length !== expected.length) return false
  return mask(actual, artifact.immutableReferences) === mask(expected, artifact.immutableReferences)
}

function mask(code: string, references: RuntimeArtifact['immutableReferences']): string {
  let masked = code
  for (const { start, length } of references) {
    // Two hex digits a byte, after the 0x.
    const from = 2 + start * 2
    masked = masked.slice(0, from) + '0'.repeat(length * 2) + masked.slice(from + length * 2)
  }
  return masked
}
