// The pool's keys leased from the shared store: claimed and renewed (one claim at a time), taken
// over keys resynced, keys above this instance's share given back once idle.
import type { RelayerPoolContext } from './relayerPoolContext.ts'

export const claimLeases = (ctx: RelayerPoolContext): Promise<void> => (ctx.claiming ??= claimOnce(ctx).finally(() => (ctx.claiming = undefined)))

/** Renews first when the leases held lapsed locally only because their renewal is late (a busy process). */
export async function renewIfLapsed(ctx: RelayerPoolContext): Promise<void> {
  const { members } = ctx
  const now = Date.now()
  // Held at the last claim and not given up since, but past its local margin: the renewal is late.
  if (members.some((m) => m.usableUntil > now) || !members.some((m) => m.usableUntil > 0)) return
  await claimLeases(ctx).catch((err: unknown) => ctx.log.warn({ err }, 'relayer leases could not be renewed'))
}

async function claimOnce({ members, byAddress, leases, chain, margin, log }: RelayerPoolContext) {
  const release = members.filter((m) => m.leaving && m.inFlight === 0).map((m) => m.account.address)
  const asked = Date.now()
  const held = await leases.claim(
    chain,
    members.map((m) => m.account.address),
    { release },
  )
  const now = Date.now()
  if (Number.isFinite(leases.ttlMs) && now - asked > margin) log.warn({ ms: now - asked }, 'renewing the relayer leases took longer than their safety margin: keys pause until it answers')
  const heldNow = new Set<string>()
  for (const lease of held) {
    const member = byAddress.get(lease.relayer.toLowerCase())
    if (!member) continue
    heldNow.add(lease.relayer.toLowerCase())
    member.leaving = false
    if (lease.acquired) {
      // Taken over (or new): its nonce is read again from the node and the journal before it sends.
      member.relayer.resync()
      if (member.usableUntil <= now) log.info({ relayer: member.account.address }, 'relayer key leased to this instance')
    }
    member.usableUntil = lease.expiresAt - margin
    member.epoch = lease.epoch
  }
  for (const member of members) {
    if (heldNow.has(member.account.address.toLowerCase())) continue
    if (release.includes(member.account.address)) member.leaving = false
    if (member.usableUntil > now) {
      log.info({ relayer: member.account.address }, 'relayer key no longer leased to this instance: it stops sending from it')
      member.usableUntil = 0
      member.leaving = true
    }
  }
}
