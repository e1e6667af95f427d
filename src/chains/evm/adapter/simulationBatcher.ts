// Folds the executions that concurrent executes simulate into one eth_simulateV1, run on the
// latest block after the gateway's own transactions that the node may still mine.
//
// Where a transaction waits in the node's pool, the chain runs it before an execution sent now.
// `own()` gives every such transaction of the gateway's relayer keys (their signed bytes, kept by
// each key's outbox until a receipt at their nonce: relayer/outbox.ts), each key's in nonce
// order. The latest block is read, and each key's count of mined nonces on it (under load, as each
// new block is seen: they stand for the batches of most of the chain's spacing after; else by the
// batch itself): what is below the count is not replayed (mined, or the nonce used by another
// transaction: anvil does not check a simulated call's nonce), and the rest must start at the
// count and leave no nonce out. They run first, in the simulated block that follows that block
// (its number and a time no earlier than now, as the next block will have), then the calls asked
// for, whose results alone are answered.
// A simulation never leaves out a pending transaction of the gateway's: while `own()` cannot say
// them all (after a start, a resync, a lease taken over, before a nonce read finds none it lacks;
// or while another instance holds one of the keys), when a key's count leaves a nonce below the
// kept ones, and when the node refuses the replay, the batch runs at the node's pending block
// instead, which holds what is in its pool.
// A node like anvil builds that pending block (every transaction waiting in its pool, run again)
// for each call at `pending` (docs/performance.md).
//
// The calls of one batch run in one simulated block, in the order they were asked for (the paid
// ones after the rest: their executions are sent only once their settlements are mined), so each
// sees the state the earlier ones left: as the pool's transactions before them, and as they will
// be mined; a confirmation (the same call again at the limit it will be sent with) after all of
// them. Each caller gets its call's turn (executionOrder.ts): it is sent on this result only if
// every call before it was sent and nothing else of the gateway's was signed since the view was
// taken; else it is simulated again. The view is taken once every execution that claimed its
// signature is in it (signed, for the replay; its broadcast answered, for the pending block), or
// after `viewWaitMs`. A call may come with the
// transaction that the chain will run just before it (a paid execute's x402 settlement): the two
// go together, in that order, in the same block. One simulation is in flight at a time; what is
// asked meanwhile waits for the next. A batch that the node refuses as a whole (one relayer short
// of funds, an unknown method, a block over its gas limit) is asked again call by call, so each
// caller gets its own answer or error.
//
// Under load (the last batch held several calls, or, at the pending block, `pending()` says many of
// the gateway's own transactions wait in the node's pool) the calls gather, and no call waits
// longer than `gatherMs` (EVM_SIMULATION_GATHER_MS) from when it was asked, nor once a batch is
// full. Within that:
// - at the pending block only: while many of the gateway's own transactions wait in the pool (each
//   pending build runs them all again) and a batch went within the window, the batch waits for a
//   new block to take them (`blockSeen` looks again). With the pool replayed on `latest` there is
//   no build to spare, so nothing waits for a block, but for the next case;
// - with the pool replayed on `latest`: while a batch went within the window and the replay of the
//   gateway's unmined transactions would be large and many times the calls waiting (the stragglers
//   of a wave), they wait for the block that mines it, as above; so do calls behind a large replay
//   when the next block is due within half the chain's spacing (they could not reach the pool
//   before it: it mines what they would replay);
// - otherwise it goes when the calls stop coming for `pauseMs`: executes that arrive together (the
//   answers to one block, each followed by the client's next) go in one batch, before any of
//   them sends; but when they stop coming with the next block due before the first of their
//   transactions could reach the pool (`toPoolMs` and `toPoolPerCallMs` a call, scaled by what the
//   batches measured: `pooled`), on `latest` or at the pending block, while some of the gateway's
//   transactions are unmined, they wait for that block (until it is `dueLateMs` late): what it mines
//   of the gateway's is not replayed, and they lose no block.
// A lone execute (the last batch held fewer than 4 calls, and few of the gateway's transactions
// are in the pool) goes at once.
import { type Address, type Hex, numberToHex } from 'viem'
import type { UnminedCall } from '../relayer/createRelayer.ts'
import { isTransportError } from '../relayer/isTransportError.ts'
import type { BundleChunk } from '../relayer/sendBundled.ts'
import { createExecutionOrder, type ExecutionOrder, type SimulationTurn } from './executionOrder.ts'
import { byKey, inBundles } from './simulatedBundles.ts'
import type { SimulatedCall, SimulatedResult } from './simulatedCall.ts'

