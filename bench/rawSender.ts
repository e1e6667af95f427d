// The fastest plain client the bench compares execute against: transactions signed beforehand
// (fixed gas limit, nonces counted locally), sent in JSON-RPC batches of eth_sendRawTransaction
// with several batches in flight over keep-alive connections, completion seen by polling the
// sender's mined nonce, and the receipts read in batches at the end. Nothing a node must search.
import { Pool } from 'undici'
import type { Hex } from 'viem'

export type RawSendResult = {
  seconds: number
  succeeded: number
  failed: number
  /** The JSON-RPC calls made, by method (a batch of k counts k). */
  calls: Record<string, number>
  /** HTTP requests made (a batch is one). */
  httpRequests: number
  /** Errors the node answered to a send, first few. */
  sendErrors: string[]
}

type RpcAnswer = { id: number; result?: unknown; error?: { message: string } }

/**
 * Sends `signed` (one sender's transactions, nonces `startNonce`..) to `rpcUrl` and waits until all
 * are mined; `batchSize` transactions per request, `inFlight` requests at once, polling every
 * `pollMs` as the gateway polls for receipts.
 */
export async function sendPipelined(params: {
  rpcUrl: string
  signed: Hex[]
  sender: Hex
  startNonce: number
  batchSize?: number
  inFlight?: number
  pollMs?: number
  timeoutMs?: number
}): Promise<RawSendResult> {
  const { rpcUrl, signed, sender, startNonce } = params
  const batchSize = params.batchSize ?? 25
  const inFlight = params.inFlight ?? 4
  const rpc = rpcBatcher(rpcUrl)

  const started = performance.now()
  const sendErrors: string[] = []
  const hashes: Hex[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < signed.length) {
        const from = next
        next = Math.min(signed.length, next + batchSize)
        const answers = await rpc.batch(
          signed.slice(from, next).map((tx) => ({ method: 'eth_sendRawTransaction', params: [tx] })),
        )
        answers.forEach((a, i) => {
          if (a.error) sendErrors.push(a.error.message)
          else hashes[from + i] = a.result as Hex
        })
      }
    }),
  )
  const known = hashes.filter(Boolean)
  const { succeeded, failed } = await untilMined(rpc, {
    sender,
    last: startNonce + signed.length,
    hashes: known,
    pollMs: params.pollMs ?? 50,
    batchSize,
    deadline: Date.now() + (params.timeoutMs ?? 120_000),
    who: "the raw sender's",
  })
  return {
    seconds: (performance.now() - started) / 1000,
    succeeded,
    failed: failed + (signed.length - known.length),
    calls: rpc.calls,
    httpRequests: rpc.httpRequests(),
    sendErrors: sendErrors.slice(0, 5),
  }
}

/**
 * Waits, as the pipelined sender does, until `sender`'s transactions up to nonce `lastNonce` - 1 are
 * mined and every one of `hashes` (none: the nonce alone) has its receipt: the end of an execute
 * round whose answers did not wait for mining (the gateway's `Prefer: respond-async`). The node
 * calls it made, by method.
 */
export async function waitUntilMined(params: {
  rpcUrl: string
  sender: Hex
  lastNonce: number
  hashes: Hex[]
  pollMs?: number
  timeoutMs?: number
}): Promise<{ succeeded: number; failed: number; calls: Record<string, number> }> {
  const rpc = rpcBatcher(params.rpcUrl)
  const mined = await untilMined(rpc, {
    sender: params.sender,
    last: params.lastNonce,
    hashes: params.hashes,
    pollMs: params.pollMs ?? 50,
    batchSize: 25,
    deadline: Date.now() + (params.timeoutMs ?? 120_000),
    who: "the gateway's",
  })
  return { ...mined, calls: rpc.calls }
}

/** JSON-RPC batches over fetch, each call counted by method. */
function rpcBatcher(rpcUrl: string) {
  const calls: Record<string, number> = {}
  let httpRequests = 0
  let id = 0
  const batch = async (requests: Array<{ method: string; params: unknown[] }>): Promise<RpcAnswer[]> => {
    for (const r of requests) calls[r.method] = (calls[r.method] ?? 0) + 1
    httpRequests++
    const body = requests.map((r) => ({ jsonrpc: '2.0', id: ++id, method: r.method, params: r.params }))
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body.length === 1 ? body[0] : body),
    })
    const answer = (await res.json()) as RpcAnswer | RpcAnswer[]
    const answers = Array.isArray(answer) ? answer : [answer]
    const byId = new Map(answers.map((a) => [a.id, a]))
    return body.map((b) => byId.get(b.id) ?? { id: b.id, error: { message: 'no answer in the batch' } })
  }
  return { batch, calls, httpRequests: () => httpRequests }
}

