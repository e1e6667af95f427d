// The key one execution is sent from: held, funded, with the fewest sends in flight, and of those
// the one taken least recently (so that executes arriving one after another still spread over the
// keys); counted in flight until the execution is done with it.
import { GatewayError } from '../../../errors/gatewayError.ts'
import { Status } from '../../../status/statusCodes.ts'
import type { Relayer } from './createRelayer.ts'
import type { Member, RelayerPoolContext } from './relayerPoolContext.ts'

export function takeRelayer({ members }: RelayerPoolContext): { relayer: Relayer; done(): void } {
  const now = Date.now()
  // Funded keys first; when every held key is short, one is tried anyway: the node's refusal
  // names the problem (502), and a key funded since is used at once, not at the next balance read.
  const best =
    fewest(members.filter((m) => m.funded && m.usableUntil > now)) ?? fewest(members.filter((m) => m.usableUntil > now))
  if (!best) {
    throw new GatewayError('No relayer key is available to send the execution', {
      code: 'RELAYER_UNAVAILABLE',
      status: Status.UNAVAILABLE,
      details: 'this instance holds no relayer key now (the others are leased to other instances)',
      headers: { 'retry-after': '5' },
    })
  }
  const member = best
  member.inFlight++
  member.lastTaken = ++taken
  let finished = false
  return {
    relayer: member.relayer,
    done() {
      if (!finished) member.inFlight--
      finished = true
    },
  }
}

/** How many keys this process has taken: each member's `lastTaken` orders them. */
let taken = 0

const fewest = (candidates: Member[]) =>
  candidates.reduce<Member | undefined>(
    (best, m) =>
      !best || m.inFlight < best.inFlight || (m.inFlight === best.inFlight && m.lastTaken < best.lastTaken) ? m : best,
    undefined,
  )