export type { SimulatedCall, SimulatedResult } from './simulatedCall.ts'

/** A transaction of the gateway's the node may still mine, as it was signed: run before the calls asked for. */
export type ReplayedCall = UnminedCall
/** One relayer key's transactions the node may still mine, in nonce order; `next`: the nonce its next transaction takes, when known (those below it are mined or kept). */
export type OwnUnmined = { address: Address; calls: readonly ReplayedCall[]; next?: number | undefined }
/**
 * The node's result for a call and, when one was given, for the call run just before it; `turn`:
 * the call's place among what was simulated before it (sent on this result only if it claims).
 */
export type SimulatedResults = { result: SimulatedResult; precededBy?: SimulatedResult; turn: SimulationTurn }

export type SimulationBatcher = {
  /**
   * eth_simulateV1 of `call` with validation (balance, fees) after the gateway's transactions the
   * node may still mine (on `latest` after `own()`, else at the pending block), after `precededBy`
   * when given (in the same block, in that order); the node's own error when it refuses.
   * `confirming`: the call again at another gas limit, its place in the order kept from its first
   * simulation: it runs after the rest of its batch, and its own turn is not sent on.
   */
  simulate(
    call: SimulatedCall,
    precededBy?: SimulatedCall,
    options?: { confirming?: boolean | undefined },
  ): Promise<SimulatedResults>
  /**
   * A new block was seen (`spacingMs`: the chain's spacing between blocks, when known; `dueInMs`: in
   * how long the next is due, a spacing unless told): what waits for the window goes now, and the
   * head and each key's count on it are read for the next batch.
   */
  blockSeen(spacingMs?: number, dueInMs?: number): void
  /**
   * A transaction simulated in the batch asked of the node at `askedAt` (its turn's `askedAt`) was
   * taken by the node's pool (its broadcast answered): the first of each batch measures how long a
   * batch takes from when it goes to the pool, which scales the model of that time.
   */
  pooled(askedAt: number): void
}

/** `calls`: the call asked for, last, after what must run before it. */
type Waiting = {
  calls: SimulatedCall[]
  /** A confirmation of a call simulated before (simulate's `confirming`). */
  confirming: boolean
  at: number
  resolve(results: SimulatedResult[], turn: SimulationTurn): void
  reject(err: unknown): void
}
const gasOf = (calls: SimulatedCall[]) => calls.reduce((sum, c) => sum + BigInt(c.gas), 0n)
type Block = { calls?: SimulatedResult[] }
type Header = { number: Hex; timestamp: Hex }

/** A batch of this many calls or more means executes arrive together: the next one gathers. */
const concurrentCalls = 4
/** At least this many of the gateway's transactions waiting in the node's pool: a pending build now would run them all again. */
const crowdedPool = 8
/**
 * Executes arriving together come well under a millisecond apart (the gateway spends ~0.5 ms of
 * CPU bringing one from its request to its simulation): a pause this long means they have all come.
 */
const pauseMs = 5
/**
 * A replay of at least this many of the gateway's unmined transactions, and more than `replayShare`
 * times the calls waiting, is worth a wait for the block that mines them (within the window from
 * when the first call was asked): the stragglers of a wave (a call or a few, asked just after their
 * wave's batch went) would each run ~200 transactions again at the node, ~30 ms of its time for
 * one execute (docs/performance.md). A replay of a few transactions, or of fewer than the calls
 * asked times `replayShare`, is run: waiting would delay many executes by a block.
 */
