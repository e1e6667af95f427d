// A TCP relay between a gateway and PostgreSQL (or Redis) that can stall what the gateway writes:
// with the database stalled right after the gateway was let past its simulation, the next thing it
// writes is the signed transaction's journal record, and a kill then lands after signing, before
// that record is durable. What was held back is thrown away, never written late. It can also cut
// the link (every connection reset, new ones refused: a partition, a server down) and heal it.

import type { AddressInfo } from 'node:net'
import { connect, createServer, type Socket } from 'node:net'

export type TcpStall = {
  port: number
  /** From now on, what the gateway writes is held back. */
  stall(): void
  /** Resolves when the gateway writes something while stalled. */
  nextWrite(): Promise<void>
  /**
   * Ends the stall: the held-back bytes are dropped with their connections (the gateway is dead by
   * then); or, `late`, delivered now, in order (a partition healed: what TCP kept retransmitting lands late).
   */
  resume(options?: { late?: boolean }): void
  /** Resets every connection and refuses new ones until `heal`. */
  cut(): void
  heal(): void
  /** Connections reset or refused while cut. */
  readonly cuts: number
  close(): Promise<void>
}

export async function startTcpStall({ host, port }: { host: string; port: number }): Promise<TcpStall> {
  let stalled = false
  let isCut = false
  let cuts = 0
  const waiters: Array<() => void> = []
  const pairs = new Set<{ client: Socket; upstream: Socket; held: boolean; pending: Buffer[] }>()
  const server = createServer((client) => {
    if (isCut) {
      cuts++
      client.destroy()
      return
    }
    const upstream = connect(port, host)
    const pair = { client, upstream, held: false, pending: [] as Buffer[] }
    pairs.add(pair)
    client.on('data', (d: Buffer) => {
      if (stalled || pair.held) {
        pair.held = true
        pair.pending.push(d)
        for (const w of waiters.splice(0)) w()
        return
      }
      upstream.write(d)
    })
    upstream.on('data', (d: Buffer) => client.write(d))
    const end = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('close', end)
    upstream.on('close', end)
    client.on('error', end)
    upstream.on('error', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    get cuts() {
      return cuts
    },
    cut() {
      isCut = true
      for (const p of [...pairs]) {
        cuts++
        p.client.destroy()
        p.upstream.destroy()
      }
    },
    heal() {
      isCut = false
    },
    stall: () => {
      stalled = true
    },
    nextWrite: () => new Promise<void>((resolve) => waiters.push(resolve)),
    resume({ late = false } = {}) {
      stalled = false
      for (const p of [...pairs]) {
        if (!p.held) continue
        if (late) {
          p.held = false
          for (const d of p.pending.splice(0)) p.upstream.write(d)
          continue
        }
        // A connection that had bytes held back is out of step with the server: closed, never replayed.
        p.client.destroy()
        p.upstream.destroy()
      }
    },
    async close() {
      for (const p of [...pairs]) {
        p.client.destroy()
        p.upstream.destroy()
      }
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
