// Where an execute's wall time goes, and what the gateway adds to it, at a fixed number of
// connections (closed loop: each connection sends its next request once it has its answer).
//
// The gateway's side: each execute's time to answer (the gateway answers once the transaction is
// mined, §6), split with the gateway's own 'execute sent' log line (pino's `time`, ms) and a block
// watcher here (eth_blockNumber every `watchMs`): request → sent (queueing, simulation and its
// gather window, signing, the send), sent → its block seen (the blocks it waited: the one already
// being built when it was sent, then its own), block seen → answer (the receipt poll and the reply).
// Request → sent is split again by the line's own `steps` (adapter/executionSteps.ts): intake
// (the body, the hooks, the journal's claim), batching (the gather window, the wait for executions
// claimed before it), simulation (the node's answer), turn (its batch-mates sent before it, the
// key's lock), signing, broadcast (the journal's fsync, the nonces before it, the node's answer).
// The raw side: the same executeSigned() transactions pre-signed by a funded key, sent one per
// connection (eth_sendRawTransaction), mined when the same watcher sees the block that holds them.
// "Added" is the gateway's percentile minus the raw side's: time to answer against the raw side's
// time to mined (what a plain client would wait for the same knowledge), time to mined against it too.
import type { Hex } from 'viem'

export type LatencyPercentiles = { p50Ms: number; p99Ms: number }

export type ExecuteLatencyReturnType = {
  connections: number
  count: number
  gateway: {
    answer: LatencyPercentiles
    mined: LatencyPercentiles
    /** Medians per execute, ms: request → 'execute sent', sent → block seen, block seen → answer. */
    toSent: LatencyPercentiles
    sentToBlock: LatencyPercentiles
    blockToAnswer: LatencyPercentiles
    /** request → sent split by the gateway's own marks (the 'execute sent' line's `steps`: intake, batching, simulation, turn, signing, broadcast). */
    steps: Record<string, LatencyPercentiles>
    /** How many blocks an execute waited after being sent, beyond its own (by share of executes). */
    blocksWaited: Record<string, number>
    /** Mean JSON-RPC time per call while the round ran, by method, ms (the gateway's /metrics). */
    rpcMeanMs: Record<string, number>
    non200: number
  }
  raw: { sent: LatencyPercentiles; mined: LatencyPercentiles }
  added: { answer: LatencyPercentiles; mined: LatencyPercentiles }
}

export type ExecuteLatencyParameters = {
  gatewayUrl: string
  rpcUrl: string
  apiKey: string
  connections: number
  count: number
  /** A signed execute body for the gateway (a fresh intent each call). */
  gatewayBody(): Promise<string>
  /** The same execution as a raw transaction signed by a funded key (nonces counted by the caller). */
  rawTransaction(): Promise<Hex>
  /** Called with each JSON line the gateway logs while this runs; returns a function that stops listening. */
  onGatewayLog(listener: (line: string) => void): () => void
  /** The gateway's RPC time so far by method: [count, seconds] (its /metrics). */
  rpcTimes(): Promise<Record<string, [number, number]>>
  watchMs?: number
}

const percentiles = (xs: number[]): LatencyPercentiles => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN
  return { p50Ms: at(0.5), p99Ms: at(0.99) }
}
const minus = (a: LatencyPercentiles, b: LatencyPercentiles): LatencyPercentiles => ({
  p50Ms: a.p50Ms - b.p50Ms,
  p99Ms: a.p99Ms - b.p99Ms,
})

