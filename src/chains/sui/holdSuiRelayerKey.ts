// A Sui relayer key held by one gateway instance at a time in a fleet (a shared journal's relayer
// leases). A Sui transaction pays with an owned gas coin at a given version, so two instances
// signing with one key at once would spend the same coin version: one is refused, or, if
// validators split, the coin is locked until the epoch ends. The key is held by an exclusive lease
// under (chain id, relayer address), renewed six times a lease's life; an instance without it
// validates but sends nothing, and takes the key over when the holder's lease ends (it died).
// Sending stops a third of the lease's life before it ends, so that a slow holder has stopped
// (its last broadcast answered or timed out) before anyone else can take the key.
import type { Logger } from 'pino'
import type { RelayerLeases } from '../../ports/relayerLeases.ts'

export type SuiKeyHold = {
  /** Whether this instance may sign with the key now; a renewal that is late (the process was busy) is awaited first. */
  canSendNow(): Promise<boolean>
  /** Whether this instance may sign with the key at this moment (the last check before signing). */
  holdsNow(): boolean
  /** Whether the key's lease is this instance's (its journaled transactions are this instance's to reconcile). */
  holdsLease(): boolean
  close(): void
}

export type HoldSuiRelayerKeyParameters = {
  leases: RelayerLeases
  chainId: string
  relayer: string
  logger: Logger
  /** Told when this instance takes the key (at start, or over from another holder): before it signs, it delivers what the key's last holder left pending. */
  onAcquired?: () => void
}

/** Undefined when nothing needs holding: one instance alone (no shared leases) holds its key for good. */
export function holdSuiRelayerKey({
  leases,
  chainId,
  relayer,
  logger,
  onAcquired,
}: HoldSuiRelayerKeyParameters): SuiKeyHold | undefined {
  if (!leases.holdExclusive || !Number.isFinite(leases.ttlMs)) return undefined
  const hold = leases.holdExclusive.bind(leases)
  const ttlMs = leases.ttlMs
  const margin = ttlMs / 3
  const log = logger.child({ module: 'sui-key', chainId, relayer })
  // Local clock: the lease is this instance's until `leaseUntil` (counted from before the round trip, so never later than the database's).
  let leaseUntil = 0
  let holder: string | undefined
  let pending: Promise<void> | undefined
  let closed = false

  const attempt = (): Promise<void> => {
    if (pending) return pending
    const asked = Date.now()
    pending = hold(chainId, relayer)
      .then(
        (answer) => {
          const had = leaseUntil > 0
          if (answer.held) {
            if (!had) {
              log.info(
                { instanceId: leases.instanceId, previousHolder: holder ?? null },
                'this instance holds the Sui relayer key: it sends from it',
              )
              onAcquired?.()
            }
            leaseUntil = asked + ttlMs
            holder = leases.instanceId
          } else {
            if (had)
              log.error(
                { holder: answer.holder },
                'the Sui relayer key was taken by another instance (this one renewed too late): it stops sending',
              )
            else if (holder !== answer.holder)
              log.info(
                { holder: answer.holder },
                'the Sui relayer key is held by another instance: this one validates only until the key is free',
              )
            leaseUntil = 0
            holder = answer.holder
          }
        },
        (err: unknown) =>
          log.warn({ err }, 'the lease of the Sui relayer key could not be renewed; sending stops when it ends'),
      )
      .finally(() => {
        pending = undefined
      })
    return pending
  }

  void attempt()
  const renew = setInterval(() => {
    if (!closed) void attempt()
  }, ttlMs / 6)
  renew.unref()

  const holdsNow = () => leaseUntil - margin > Date.now()
  return {
    async canSendNow() {
      if (holdsNow()) return true
      // The first answer or a renewal under way; or, held before, a renewal that is late (the process was busy).
      if (pending) await pending
      if (!holdsNow() && leaseUntil > 0) await attempt()
      return holdsNow()
    },
    holdsNow,
    holdsLease: () => leaseUntil > Date.now(),
    close() {
      closed = true
      clearInterval(renew)
    },
  }
}