const replayWorthWaiting = 64
const replayShare = 4
const replayOf = (kept: readonly OwnUnmined[]) => kept.reduce((n, key) => n + key.calls.length, 0)
const replayOutweighs = (kept: readonly OwnUnmined[] | undefined, calls: number) => {
  if (kept === undefined) return false
  const replay = replayOf(kept)
  return replay >= replayWorthWaiting && replay > replayShare * calls
}
/**
 * A batch asked with the next block due within this share of the chain's spacing cannot reach the
 * node's pool before that block: its simulation, signatures and broadcast take ~70–120 ms of the
 * execute bench's 200 ms (docs/performance.md, sixteenth session). Behind a replay of 64 or more it
 * waits for that block, which mines what it would replay, instead of running them all again.
 */
const dueShare = 0.5
/**
 * A batch's time from when it goes to its first transaction in the node's pool (its simulation,
 * the signatures, the journal's write and fsync) is modelled as this much, and this much more a
 * call: ~110 ms for a wave of 200, as measured on a slow day of the execute bench's machine
 * (docs/performance.md, thirtieth session: ~120 ms). Executes arriving together, asked with the
 * next block due within it, could put none of their transactions in before that block: waiting for
 * it costs them no block, and what it mines of the gateway's (the other part of a wave split over
 * two blocks) is then not replayed before them. The model is scaled by what the batches measure
 * (`pooled`): on a faster day the same wave took ~65 ms, and waits the model alone set lost the
 * block they were meant to keep (thirty-first session).
 */
const toPoolMs = 10
const toPoolPerCallMs = 0.5
/** Each batch's measured time to the pool moves the model's scale this share of the way (the rest is the batches before). */
const toPoolLearning = 0.25
/** A measure is taken as at most this many times the model, and at least its inverse (a stall, a node that answered a lone call at once). */
const toPoolScaleBound = 4
/** How many of the last batches are remembered until their first transaction reaches the pool. */
const batchesRemembered = 8
/** A block due and not seen this long after: the batch waiting for it goes. */
const dueLateMs = 5
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
/** The balance a preceding call's sender is simulated with (about 7.9e28 wei): enough for any gas at any fee. */
const settlerBalance = '0xffffffffffffffffffffffff'
/**
 * How long a batch waits, at most, for the executions that claimed their signature to be in its
 * view (signed; answered by the node for the pending block): a local key signs within the turn,
 * a broadcast is one round trip. Past it the view leaves them out, and the batch's calls are
 * simulated again before they are sent.
 */
const viewWaitMs = 250
/**
 * The head read as a block was seen stands for `latest` this share of the chain's spacing after
 * the read began: the next block is not due before. A batch of a wave (its requests taken up over the
 * ~100 ms after their answers, docs/performance.md) then asks the node for the simulation alone.
 */
const headStandsShare = 0.75
/** The head, and each key's count of mined nonces on it (by lower-case address), read when a block was seen. */
type HeadView = { head: Header; counts: Map<string, number> }

export type SimulationBatcherOptions = {
  gatherMs?: number | undefined
  /** How many of the gateway's transactions are in (or about to enter) the node's pool. */
  pending?: () => number
  /** Every transaction of the gateway's the node may still mine, by key; undefined when some may be unknown (then: the pending block). */
  own?: () => readonly OwnUnmined[] | undefined
  /** A key's count of mined nonces on the block simulated on: what was kept below it is not replayed again. */
  onMinedBelow?: (address: Address, count: number) => void
  /** A key's count left a nonce below those kept that nobody has the bytes of (the batch ran at the pending block). */
  onLacking?: (address: Address) => void
  /** The node refused a batch with the replay (the batch ran at the pending block instead). */
  onReplayRefused?: (err: unknown) => void
  /** A simulation answered: the calls asked for, and the gateway's unmined transactions replayed before them. */
  onSimulated?: (asked: number, replayed: number) => void
  /** The order the chain's executions are signed in (one per chain: every execution claims there). */
  order?: ExecutionOrder
  /**
   * Executions sent in bundles (IntentBundler at `bundler`; relayer/sendBundled.ts): a key's calls
   * to `executor` in a batch are simulated as the bundles they will be sent as (simulatedBundles.ts),
   * each call's turn naming its bundle (`chunk`). Absent: each call is a transaction of its own.
   */
  bundle?: { bundler: Address; executor: Address } | undefined
}