/** Mined when the sender's mined nonce reaches `last` (one call a poll, whatever the count), then every receipt read. */
async function untilMined(
  rpc: ReturnType<typeof rpcBatcher>,
  params: {
    sender: Hex
    last: number
    hashes: Hex[]
    pollMs: number
    batchSize: number
    deadline: number
    who: string
  },
): Promise<{ succeeded: number; failed: number }> {
  const { sender, last, pollMs, batchSize, deadline, who } = params
  for (;;) {
    const [count] = await rpc.batch([{ method: 'eth_getTransactionCount', params: [sender, 'latest'] }])
    if (count?.result !== undefined && Number(count.result) >= last) break
    if (Date.now() > deadline)
      throw new Error(`${who} transactions were not mined in time (mined nonce ${Number(count?.result)}, want ${last})`)
    await new Promise((r) => setTimeout(r, pollMs))
  }
  // anvil counts the nonce before the block's receipts can be read: done when every receipt is there.
  let succeeded = 0
  let failed = 0
  let missing = params.hashes
  while (missing.length > 0) {
    const still: Hex[] = []
    for (let i = 0; i < missing.length; i += batchSize * 4) {
      const part = missing.slice(i, i + batchSize * 4)
      const answers = await rpc.batch(part.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })))
      answers.forEach((a, j) => {
        const receipt = a.result as { status: string } | null | undefined
        if (!receipt) still.push(part[j]!)
        else if (receipt.status === '0x1') succeeded++
        else failed++
      })
    }
    missing = still
    if (missing.length === 0) break
    if (Date.now() > deadline) throw new Error(`${missing.length} of ${who} receipts never appeared`)
    await new Promise((r) => setTimeout(r, pollMs))
  }
  return { succeeded, failed }
}

/**
 * The same pre-signed transactions sent as the gateway's clients send executes: `connections`
 * workers, each sending one (eth_sendRawTransaction) and waiting until it is mined before taking the
 * next, as a client of the gateway waits for its answer (the gateway answers once mined). Mined is
 * seen by one poll of the sender's mined nonce every `pollMs`, shared by all workers (the gateway
 * too reads each block once for every execute waiting). What a plain client reaches with the
 * execute phase's number in flight: the most a gateway that answers once mined could reach with it.
 */
export async function sendClosedLoop(params: {
  rpcUrl: string
  signed: Hex[]
  sender: Hex
  startNonce: number
  connections: number
  pollMs?: number
  timeoutMs?: number
}): Promise<RawSendResult> {
  const { rpcUrl, signed, sender, startNonce, connections } = params
  const pollMs = params.pollMs ?? 50
  const deadline = Date.now() + (params.timeoutMs ?? 120_000)
  const calls: Record<string, number> = {}
  let httpRequests = 0
  let id = 0
  // undici's Pool, as the gateway's clients use: Node's fetch costs a client ~1 ms of CPU a request.
  const url = new URL(rpcUrl)
  const pool = new Pool(url.origin, { connections: connections + 1, pipelining: 1 })
  const call = async (method: string, callParams: unknown[]): Promise<RpcAnswer> => {
    calls[method] = (calls[method] ?? 0) + 1
    httpRequests++
    const res = await pool.request({
      path: url.pathname + url.search,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: callParams }),
    })
    return (await res.body.json()) as RpcAnswer
  }
  const started = performance.now()
  const sendErrors: string[] = []
  let mined = startNonce
  let done = false
  const waiting = new Set<() => void>()
  // One poll for every worker waiting.
  const poll = (async () => {
    while (!done) {
      await new Promise((r) => setTimeout(r, pollMs))
      const count = await call('eth_getTransactionCount', [sender, 'latest'])
      if (count.result !== undefined) mined = Number(count.result)
      for (const wake of [...waiting]) wake()
      if (Date.now() > deadline)
        throw new Error(`the raw closed-loop sender's transactions were not mined in time (mined nonce ${mined})`)
    }
  })()
  let next = 0
  let succeeded = 0
  await Promise.all(
    Array.from({ length: Math.min(connections, signed.length) }, async () => {
      while (next < signed.length) {
        const i = next++
        const sent = await call('eth_sendRawTransaction', [signed[i]])
        if (sent.error) {
          sendErrors.push(sent.error.message)
          continue
        }
        while (mined <= startNonce + i)
          await new Promise<void>((resolve) =>
            waiting.add(function wake() {
              waiting.delete(wake)
              resolve()
            }),
          )
        succeeded++
      }
    }),
  )
  done = true
  await poll
  await pool.close()
  return {
    seconds: (performance.now() - started) / 1000,
    succeeded,
    failed: signed.length - succeeded,
    calls,
    httpRequests,
    sendErrors: sendErrors.slice(0, 5),
  }
}
