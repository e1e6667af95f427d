// The pool's keys leased from the shared store: claimed and renewed (one claim at a time), taken
// over keys resynced, keys above this instance's share given back once idle.
import type { RelayerPoolContext } from './relayerPoolContext.ts'

export const claimLeases = (ctx: RelayerPoolContext): Promise<void> =>
  (ctx.claiming ??= claimOnce(ctx).finally(() => (ctx.claiming = undefined)))

/** Renews first when the leases held lapsed locally only because their renewal is late (a busy process). */
export async function renewIfLapsed(ctx: RelayerPoolContext): Promise<void> {
  const { members } = ctx
  const now = Date.now()
  // Held at the last claim and not given up since, but past its local margin: the renewal is late.
  if (members.some((m) => m.usableUntil > now) || !members.some((m) => m.usableUntil > 0)) return
  await claimLeases(ctx).catch((err: unknown) => ctx.log.warn({ err }, 'relayer leases could not be renewed'))
}

async function claimOnce(ctx: RelayerPoolContext) {
  if (ctx.leases.draining?.()) return drainOnce(ctx)
  const { members, byAddress, leases, chain, margin, log } = ctx
  const release = members.filter((m) => m.leaving && m.inFlight === 0).map((m) => m.account.address)
  const asked = Date.now()
  const held = await leases.claim(
    chain,
    members.map((m) => m.account.address),
    { release },
  )
  const now = Date.now()
  if (Number.isFinite(leases.ttlMs) && now - asked > margin)
    log.warn(
      { ms: now - asked },
      'renewing the relayer leases took longer than their safety margin: keys pause until it answers',
    )
  const heldNow = new Set<string>()
  for (const lease of held) {
    const member = byAddress.get(lease.relayer.toLowerCase())
    if (!member) continue
    heldNow.add(lease.relayer.toLowerCase())
    member.leaving = false
    if (lease.acquired) {
      // Taken over (or new): its nonce is read again from the node and the journal before it sends.
      member.relayer.resync()
      if (member.usableUntil <= now)
        log.info({ relayer: member.account.address }, 'relayer key leased to this instance')
    }
    member.usableUntil = lease.expiresAt - margin
    member.epoch = lease.epoch
  }
  for (const member of members) {
    if (heldNow.has(member.account.address.toLowerCase())) continue
    if (release.includes(member.account.address)) member.leaving = false
    if (member.usableUntil > now) {
      log.info(
        { relayer: member.account.address },
        'relayer key no longer leased to this instance: it stops sending from it',
      )
      member.usableUntil = 0
      member.leaving = true
    }
  }
}

/**
 * An operator drained this instance: nothing new is sent (the pool refuses at once); a key with a
 * send under way or a transaction the node has not mined yet stays leased (renewed alone, under a
 * seat of its own, so that the other instances' shares grow over every other key); the rest are no
 * longer renewed and go to the other instances when their leases end.
 */
async function drainOnce({ members, leases, chain, client, margin, log }: RelayerPoolContext) {
  const now = Date.now()
  const held = members.filter((m) => m.usableUntil > now)
  const busy: typeof held = []
  const idle: string[] = []
  for (const member of held) {
    if (member.inFlight > 0 || (await unmined(client, member.account.address))) busy.push(member)
    else {
      member.usableUntil = 0
      member.leaving = false
      idle.push(member.account.address)
      log.info(
        { relayer: member.account.address },
        'instance drained: relayer key idle, given back (the other instances take it)',
      )
    }
  }
  // Nothing is sent from them here any more (usableUntil 0): their leases end now, not when they lapse.
  if (idle.length > 0)
    await leases
      .giveBack?.(chain, idle)
      .catch((err: unknown) =>
        log.warn({ err }, 'idle relayer keys could not be given back; they go when their leases lapse'),
      )
  if (busy.length === 0 || !Number.isFinite(leases.ttlMs)) return
  const asked = Date.now()
  const renewed = new Set(
    (
      await leases.claim(
        chain,
        busy.map((m) => m.account.address),
      )
    ).map((l) => l.relayer.toLowerCase()),
  )
  for (const member of busy)
    member.usableUntil = renewed.has(member.account.address.toLowerCase()) ? asked + leases.ttlMs - margin : 0
}

/** Whether the node holds transactions of this key not mined yet (a dropped one is not held: its key is free). */
async function unmined(client: RelayerPoolContext['client'], address: `0x${string}`): Promise<boolean> {
  const [mined, pending] = await Promise.all([
    client.getTransactionCount({ address, blockTag: 'latest' }),
    client.getTransactionCount({ address, blockTag: 'pending' }),
  ])
  return pending > mined
}
