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
import type { Address, Hex } from 'viem'

/** One transaction as eth_simulateV1 takes it: the sender, an explicit gas limit, its fees. */
export type SimulatedCall = { from: Address; to: Address; data: Hex; gas: Hex; maxFeePerGas: Hex; maxPriorityFeePerGas: Hex }
/** The node's result for one call (undefined: it gave none). */
export type SimulatedResult = { status?: Hex; gasUsed?: Hex; returnData?: Hex } | undefined

export type SimulationBatcher = {
  /** eth_simulateV1 of `call` at the pending state with validation (balance, fees); the node's own error when it refuses. */
  simulate(call: SimulatedCall): Promise<SimulatedResult>
}

type Waiting = { call: SimulatedCall; resolve(result: SimulatedResult): void; reject(err: unknown): void }
type Block = { calls?: SimulatedResult[] }

/** At most this many calls in one simulated block. */
const maxCalls = 64
/** The gas limits of one block's calls add up to at most this: under the block gas limit of most chains. */
const gasBudget = 25_000_000n

export function createSimulationBatcher(request: (args: { method: string; params: unknown[] }) => Promise<unknown>): SimulationBatcher {
  const queue: Waiting[] = []
  let busy = false
  let scheduled = false

  const ask = (calls: SimulatedCall[]) => request({ method: 'eth_simulateV1', params: [{ blockStateCalls: [{ calls }], validation: true }, 'pending'] }) as Promise<Block[] | undefined>

  // Calls asked in the same event-loop turn go together; while one batch is out, the next gathers.
  function schedule(): void {
    if (busy || scheduled || queue.length === 0) return
    scheduled = true
    setImmediate(flush)
  }

  async function flush(): Promise<void> {
    scheduled = false
    if (busy || queue.length === 0) return
    busy = true
    try {
      await run(take())
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
    simulate: (call) =>
      new Promise<SimulatedResult>((resolve, reject) => {
        queue.push({ call, resolve, reject })
        schedule()
      }),
  }
}
