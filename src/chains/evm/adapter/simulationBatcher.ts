// Folds the executions that concurrent executes simulate into one eth_simulateV1 at the pending
// state. A node like anvil builds its pending block (every transaction waiting in its pool, run
// again) for each call at `pending`: ~160 µs of its CPU per waiting transaction, per call
// (docs/performance.md). One call for many simulations pays that once.
//
// The calls of one batch run in one simulated block, in the order they were asked for, so each
// sees the state the earlier ones left: as a simulation at `pending` sees the executions already
// sent and waiting in the pool, and as they will be mined (each caller sends after its result,
// in the same order). One simulation is in flight at a time; what is asked meanwhile waits for
// the next. A batch that the node refuses as a whole (one relayer short of funds, an unknown
// method, a block over its gas limit) is asked again call by call, so each caller gets its own
// answer or error.
//
// Under load (the last batch held several calls, or `loaded()` says many of the gateway's own
// transactions wait in the node's pool, each run again by every pending build) the calls gather:
// a batch goes when a new block is seen (`blockSeen`: the pool just lost what was mined, so the
// build is cheapest), `gatherMs` (EVM_SIMULATION_GATHER_MS) after the previous batch was sent, or
// when a full batch waits, whichever comes first. Otherwise, and after a quiet spell (the last
// batch sent longer ago than `gatherMs`), a call goes at once: a lone execute waits for nothing,
// and one under load at most `gatherMs`.
import { type Address, type Hex, numberToHex } from 'viem'

/** One transaction as eth_simulateV1 takes it: the sender, an explicit gas limit, its fees. */
export type SimulatedCall = { from: Address; to: Address; data: Hex; gas: Hex; maxFeePerGas: Hex; maxPriorityFeePerGas: Hex }
/** The node's result for one call (undefined: it gave none). */
export type SimulatedResult = { status?: Hex; gasUsed?: Hex; returnData?: Hex } | undefined

export type SimulationBatcher = {
  /** eth_simulateV1 of `call` at the pending state with validation (balance, fees); the node's own error when it refuses. */
  simulate(call: SimulatedCall): Promise<SimulatedResult>
  /** A new block was seen: what waits for the window goes now. */
  blockSeen(): void
}

type Waiting = { call: SimulatedCall; resolve(result: SimulatedResult): void; reject(err: unknown): void }
type Block = { calls?: SimulatedResult[] }

/** A batch of this many calls or more means executes arrive together: the next one gathers. */
const concurrentCalls = 4
/** At most this many calls in one simulated block. */
const maxCalls = 256
/** Up to this much gas of limits, a batch's block keeps the pending block's own gas limit (under most chains' 30 M). */
const blockGas = 25_000_000n
/**
 * The gas limits of one batch add up to at most this. Over `blockGas`, its simulated block is given
 * that much more gas (`blockOverrides.gasLimit`, in eth_simulateV1's spec; tried on anvil only): calls that would
 * be mined over two blocks are simulated in one, the only difference their block's gas limit. At
 * 64 calls or 25 M a batch was full in the middle of a block interval under the execute bench.
 */
const gasBudget = 100_000_000n

export function createSimulationBatcher(
  request: (args: { method: string; params: unknown[] }) => Promise<unknown>,
  { gatherMs = 0, loaded = () => true }: { gatherMs?: number | undefined; loaded?: () => boolean } = {},
): SimulationBatcher {
  const queue: Waiting[] = []
  let busy = false
  let scheduled = false
  /** When the last batch was sent (performance.now()); -Infinity: never. */
  let lastSent = Number.NEGATIVE_INFINITY
  /** How many calls the last batch held: executes arriving together (a lone client's come one by one). */
  let lastSize = 0
  /** The gas limits of the calls waiting, added up. */
  let queuedGas = 0n
  /** The wait for the window to close, while one is set. */
  let timer: NodeJS.Timeout | undefined

  const ask = (calls: SimulatedCall[]) => {
    const gas = calls.reduce((sum, c) => sum + BigInt(c.gas), 0n)
    const block = gas > blockGas ? { calls, blockOverrides: { gasLimit: numberToHex(gas) } } : { calls }
    return request({ method: 'eth_simulateV1', params: [{ blockStateCalls: [block], validation: true }, 'pending'] }) as Promise<Block[] | undefined>
  }

  // Calls asked in the same event-loop turn go together; while one batch is out, the next gathers,
  // and under load until a block is seen or `gatherMs` after the last batch was sent, unless full.
  function schedule(): void {
    if (busy || queue.length === 0) return
    // A full batch: the most calls, or the gas budget of one block (what is over goes in the next).
    const full = queue.length >= maxCalls || queuedGas >= gasBudget
    if (timer && full) {
      clearTimeout(timer)
      timer = undefined
      scheduled = false
    }
    if (scheduled) return
    scheduled = true
    const underLoad = lastSize >= concurrentCalls || loaded()
    const wait = full || !underLoad ? 0 : lastSent + gatherMs - performance.now()
    if (wait > 0) timer = setTimeout(flush, wait)
    else setImmediate(flush)
  }

  async function flush(): Promise<void> {
    scheduled = false
    timer = undefined
    if (busy || queue.length === 0) return
    busy = true
    lastSent = performance.now()
    const batch = take()
    lastSize = batch.length
    try {
      await run(batch)
    } finally {
      busy = false
      schedule()
    }
  }

  function take(): Waiting[] {
    const batch: Waiting[] = []
    let gas = 0n
    while (queue.length > 0 && batch.length < maxCalls) {
      const next = BigInt(queue[0]!.call.gas)
      if (batch.length > 0 && gas + next > gasBudget) break
      gas += next
      batch.push(queue.shift()!)
      queuedGas -= next
    }
    return batch
  }

  async function run(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) return alone(batch[0]!)
    let results: SimulatedResult[] | undefined
    try {
      results = (await ask(batch.map((w) => w.call)))?.[0]?.calls
    } catch {
      results = undefined
    }
    if (!results || results.length !== batch.length) {
      await Promise.all(batch.map(alone))
      return
    }
    batch.forEach((w, i) => w.resolve(results[i]))
  }

  async function alone(w: Waiting): Promise<void> {
    try {
      w.resolve((await ask([w.call]))?.[0]?.calls?.[0])
    } catch (err) {
      w.reject(err)
    }
  }

  return {
    blockSeen() {
      if (!timer) return
      clearTimeout(timer)
      timer = undefined
      setImmediate(flush)
    },
    simulate: (call) =>
      new Promise<SimulatedResult>((resolve, reject) => {
        queue.push({ call, resolve, reject })
        queuedGas += BigInt(call.gas)
        schedule()
      }),
  }
}
