// Where a validate's allocations go, in-process (the gateway and its client in one process): V8's
// sampling heap profiler, counting objects the young and old collections took too, over N
// validates @10 after a warm-up. `node --import tsx bench/allocValidate.ts` (BYTES=0, N=3000).
import { describeAllocations, sampleAllocations } from './heapSampling.ts'
import { startValidateLoad } from './validateLoad.ts'

const bytes = Number(process.env.BYTES ?? 0)
const { run, stop } = await startValidateLoad(bytes)
await run(1000)
const N = Number(process.env.N ?? 3000)
const head = await sampleAllocations(() => run(N), 512)
console.log(describeAllocations(head, N, `per validate, ${bytes} B of call data`))
await stop()
process.exit(0)
