// Where an execute's allocations go, in-process (the gateway, its journal on a file, and a client
// with `IN_FLIGHT` executes in flight in one process, against anvil mining every 0.2 s): V8's
// sampling heap profiler, counting what the young and old collections took too, over N signed
// intents after a warm-up of as many. The garbage collector took ~21% of the gateway's CPU in the
// execute bench (docs/performance.md); this says what it collects.
// `node --import tsx bench/allocExecute.ts` (N=2000, IN_FLIGHT=200). With SURVIVORS=1, what outlived the
// young generation's collections (promoted): run it under production's young generation,
// `SURVIVORS=1 node --max-semi-space-size=4 --import tsx bench/allocExecute.ts`.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { startDevnet } from '../src/chains/evm/devnet/startDevnet.ts'
import { demoIntent, signIntent, startTestGateway } from '../test/support/testGateway.ts'
import { describeAllocations, sampleAllocations } from './heapSampling.ts'

const N = Number(process.env.N ?? 2000)
const inFlight = Number(process.env.IN_FLIGHT ?? 200)
const survivors = process.env.SURVIVORS === '1'
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
let used = { user: 0, system: 0 }
let wall = 0
const head = await sampleAllocations(
  async () => {
    const cpu = process.cpuUsage()
    const t = performance.now()
    await run(measured)
    used = process.cpuUsage(cpu)
    wall = performance.now() - t
  },
  1024,
  { survivors },
)
console.log(
  `${(N / (wall / 1000)).toFixed(0)} executes/s, process CPU ${((used.user + used.system) / N).toFixed(0)} µs per execute (client and profiler included)`,
)
console.log(
  describeAllocations(
    head,
    N,
    'per execute',
    { places: 20, functions: Number(process.env.TOP ?? 40) },
    survivors ? 'outlived the young generation' : 'allocated',
  ),
)
await client.close()
await gateway.close()
await devnet.stop()
rmSync(dir, { recursive: true, force: true })
process.exit(0)
