// A key that two instances must never use at once (the in-process x402 facilitator's EVM account:
// two instances settling with it collide on its nonce), held by an exclusive lease in the shared
// database. At start-up it waits up to a lease's life for a dead holder's lease to end; if a live
// instance still holds it, that is a configuration problem (production refuses to start), and
// losing it later is logged as an error.
import type { Logger } from 'pino'
import type { RelayerLeases } from '../ports/relayerLeases.ts'

export type HoldSoleKeyParameters = {
  leases: RelayerLeases
  /** The lease's scope, e.g. `x402-facilitator`. */
  scope: string
  /** The key's address. */
  key: string
  /** The setting that names the key, for the problem and the log. */
  setting: string
  logger: Logger
  /** How long to wait at start-up for another holder's lease to end; default the lease's life and a second. */
  waitMs?: number | undefined
}

export type SoleKeyHold = {
  /** Set when another live instance holds the key: the start-up problem to report. */
  problem: string | undefined
  close(): void
}

export async function holdSoleKey({
  leases,
  scope,
  key,
  setting,
  logger,
  waitMs = leases.ttlMs + 1_000,
}: HoldSoleKeyParameters): Promise<SoleKeyHold> {
  const log = logger.child({ module: 'sole-key', scope })
  if (!leases.holdExclusive || !Number.isFinite(leases.ttlMs)) return { problem: undefined, close() {} }
  const hold = leases.holdExclusive.bind(leases)
  const deadline = Date.now() + waitMs
  let answer = await hold(scope, key)
  while (!answer.held && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, Math.min(500, leases.ttlMs / 6)))
    answer = await hold(scope, key)
  }
  if (!answer.held) {
    return {
      problem: `${setting}: its account ${key} is in use by another live instance (${answer.holder}) sharing this database; two instances settling with one key collide on its nonce: give each instance its own key, or share a remote facilitator (FACILITATOR_URL)`,
      close() {},
    }
  }
  let lost = false
  const renew = setInterval(() => {
    hold(scope, key).then(
      (now) => {
        if (!now.held && !lost)
          log.error(
            { holder: now.holder, key },
            `${setting} is now held by another instance: two instances are using one key`,
          )
        lost = !now.held
      },
      (err: unknown) => log.warn({ err }, `the lease of ${setting} could not be renewed`),
    )
  }, leases.ttlMs / 6)
  renew.unref()
  return { problem: undefined, close: () => clearInterval(renew) }
}