export async function executeLatency(params: ExecuteLatencyParameters): Promise<ExecuteLatencyReturnType> {
  const { connections, count, rpcUrl } = params
  const watchMs = params.watchMs ?? 10
  let id = 0
  const rpc = async (method: string, rpcParams: unknown[]) => {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: rpcParams }),
    })
    const answer = (await res.json()) as { result?: unknown; error?: { message: string } }
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`)
    return answer.result
  }

  // When this process first saw each block (Date.now(), ms: the gateway's log lines are in the same clock).
  const seenAt = new Map<number, number>()
  let head = Number(await rpc('eth_blockNumber', []))
  seenAt.set(head, Date.now())
  let watching = true
  const waiters: Array<() => void> = []
  const watcher = (async () => {
    while (watching) {
      const n = Number(await rpc('eth_blockNumber', []))
      if (n > head) {
        const now = Date.now()
        for (let b = head + 1; b <= n; b++) seenAt.set(b, now)
        head = n
        for (const w of waiters.splice(0)) w()
      }
      await new Promise((r) => setTimeout(r, watchMs))
    }
  })()
  const nextBlock = () => new Promise<void>((r) => waiters.push(r))

  try {
    // Raw: one transaction per connection at a time, mined when the watcher sees its block.
    const rawSent: number[] = []
    const rawMined: number[] = []
    const rawSigned = await Promise.all(Array.from({ length: count }, () => params.rawTransaction()))
    let nextRaw = 0
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (nextRaw < rawSigned.length) {
          const tx = rawSigned[nextRaw++]!
          const start = Date.now()
          const hash = (await rpc('eth_sendRawTransaction', [tx])) as Hex
          rawSent.push(Date.now() - start)
          for (;;) {
            const receipt = (await rpc('eth_getTransactionReceipt', [hash])) as { blockNumber: Hex; status: Hex } | null
            if (receipt) {
              if (receipt.status !== '0x1') throw new Error(`a raw transaction reverted: ${hash}`)
              rawMined.push((seenAt.get(Number(receipt.blockNumber)) ?? Date.now()) - start)
              break
            }
            await nextBlock()
          }
        }
      }),
    )

    // The gateway: the same executions as signed intents.
    const bodies = await Promise.all(Array.from({ length: count }, () => params.gatewayBody()))
    const sentAt = new Map<string, number>()
    const stepsOf = new Map<string, Record<string, number>>()
    const stop = params.onGatewayLog((line) => {
      if (!line.includes('"execute sent"')) return
      try {
        const { transactionHash, time, steps } = JSON.parse(line) as {
          transactionHash?: string
          time?: number
          steps?: Record<string, number>
        }
        if (transactionHash && time) sentAt.set(transactionHash, time)
        if (transactionHash && steps) stepsOf.set(transactionHash, steps)
      } catch {} // not one whole JSON line
    })
    const rpcBefore = await params.rpcTimes()
    const answers: Array<{ start: number; end: number; hash?: string; block?: number; headAtSend?: number }> = []
    let non200 = 0
    let nextBody = 0
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (nextBody < bodies.length) {
          const body = bodies[nextBody++]!
          const start = Date.now()
          const res = await fetch(`${params.gatewayUrl}/intents/execute`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${params.apiKey}` },
            body,
          })
          const answer = (await res.json()) as { transactionHash?: string; blockNumber?: string | number }
          const end = Date.now()
          if (res.status !== 200) non200++
          answers.push({
            start,
            end,
            ...(answer.transactionHash ? { hash: answer.transactionHash } : {}),
            ...(answer.blockNumber !== undefined ? { block: Number(answer.blockNumber) } : {}),
          })
        }
      }),
    )
    const rpcAfter = await params.rpcTimes()
    // The gateway's log is written in 4 KiB chunks, flushed every second: wait for the last lines.
    const deadline = Date.now() + 3000
    while (answers.some((a) => a.hash && !sentAt.has(a.hash)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100))
    stop()

    const ok = answers.filter((a) => a.hash !== undefined && a.block !== undefined)
    const timed = ok.filter((a) => sentAt.has(a.hash!) && seenAt.has(a.block!))
    const blockBefore = (at: number) => {
      // The newest block this process had seen at `at`.
      let best = -1
      for (const [b, t] of seenAt) if (t <= at && b > best) best = b
      return best
    }
    const waited: Record<string, number> = {}
    for (const a of timed) {
      const k = String(Math.max(0, a.block! - blockBefore(sentAt.get(a.hash!)!) - 1))
      waited[k] = (waited[k] ?? 0) + 1 / timed.length
    }
    const rpcMeanMs = Object.fromEntries(
      Object.entries(rpcAfter)
        .map(([m, [n, s]]) => {
          const [n0, s0] = rpcBefore[m] ?? [0, 0]
          return [m, n - n0 > 0 ? ((s - s0) * 1000) / (n - n0) : Number.NaN] as const
        })
        .filter(([, v]) => !Number.isNaN(v)),
    )
    const gateway = {
      answer: percentiles(ok.map((a) => a.end - a.start)),
      mined: percentiles(ok.filter((a) => seenAt.has(a.block!)).map((a) => seenAt.get(a.block!)! - a.start)),
      toSent: percentiles(timed.map((a) => sentAt.get(a.hash!)! - a.start)),
      sentToBlock: percentiles(timed.map((a) => seenAt.get(a.block!)! - sentAt.get(a.hash!)!)),
      blockToAnswer: percentiles(timed.map((a) => a.end - seenAt.get(a.block!)!)),
      steps: Object.fromEntries(
        ['intake', 'batching', 'simulation', 'turn', 'signing', 'broadcast'].map((name) => [
          name,
          percentiles(timed.flatMap((a) => stepsOf.get(a.hash!)?.[name] ?? [])),
        ]),
      ),
      blocksWaited: waited,
      rpcMeanMs,
      non200,
    }
    const raw = { sent: percentiles(rawSent), mined: percentiles(rawMined) }
    return {
      connections,
      count,
      gateway,
      raw,
      added: { answer: minus(gateway.answer, raw.mined), mined: minus(gateway.mined, raw.mined) },
    }
  } finally {
    watching = false
    for (const w of waiters.splice(0)) w()
    await watcher
  }
}
