// Which relayer keys this gateway instance may send from. Several instances can share one journal
// (PostgreSQL) and one list of relayer keys; a key's nonce sequence belongs to one instance at a
// time, for as long as its lease lives. A single instance (SQLite journal) holds every key.

export type RelayerLease = {
  chainId: string
  /** The relayer's address as the runtime writes it (EVM: checksummed 0x hex). */
  relayer: string
  /** Local clock (ms since epoch): the key may be used only before this, less a safety margin. */
  expiresAt: number
  /** True when this instance took the key over from another (expired) holder, or for the first time: its records must be reconciled and its nonce read again before it sends. */
  acquired: boolean
  /**
   * The lease's fencing epoch: counted up by the store each time the key passes to another
   * instance, the same for as long as this instance keeps it (renewed, or lapsed and taken back
   * with nobody between). A transaction signed under one epoch is broadcast only while the key is
   * still held under that epoch: after a partition longer than the lease, another instance may
   * have sent from the key, and what this one signed before must not reach the node.
   */
  epoch: number
}

export type ClaimOptions = {
  /**
   * Keys above this instance's share that it has stopped sending from, with no send under way:
   * given back in the same round trip (unless the share has grown back over them), so that the
   * instance short of its share takes them now rather than when their leases end.
   */
  release?: readonly string[] | undefined
}

export type RelayerLeases = {
  /** This instance's id: stable for the life of the process, unique among the instances sharing a journal. */
  readonly instanceId: string
  /** How long a lease lives unless renewed; holders renew several times within it. */
  readonly ttlMs: number
  /**
   * Renews the leases this instance holds among `relayers` up to its share and takes free ones
   * up to it; answers the leases held afterwards (one round trip to the store). With K keys and
   * N live instances claiming the same keys, each holds ⌊K/N⌋ or ⌈K/N⌉.
   */
  claim(chainId: string, relayers: readonly string[], options?: ClaimOptions): Promise<RelayerLease[]>
  /**
   * One key that must have one user among the instances (not shared by rank): takes or renews its
   * lease unless another live instance holds it; answers who holds it afterwards.
   */
  holdExclusive?(scope: string, key: string): Promise<{ held: true } | { held: false; holder: string }>
  /**
   * How many live instances share the journal with this one (itself included), as its last claim
   * saw them (no round trip of its own): what the limits are divided by while Redis is unreachable
   * (limits/createWindowCounters.ts). One instance alone: 1.
   */
  liveInstances?(): number
  /** True while an operator drains this instance (ops/createOpsSwitches.ts): pools send nothing new and give keys back once idle. */
  draining?(): boolean
  /**
   * Ends this instance's leases on these keys now (a drained instance's idle keys: it sends nothing
   * from them any more), so that another instance takes them at once rather than when they lapse.
   */
  giveBack?(chainId: string, relayers: readonly string[]): Promise<void>
  /** Gives up this instance's leases (clean shutdown), so that another instance takes them at once. */
  releaseAll(): Promise<void>
}

/** One instance alone: it holds every key, for good. */
export function createLocalRelayerLeases(): RelayerLeases {
  const seen = new Set<string>()
  return {
    instanceId: 'local',
    ttlMs: Number.POSITIVE_INFINITY,
    async claim(chainId, relayers) {
      return relayers.map((relayer) => {
        const key = `${chainId} ${relayer}`
        const acquired = !seen.has(key)
        seen.add(key)
        return { chainId, relayer, expiresAt: Number.POSITIVE_INFINITY, acquired, epoch: 1 }
      })
    },
    async releaseAll() {},
  }
}
