import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { summarizeProfile } from './summarizeProfile.ts'
import { startValidateLoad } from './validateLoad.ts'

const bytes = Number(process.env.BYTES ?? 16384)
const { run, stop } = await startValidateLoad(bytes)
await run(500)
const s = new Session()
s.connect()
await s.post('Profiler.enable')
await s.post('Profiler.start')
const c0 = process.cpuUsage()
const N = Number(process.env.N ?? 2000)
await run(N)
const c1 = process.cpuUsage(c0)
const { profile } = await s.post('Profiler.stop')
writeFileSync('/tmp/perf16k.cpuprofile', JSON.stringify(profile))
console.log(`process CPU per validate (client included) ${((c1.user + c1.system) / N).toFixed(0)} µs, ${bytes} B`)
console.log(summarizeProfile('/tmp/perf16k.cpuprofile', 30))
await stop()
process.exit(0)
