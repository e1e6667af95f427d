// V8's sampling heap profiler over a piece of work, in-process, counting what the young and old
// collections took too; and its profile told by place (a package, the gateway's own folder, Node's
// internals) and by function, per unit of work. Shared by allocValidate.ts and allocExecute.ts.
import { Session } from 'node:inspector/promises'
import { findSourceMap } from 'node:module'

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number }
type Node = { callFrame: CallFrame; selfSize: number; children: Node[] }

/**
 * Runs `work` under the sampling heap profiler (a sample every `intervalBytes`); its allocation profile's root.
 * `survivors`: leave out what the young generation's collections took, so that the profile counts what
 * outlived them (promoted to the old generation, or still young when the work ended).
 */
export async function sampleAllocations(
  work: () => Promise<void>,
  intervalBytes: number,
  { survivors = false }: { survivors?: boolean } = {},
): Promise<Node> {
  const s = new Session()
  s.connect()
  await s.post('HeapProfiler.enable')
  await s.post('HeapProfiler.startSampling', {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: !survivors,
  } as never)
  await work()
  const { profile } = (await s.post('HeapProfiler.stopSampling')) as { profile: { head: Node } }
  s.disconnect()
  return profile.head
}

/** Where a frame is: a package, or the gateway's own folder, or Node's internals. */
function placeOf(url: string): string {
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)
  if (m) return m[1]!
  const src = url.match(/\/src\/([^/]+)\//)
  if (src) return `gateway ${src[1]}/`
  if (url.includes('/bench/') || url.includes('/test/')) return 'bench client'
  return url.startsWith('node:') ? url : url || '(vm)'
}

/** A frame's line in its source file (1-based): tsx runs each file compiled to one line, with its source map. */
function lineOf({ url, lineNumber, columnNumber }: CallFrame): number {
  const entry: { originalLine?: number } | undefined = url.startsWith('file:')
    ? findSourceMap(url)?.findEntry(lineNumber, columnNumber)
    : undefined
  return (entry?.originalLine ?? lineNumber) + 1
}

/** The profile as lines: the total per unit (`what`: "per validate"), then the top places and functions. */
export function describeAllocations(
  head: Node,
  units: number,
  what: string,
  top = { places: 20, functions: 35 },
  label = 'allocated',
) {
  const byPlace = new Map<string, number>()
  const byFunction = new Map<string, number>()
  const walk = (n: Node) => {
    const place = placeOf(n.callFrame.url)
    byPlace.set(place, (byPlace.get(place) ?? 0) + n.selfSize)
    const f = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/.*node_modules\//, '').replace(/.*\/src\//, 'src/')}:${lineOf(n.callFrame)}`
    byFunction.set(f, (byFunction.get(f) ?? 0) + n.selfSize)
    for (const c of n.children) walk(c)
  }
  walk(head)
  const total = [...byPlace.values()].reduce((a, b) => a + b, 0)
  const kb = (b: number) => `${(b / units / 1024).toFixed(2)} KiB`
  const rows = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, b]) => `  ${kb(b).padStart(10)}  ${k}`)
  return [
    `${label} ${what} (client included): ${kb(total)}`,
    ...rows(byPlace, top.places),
    'by function:',
    ...rows(byFunction, top.functions),
  ].join('\n')
}
