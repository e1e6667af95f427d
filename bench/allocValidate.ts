// Where a validate's allocations go, in-process (the gateway and its client in one process): V8's
// sampling heap profiler, counting objects the young and old collections took too, over N
// validates @10 after a warm-up. `node --import tsx bench/allocValidate.ts` (BYTES=0, N=3000).
import { Session } from 'node:inspector/promises'
import { startValidateLoad } from './validateLoad.ts'

type Node = { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: Node[] }

const bytes = Number(process.env.BYTES ?? 0)
const { run, stop } = await startValidateLoad(bytes)
await run(1000)
const s = new Session()
s.connect()
await s.post('HeapProfiler.enable')
await s.post('HeapProfiler.startSampling', {
  samplingInterval: 512,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
} as never)
const N = Number(process.env.N ?? 3000)
await run(N)
const { profile } = (await s.post('HeapProfiler.stopSampling')) as { profile: { head: Node } }
/** Where a frame is: a package, or the gateway's own folder, or Node's internals. */
const placeOf = (url: string) => {
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)
  if (m) return m[1]!
  const src = url.match(/\/src\/([^/]+)\//)
  if (src) return `gateway ${src[1]}/`
  if (url.includes('/bench/') || url.includes('/test/')) return 'bench client'
  return url.startsWith('node:') ? url : url || '(vm)'
}
const byPlace = new Map<string, number>()
const byFunction = new Map<string, number>()
const walk = (n: Node) => {
  const place = placeOf(n.callFrame.url)
  byPlace.set(place, (byPlace.get(place) ?? 0) + n.selfSize)
  const f = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/.*node_modules\//, '').replace(/.*\/src\//, 'src/')}:${n.callFrame.lineNumber + 1}`
  byFunction.set(f, (byFunction.get(f) ?? 0) + n.selfSize)
  for (const c of n.children) walk(c)
}
walk(profile.head)
const total = [...byPlace.values()].reduce((a, b) => a + b, 0)
const kb = (b: number) => `${(b / N / 1024).toFixed(2)} KiB`
console.log(`allocated per validate (client included): ${kb(total)}, ${bytes} B of call data`)
for (const [p, b] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${kb(b).padStart(10)}  ${p}`)
console.log('by function:')
for (const [f, b] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 35))
  console.log(`  ${kb(b).padStart(10)}  ${f}`)
await stop()
process.exit(0)
