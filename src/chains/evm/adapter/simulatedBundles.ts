// A batch's executions simulated as the bundles they will be sent as (docs/api-contract.md §14:
// simulate as the chain will run it). Calls of one transaction share what separate transactions do
// not: transient storage (EIP-1153), contracts created and destroyed in it (EIP-6780), warm
// storage. So a key's calls to the executor, one after another in the batch, are simulated as
// IntentBundler runs of at most bundleBytesAtMost of calldata each (a run of one call stays a
// transaction of its own), in the order of their turns, and each call's turn names its run
// (`chunk`): the relayer sends a call only in a bundle with the calls before it in that run
// (relayer/sendBundled.ts), so what is sent is a prefix of a simulated run. A call that reverted there left nothing behind (state, transient storage and warm sets
// revert with it), so the run without it is the run simulated; the calls after it are simulated
// again anyway (their turns wait for it: executionOrder.ts).
// Each call's result is read from its run's logs (bundleOutcomes.ts): its success or revert data,
// and its gas as a transaction of its own would use it (its gas in the run, its base cost and its
// calldata at 16 a byte), which gives its limit in the bundle with room to spare. Paid executes
// (their settlement first), account mode and confirmations are simulated as transactions of their own.
import { type Address, encodeFunctionData, type Hex, numberToHex } from 'viem'
import { intentBundlerArtifact } from '../../../contracts/intentBundlerArtifact.ts'
import { type BundledCall, type BundledCallOutcome, readBundleOutcomes } from '../bundleOutcomes.ts'
import { type BundleChunk, bundleBytesAtMost, bundleGas } from '../relayer/sendBundled.ts'
import type { SimulatedCall, SimulatedResult } from './simulatedCall.ts'

type Entry = { calls: SimulatedCall[]; confirming: boolean }

/** Each key's entries one after another, keys in the order they first come, each key's in its own order. */
export function byKey<T extends Entry>(entries: T[]): T[] {
  const keys = new Map<string, T[]>()
  for (const e of entries) {
    const key = e.calls[0]!.from.toLowerCase()
    const of = keys.get(key)
    if (of) of.push(e)
    else keys.set(key, [e])
  }
  return [...keys.values()].flat()
}

type Segment<T> = { single: T } | { members: T[]; calls: BundledCall[]; chunk: BundleChunk }

/**
 * The block's calls with each run of a key's calls to the executor as one IntentBundler `run`;
 * `chunks`: each bundled entry's run; `each`: the node's results (one per block call) as one per
 * entry's call again, in the batch's order (undefined when they do not match the block).
 */
export function inBundles<T extends Entry>(
  batch: readonly T[],
  { bundler, executor }: { bundler: Address; executor: Address },
): {
  calls: Omit<SimulatedCall, 'toCode'>[]
  chunks: [T, BundleChunk][]
  each(results: readonly SimulatedResult[]): SimulatedResult[] | undefined
} {
  const segments: Segment<T>[] = []
  let open: { members: T[]; calls: BundledCall[]; chunk: { size: number }; from: string; bytes: number } | undefined
  for (const e of batch) {
    const call = e.calls[0]!
    const bundled =
      !e.confirming && e.calls.length === 1 && !call.toCode && call.to.toLowerCase() === executor.toLowerCase()
    if (!bundled) {
      open = undefined
      segments.push({ single: e })
      continue
    }
    const size = (call.data.length - 2) / 2 + 128
    if (!open || open.from !== call.from.toLowerCase() || open.bytes + size > bundleBytesAtMost) {
      open = { members: [], calls: [], chunk: { size: 0 }, from: call.from.toLowerCase(), bytes: 0 }
      segments.push(open)
    }
    open.members.push(e)
    open.chunk.size++
    open.calls.push({ target: call.to, gasLimit: BigInt(call.gas) })
    open.bytes += size
  }
  // A run of one call is a transaction of its own: a bundle of one would only add the bundler's gas.
  for (const [i, s] of segments.entries())
    if ('members' in s && s.members.length === 1) segments[i] = { single: s.members[0]! }
  const calls = segments.map((s) => {
    if ('single' in s) return s.single.calls.map(({ toCode: _code, ...c }) => c)
    const members = s.members.map((m) => m.calls[0]!)
    const data = encodeFunctionData({
      abi: intentBundlerArtifact.abi,
      functionName: 'run',
      args: [members.map((m) => ({ target: m.to, gasLimit: BigInt(m.gas), data: m.data }))],
    })
    return [
      {
        from: members[0]!.from,
        to: bundler,
        data,
        gas: numberToHex(bundleGas(s.calls, data)),
        maxFeePerGas: highest(members.map((m) => m.maxFeePerGas)),
        maxPriorityFeePerGas: highest(members.map((m) => m.maxPriorityFeePerGas)),
      },
    ]
  })
  return {
    calls: calls.flat(),
    chunks: segments.flatMap((s) => ('members' in s ? s.members.map((m): [T, BundleChunk] => [m, s.chunk]) : [])),
    each(results) {
      if (results.length !== calls.reduce((n, c) => n + c.length, 0)) return undefined
      const out: SimulatedResult[] = []
      let at = 0
      for (const s of segments) {
        if ('single' in s) {
          out.push(...results.slice(at, at + s.single.calls.length))
          at += s.single.calls.length
          continue
        }
        out.push(...membersOf(s, results[at++], bundler))
      }
      return out
    },
  }
}

/** Each member's result from its run's: none where the run gave none or its logs cannot be read. */
function membersOf<T extends Entry>(
  { members, calls }: { members: T[]; calls: BundledCall[] },
  result: SimulatedResult,
  bundler: Address,
): SimulatedResult[] {
  if (!result?.status) return members.map(() => undefined)
  let outcomes: BundledCallOutcome[]
  try {
    outcomes = readBundleOutcomes({
      bundler,
      calls,
      status: BigInt(result.status) === 1n ? 'success' : 'reverted',
      logs: result.logs ?? [],
    })
  } catch {
    return members.map(() => undefined)
  }
  return outcomes.map((o, i) => {
    const call = members[i]!.calls[0]!
    // As a transaction of its own: its base cost and its calldata (at most 16 a byte), which the bundle pays once.
    const alone = (gas: bigint) => numberToHex(gas + 21_000n + 16n * BigInt((call.data.length - 2) / 2))
    switch (o.kind) {
      case 'executed':
        return { status: '0x1', gasUsed: alone(o.gasUsed), returnData: o.returnData }
      case 'reverted':
        return { status: '0x0', gasUsed: alone(o.gasUsed), returnData: o.revertData }
      case 'outOfGas':
      case 'silent':
        return { status: '0x0', gasUsed: call.gas, returnData: '0x' }
      case 'unrun':
        return undefined
    }
  })
}

const highest = (values: readonly Hex[]): Hex =>
  numberToHex(values.reduce((a, v) => (BigInt(v) > a ? BigInt(v) : a), 0n))
