// Where an execute's allocations go, in-process (the gateway, its journal on a file, and a client
// with `IN_FLIGHT` executes in flight in one process, against anvil mining every 0.2 s): V8's
// sampling heap profiler, counting what the young and old collections took too, over N signed
// intents after a warm-up of as many. The garbage collector took ~21% of the gateway's CPU in the
// execute bench (docs/performance.md); this says what it collects.
// `node --import tsx bench/allocExecute.ts` (N=2000, IN_FLIGHT=200).
import { mkdtempSync, rmSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { startDevnet } from '../src/chains/evm/devnet/startDevnet.ts'
import { demoIntent, signIntent, startTestGateway } from '../test/support/testGateway.ts'

type Node = { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: Node[] }

const N = Number(process.env.N ?? 2000)
const inFlight = Number(process.env.IN_FLIGHT ?? 200)
const dir = mkdtempSync(join(tmpdir(), 'alloc-execute-'))
const devnet = await startDevnet({ blockTime: 0.2 })
const gateway = await startTestGateway({
  chains: [devnet.chain],
  storageOptions: { sqlite: { path: join(dir, 'journal.db'), synchronous: 'full' } },
})
const client = new Pool(gateway.baseUrl, { connections: inFlight, pipelining: 1 })
let nonce = 1
const sign = (n: number) =>
  Promise.all(Array.from({ length: n }, () => signIntent(devnet, demoIntent(devnet, { nonce: String(nonce++) }))))
async function run(bodies: Record<string, unknown>[]) {
  let i = 0
  await Promise.all(
    Array.from({ length: Math.min(inFlight, bodies.length) }, async () => {
      while (i < bodies.length) {
        const body = JSON.stringify(bodies[i++])
        const r = await client.request({
          path: '/intents/execute',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
        await r.body.text()
        if (r.statusCode !== 200) throw new Error(`execute answered ${r.statusCode}`)
      }
    }),
  )
}
await run(await sign(N))
const measured = await sign(N)
const s = new Session()
s.connect()
await s.post('HeapProfiler.enable')
await s.post('HeapProfiler.startSampling', {
  samplingInterval: 1024,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
} as never)
const cpu = process.cpuUsage()
const t = performance.now()
await run(measured)
const used = process.cpuUsage(cpu)
const wall = performance.now() - t
const { profile } = (await s.post('HeapProfiler.stopSampling')) as { profile: { head: Node } }
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
console.log(
  `allocated per execute (client included): ${kb(total)}; ${(N / (wall / 1000)).toFixed(0)} executes/s, process CPU ${((used.user + used.system) / N).toFixed(0)} µs per execute (client and profiler included)`,
)
for (const [p, b] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${kb(b).padStart(10)}  ${p}`)
console.log('by function:')
for (const [f, b] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40)))
  console.log(`  ${kb(b).padStart(10)}  ${f}`)
await client.close()
await gateway.close()
await devnet.stop()
rmSync(dir, { recursive: true, force: true })
process.exit(0)
