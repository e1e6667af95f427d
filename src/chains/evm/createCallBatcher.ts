// Folds the eth_calls that requests make in one event-loop turn into one Multicall3 `aggregate3`
// call: the node then runs one call (one JSON-RPC request, one EVM context) for many requests
// instead of one per request. Multicall3 is looked for at its canonical address; where it is
// absent (or stops answering like Multicall3), each call goes out alone, as before.
import type { Logger } from 'pino'
import type { Address, Hex } from 'viem'
import { isTransportError } from './relayer/createRelayer.ts'
import { decodeAggregate3Result, encodeAggregate3 } from './aggregate3Codec.ts'

/** Where Multicall3 lives on nearly every EVM chain (deployed with the same keyless transaction). */
export const multicall3Address: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

export type CallBatcher = {
  /**
   * eth_call of `data` on `to` at the latest block, or at the block whose hash is `at` (EIP-1898);
   * its return data, or the node's own error.
   */
  call(call: { to: Address; data: Hex; at?: Hex | undefined }): Promise<Hex>
  /** Whether calls are folded into Multicall3 now (undefined: not known yet). */
  folding(): boolean | undefined
}

type Pending = { to: Address; data: Hex; at: Hex | undefined; resolve(v: Hex): void; reject(e: unknown): void }

/** How long a chain found without Multicall3 is asked again (a node may be replaced, a devnet reset). */
const recheckMs = 60_000

export function createCallBatcher({
  request,
  logger,
  enabled = true,
  maxCalls = 64,
  spread = 4,
  foldAt = 8,
}: {
  request(args: { method: string; params?: unknown; alone?: boolean }): Promise<unknown>
  logger: Logger
  /** False: never fold (each call alone). */
  enabled?: boolean
  /** The most calls one aggregate3 carries (the node caps an eth_call's gas). */
  maxCalls?: number
  /**
   * Into how many aggregates (at most) one turn's calls are split: the node runs one call's inner
   * calls one after another, and would leave its other cores idle while requests wait.
   */
  spread?: number
  /**
   * This many reads waiting are folded and sent at once, without waiting for the end of the turn:
   * the node works on them while the gateway still reads the turn's other requests.
   */
  foldAt?: number
}): CallBatcher {
  let present: boolean | undefined = enabled ? undefined : false
  let checkedAt = 0
  let checking: Promise<void> | undefined
  let queue: Pending[] = []
  let scheduled = false

  const block = (at: Hex | undefined) => (at === undefined ? 'latest' : { blockHash: at })
  const single = ({ to, data, at }: Pending) => request({ method: 'eth_call', params: [{ to, data }, block(at)] }) as Promise<Hex>

  function detect() {
    if (!enabled || checking || present === true) return
    if (present === false && Date.now() - checkedAt < recheckMs) return
    checking = (async () => {
      try {
        const code = (await request({ method: 'eth_getCode', params: [multicall3Address, 'latest'] })) as Hex
        const now = typeof code === 'string' && code.length > 2
        if (now !== present) logger.info({ multicall3: multicall3Address, folding: now }, now ? 'Multicall3 found: concurrent validator reads are folded into one call' : 'no Multicall3 on this chain: each validator read is its own call')
        present = now
      } catch {
        // Unknown until the node answers; calls go out alone meanwhile.
      } finally {
        checkedAt = Date.now()
        checking = undefined
      }
    })()
  }

  function flush() {
    scheduled = false
    const calls = queue
    queue = []
    // The first reads wait for the answer to whether Multicall3 is there (one round trip, once).
    if (present === undefined && checking) void checking.then(() => dispatch(calls))
    else dispatch(calls)
  }

  function dispatch(calls: Pending[]) {
    for (const same of byBlock(calls)) {
      const size = Math.min(maxCalls, Math.max(2, Math.ceil(same.length / spread)))
      for (let i = 0; i < same.length; i += size) fold(same.slice(i, i + size))
    }
  }

  /** Calls on one block: in one aggregate3 where there is Multicall3 and more than one call. */
  function fold(group: Pending[]) {
    if (group.length === 1 || !present) for (const c of group) alone(c)
    else void aggregate(group)
  }

  function alone(c: Pending) {
    single(c).then(c.resolve, c.reject)
  }

  async function aggregate(group: Pending[]) {
    const data = encodeAggregate3(group.map((c) => ({ target: c.to, callData: c.data })))
    let results: readonly { success: boolean; returnData: Hex }[]
    try {
      const returned = (await request({ method: 'eth_call', params: [{ to: multicall3Address, data }, block(group[0]!.at)], alone: true })) as Hex
      results = decodeAggregate3Result(returned)
      if (results.length !== group.length) throw new Error(`aggregate3 answered ${results.length} results for ${group.length} calls`)
    } catch (err) {
      // An unreachable node fails every call the same way, at once: no second wait for each.
      if (isTransportError(err)) {
        for (const c of group) c.reject(err)
        return
      }
      // Anything else (no Multicall3 here any more, a gas cap, an answer that does not decode):
      // each call alone, and Multicall3 looked for again.
      logger.warn({ err, calls: group.length }, 'a folded read failed; sending its calls one by one')
      present = undefined
      checkedAt = 0
      detect()
      for (const c of group) alone(c)
      return
    }
    results.forEach((r, i) => {
      const c = group[i]!
      // A reverted call answers only its own request, with the node's own error for it.
      if (r.success) c.resolve(r.returnData)
      else alone(c)
    })
  }

  return {
    call({ to, data, at }) {
      detect()
      return new Promise<Hex>((resolve, reject) => {
        queue.push({ to, data, at, resolve, reject })
        if (present === true && queue.length >= foldAt) {
          const full = queue
          queue = []
          for (const same of byBlock(full)) fold(same)
          return
        }
        if (!scheduled) {
          scheduled = true
          // The same turn as the JSON-RPC client's batching: reads made by requests parsed in one
          // I/O phase travel together.
          setImmediate(flush)
        }
      })
    },
    folding: () => present,
  }
}

/** Calls grouped by the block they read (most often all at the latest). */
function byBlock(calls: Pending[]): Pending[][] {
  if (calls.every((c) => c.at === calls[0]!.at)) return [calls]
  const groups = new Map<Hex | undefined, Pending[]>()
  for (const c of calls) {
    const group = groups.get(c.at)
    if (group) group.push(c)
    else groups.set(c.at, [c])
  }
  return [...groups.values()]
}