export function createSimulationBatcher(
  request: (args: { method: string; params: unknown[] }) => Promise<unknown>,
  {
    gatherMs = 0,
    pending = () => 0,
    own = () => undefined,
    onMinedBelow,
    onLacking,
    onReplayRefused,
    onSimulated,
    order = createExecutionOrder(),
    bundle,
  }: SimulationBatcherOptions = {},
): SimulationBatcher {
  const queue: Waiting[] = []
  /** The bundle each call of the last batches was simulated in (`ask`), which its turn names (`answer`). */
  const chunks = new WeakMap<Waiting, BundleChunk>()
  let busy = false
  /** A batch about to go (set for the next turn of the event loop). */
  let going: NodeJS.Immediate | undefined
  /** How many calls the last batch held: executes arriving together (a lone client's come one by one). */
  let lastSize = 0
  /** When the last batch was sent (performance.now()). */
  let lastSent = Number.NEGATIVE_INFINITY
  /** When the last call was asked (performance.now()). */
  let lastAsked = Number.NEGATIVE_INFINITY
  /** The gas limits of the calls waiting, added up. */
  let queuedGas = 0n
  /** The wait for the next look, while one is set. */
  let timer: NodeJS.Timeout | undefined
  /** The latest block's number and time. */
  const readHead = async () => (await request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as Header
  /** A key's count of mined nonces on `block`. */
  const readCount = async (address: Address, block: Hex) =>
    Number(BigInt((await request({ method: 'eth_getTransactionCount', params: [address, block] })) as Hex))
  /** The head read when the last block was seen, and until when it stands for `latest` (performance.now()). */
  let atBlock: { view: Promise<HeadView | undefined>; until: number } | undefined
  /** When the next block is due (performance.now()), and the chain's spacing, once a block was seen on a chain whose pace is known. */
  let nextBlock: { due: number; spacingMs: number } | undefined
  /** The measured time to the pool against the model (`toPoolMs`, `toPoolPerCallMs`): 1 until a batch measured it. */
  let toPoolScale = 1
  /** The last batches asked of the node (`askedAt`), when they went and how many calls they held, until their first transaction reached the pool. */
  const unpooled: { askedAt: number; wentAt: number; calls: number }[] = []
  /** How long a batch of `calls` takes from when it goes to its first transaction in the node's pool, in ms. */
  const toPool = (calls: number) => toPoolScale * (toPoolMs + toPoolPerCallMs * calls)

  /**
   * The head and each key's count on it, read now (a block was just seen) under load: the last
   * batch held executes that arrived together, and the answers to this block bring the next. None on
   * a chain whose pace is not known yet, nor while the pool is not.
   */
  function readAtBlock(spacingMs: number | undefined): void {
    atBlock = undefined
    if (spacingMs === undefined || !(spacingMs > 0) || lastSize < concurrentCalls) return
    const keys = own()
    if (keys === undefined) return
    const until = performance.now() + headStandsShare * spacingMs
    const view = (async (): Promise<HeadView> => {
      const head = await readHead()
      const counts = new Map<string, number>()
      await Promise.all(
        keys
          .filter((key) => key.calls.length > 0 || key.next !== undefined)
          .map(async ({ address }) => counts.set(address.toLowerCase(), await readCount(address, head.number))),
      )
      return { head, counts }
    })().catch(() => undefined) // the batch reads them itself
    atBlock = { view, until }
  }

  /**
   * One eth_simulateV1 of the batch's calls; with `keys`, on the latest block after those keys'
   * transactions not mined on it (their results are not answered), else at the pending block.
   * Throws when a key's count leaves out a nonce no one has the bytes of.
   */
  const ask = async (batch: Waiting[], keys?: readonly OwnUnmined[]): Promise<SimulatedResult[] | undefined> => {
    let head: Header | undefined
    let replay: ReplayedCall[] | undefined
    if (keys) {
      const read = atBlock && performance.now() < atBlock.until ? await atBlock.view : undefined
      const replayOn = async (view?: HeadView) => {
        head = view?.head ?? (await readHead())
        return Promise.all(keys.map((key) => unminedAt(key, head!.number, view?.counts)))
      }
      let left = await replayOn(read)
      // What the block read at its sight said is no longer so (its receipts took a kept transaction
      // since, before the next block's read): the head and counts are read again.
      if (read && left.some((l) => typeof l === 'number')) left = await replayOn()
      replay = []
      for (const [i, { address }] of keys.entries()) {
        const kept = left[i]!
        if (typeof kept !== 'number') {
          replay.push(...kept)
          continue
        }
        onLacking?.(address)
        throw new Error(
          `relayer ${address}: the node's count of mined nonces (${kept}) leaves a nonce of its pool this instance has no bytes of`,
        )
      }
    }
    const singles = batch.flatMap((w) => w.calls).map(({ toCode: _code, ...call }) => call)
    // In bundles: each run of a key's calls to the executor as the one transaction it will be sent as.
    const bundled = bundle && inBundles(batch, bundle)
    const asked = bundled ? bundled.calls : singles
    const calls = replay ? [...replay, ...asked] : asked
    const gas = gasOf(calls)
    // The sender of a preceding call (the facilitator, or a stand-in for a remote one) is given the
    // balance to pay for it: what is judged is the execution after the settlement, not who pays the settlement's gas.
    const funded = batch.flatMap((w) => (w.calls.length > 1 ? [w.calls[0]!.from] : []))
    // Account mode, not delegated yet: the sender runs with the code its authorization will give it.
    const overrides: Record<string, { balance?: string; code?: Hex }> = Object.fromEntries(
      batch.flatMap((w) => w.calls.flatMap((c) => (c.toCode ? [[c.to, { code: c.toCode }]] : []))),
    )
    for (const from of funded) overrides[from] = { ...overrides[from], balance: settlerBalance }
    const stateOverrides = Object.keys(overrides).length > 0 ? overrides : undefined
    const blockOverrides: { gasLimit?: Hex; number?: Hex; time?: Hex } =
      gas > blockGas ? { gasLimit: numberToHex(gas) } : {}
    let base: Hex | 'pending' = 'pending'
    if (head) {
      // The block the chain builds next: after `latest` (anvil 1.7 runs a simulation on `latest` in
      // that block's own number, time and base fee), at a time no earlier than now.
      base = head.number
      blockOverrides.number = numberToHex(BigInt(head.number) + 1n)
      blockOverrides.time = numberToHex(Math.max(Number(BigInt(head.timestamp)) + 1, Math.floor(Date.now() / 1000)))
    }
    const block = {
      calls,
      ...(Object.keys(blockOverrides).length > 0 ? { blockOverrides } : {}),
      ...(stateOverrides ? { stateOverrides } : {}),
    }
    const blocks = (await request({
      method: 'eth_simulateV1',
      params: [{ blockStateCalls: [block], validation: true }, base],
    })) as Block[] | undefined
    const results = blocks?.[0]?.calls
    if (results !== undefined) onSimulated?.(singles.length, replay?.length ?? 0)
    if (results === undefined) return undefined
    const own = replay ? (results.length === calls.length ? results.slice(replay.length) : undefined) : results
    if (!bundled || own === undefined) return own
    const each = bundled.each(own)
    if (each === undefined) return undefined
    for (const [w, chunk] of bundled.chunks) chunks.set(w, chunk)
    return each
  }

  /**
   * A key's transactions not mined on `block` (its count of mined nonces there, asked unless
   * `counts` has it): they must be every nonce from the count up to the key's next one; else (a
   * reorg put one back, a nonce no one here has the bytes of) the count is answered instead. A key
   * with nothing kept and no next nonce known is not asked.
   */
  async function unminedAt(
    { address, calls, next }: OwnUnmined,
    block: Hex,
    counts?: ReadonlyMap<string, number>,
  ): Promise<readonly ReplayedCall[] | number> {
    if (calls.length === 0 && next === undefined) return calls
    const count = counts?.get(address.toLowerCase()) ?? (await readCount(address, block))
    onMinedBelow?.(address, count)
    const left = calls.filter((c) => Number(BigInt(c.nonce)) >= count)
    const gap =
      left.some((c, i) => Number(BigInt(c.nonce)) !== count + i) || (next !== undefined && count + left.length < next)
    return gap ? count : left
  }

  /** In how many ms the next block is due, when that is within `withinMs` (not overdue). */
  function dueWithin(now: number, withinMs: number): number | undefined {
    if (nextBlock === undefined) return undefined
    const dueIn = nextBlock.due - now
    return dueIn > 0 && dueIn < withinMs ? dueIn : undefined
  }

  /** Whether the next block is due within `dueShare` of the spacing (not overdue). */
  const dueSoon = (now: number) =>
    nextBlock !== undefined && dueWithin(now, dueShare * nextBlock.spacingMs) !== undefined

  /** How long the calls waiting may still gather, in ms (0 or less: the batch goes now). */
  function waitMs(now: number): number {
    if (queue.length >= maxCalls || queuedGas >= gasBudget) return 0
    const latest = queue[0]!.at + gatherMs - now
    const inPool = pending()
    // Executes that arrived together and stopped coming, with the next block due before the first of
    // them could reach the pool and something of the gateway's for it to mine: they go when that block
    // is seen (blockSeen looks again), within the window. With nothing of the gateway's unmined the
    // block spares them no replay, and nothing reads the head for it (no receipt is waited for): the
    // wait ran to its due time, past the block (thirty-second session).
    if (inPool > 0 && queue.length >= concurrentCalls && now - lastAsked >= pauseMs) {
      const dueIn = dueWithin(now, toPool(queue.length))
      if (dueIn !== undefined) return Math.min(latest, dueIn + dueLateMs)
    }
    const recent = now - lastSent < gatherMs
    // The gateway's unmined transactions are listed (a copy of each key's) only when several wait in the pool.
    const kept = inPool >= crowdedPool ? own() : undefined
    // A few calls behind a batch just sent: its replay would cost the node many times their own
    // work, and the block that mines it is near (after it, nothing of it is replayed).
    if (recent && inPool >= replayWorthWaiting && replayOutweighs(kept, queue.length)) return latest
    // A batch behind a wave just sent, with the next block due before it could reach the pool: that
    // block mines the wave, and the batch replays none of it.
    if (recent && kept !== undefined && dueSoon(now) && replayOf(kept) >= replayWorthWaiting) return latest
    // With the pool replayed on `latest` nothing is built per call: no block to wait for.
    const crowded = inPool >= crowdedPool && kept === undefined
    if (lastSize < concurrentCalls && !crowded) return 0
    // The last batch's transactions crowd the pool: the next block takes them. Transactions older
    // than the window (stuck, or a slow chain's) are not waited out.
    if (crowded && recent) return latest
    return Math.min(latest, lastAsked + pauseMs - now)
  }

  // Looked at again on each call asked, each block seen, each batch answered, and when a wait ends.
  function schedule(): void {
    if (busy || queue.length === 0 || going) return
    if (timer) {
      clearTimeout(timer)
      timer = undefined
    }
    const wait = waitMs(performance.now())
    if (wait > 0) timer = setTimeout(look, wait)
    else going = setImmediate(flush)
  }

  function look(): void {
    timer = undefined
    schedule()
  }

  async function flush(): Promise<void> {
    going = undefined
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
      const next = gasOf(queue[0]!.calls)
      if (batch.length > 0 && gas + next > gasBudget) break
      gas += next
      batch.push(queue.shift()!)
      queuedGas -= next
    }
    // A paid execute is sent once its settlement is mined, after the rest of its batch: simulated
    // after them. A confirmation goes last: no call's result may depend on it.
    const placed = batch.filter((w) => !w.confirming)
    const singles = placed.filter((w) => w.calls.length === 1)
    return [
      // In bundles, each key's calls one after another (the order of their turns is the order they run in).
      ...(bundle ? byKey(singles) : singles),
      ...placed.filter((w) => w.calls.length > 1),
      ...batch.filter((w) => w.confirming),
    ]
  }

  async function run(batch: Waiting[]): Promise<void> {
    const wentAt = lastSent
    // The view: every execution that claimed its signature is in what is replayed (or, below, in the node's pool).
    if (own() !== undefined) await order.view('signed', viewWaitMs)
    const replay = own()
    if (replay !== undefined) {
      const seen = order.seen('signed')
      // Refused with the replay (a node that takes none of it, a replayed transaction it finds
      // invalid): the pending block, which answers each caller's own error too.
      let unreachable: unknown
      const askedAt = asking(wentAt, batch.length)
      const results = await ask(batch, replay).catch((err: unknown) => {
        // No answer at all (a hung or stopped node): the pending block would only wait as long again.
        if (isTransportError(err)) unreachable = err
        else onReplayRefused?.(err)
        return undefined
      })
      if (unreachable !== undefined) {
        for (const w of batch) w.reject(unreachable)
        return
      }
      if (results && answer(batch, results, seen, askedAt)) return
    }
    const seen = await order.view('answered', viewWaitMs)
    if (batch.length === 1) return alone(batch[0]!, seen)
    let results: SimulatedResult[] | undefined
    const askedAt = asking(wentAt, batch.length)
    try {
      results = await ask(batch)
    } catch {
      results = undefined
    }
    if (!results || !answer(batch, results, seen, askedAt)) await Promise.all(batch.map((w) => alone(w, seen)))
  }

  /** A batch that went at `wentAt` asked of the node now: remembered until its first transaction reaches the pool. */
  function asking(wentAt: number, calls: number): number {
    const askedAt = performance.now()
    unpooled.push({ askedAt, wentAt, calls })
    if (unpooled.length > batchesRemembered) unpooled.shift()
    return askedAt
  }

  /**
   * Each caller its own results and turn (on a view of `seen` executions, asked of the node at
   * `askedAt`); false when the node gave a different number of results than calls.
   */
  function answer(batch: Waiting[], results: SimulatedResult[], seen: number, askedAt: number): boolean {
    if (results.length !== batch.reduce((n, w) => n + w.calls.length, 0)) return false
    const turns = order.batch(seen, batch.length)
    let at = 0
    batch.forEach((w, i) => {
      turns[i]!.askedAt = askedAt
      const chunk = chunks.get(w)
      if (chunk) {
        turns[i]!.chunk = chunk
        if (i > 0 && chunks.get(batch[i - 1]!) === chunk) turns[i]!.follows = true
      }
      w.resolve(results.slice(at, at + w.calls.length), turns[i]!)
      at += w.calls.length
    })
    return true
  }

  /** One call asked alone at the pending block (callers asked alone together: the first to claim holds, the rest are simulated again). */
  async function alone(w: Waiting, seen: number): Promise<void> {
    try {
      const [turn] = order.batch(seen, 1)
      turn!.askedAt = performance.now()
      const results = (await ask([w])) ?? []
      const chunk = chunks.get(w)
      if (chunk) turn!.chunk = chunk
      w.resolve(results, turn!)
    } catch (err) {
      w.reject(err)
    }
  }

  return {
    blockSeen: (spacingMs, dueInMs = spacingMs) => {
      nextBlock =
        spacingMs !== undefined && spacingMs > 0 && dueInMs !== undefined
          ? { due: performance.now() + dueInMs, spacingMs }
          : undefined
      readAtBlock(spacingMs)
      schedule()
    },
    pooled: (askedAt) => {
      const i = unpooled.findIndex((b) => b.askedAt === askedAt)
      if (i === -1) return
      const { wentAt, calls } = unpooled.splice(i, 1)[0]!
      const measured = (performance.now() - wentAt) / (toPoolMs + toPoolPerCallMs * calls)
      const bounded = Math.min(toPoolScaleBound, Math.max(1 / toPoolScaleBound, measured))
      toPoolScale += (bounded - toPoolScale) * toPoolLearning
    },
    simulate: (call, precededBy, { confirming = false } = {}) =>
      new Promise<SimulatedResults>((resolve, reject) => {
        lastAsked = performance.now()
        const calls = precededBy ? [precededBy, call] : [call]
        const answer = (results: SimulatedResult[], turn: SimulationTurn) =>
          resolve(precededBy ? { result: results[1], precededBy: results[0], turn } : { result: results[0], turn })
        queue.push({ calls, confirming, at: lastAsked, resolve: answer, reject })
        queuedGas += gasOf(calls)
        schedule()
      }),
  }
}
