// A one-key runtime's relayer key among its KeySources: one held outside the process (a token,
// KMS) before one in the process, as the devnet's key fills in behind an operator's held one.
import type { KeySource } from '../ports/keySource.ts'

export function heldFirst(sources: readonly KeySource<unknown>[] | undefined): KeySource<unknown> | undefined {
  return sources?.find((k) => k.backend !== 'local') ?? sources?.[0]
}
