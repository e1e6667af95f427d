// How many of K keys one of N live instances holds: ⌊K/N⌋, and one more for the first K mod N
// instances by rank (instance ids in order), so that the shares add up to K and every instance
// holds one when K ≥ N.

export type RelayerShareParameters = {
  keys: number
  /** The live instances claiming these keys, this one among them. */
  instanceIds: readonly string[]
  instanceId: string
}

export function relayerShare({ keys, instanceIds, instanceId }: RelayerShareParameters): number {
  const ranked = [...new Set([...instanceIds, instanceId])].sort()
  const live = ranked.length
  const rank = ranked.indexOf(instanceId)
  return Math.floor(keys / live) + (rank < keys % live ? 1 : 0)
}
