import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { Pool } from 'undici'
import { demoIntent, startWorld } from '../test/support/testGateway.ts'
import { summarizeProfile } from './summarizeProfile.ts'

const world = await startWorld()
const bytes = Number(process.env.BYTES ?? 16384)
const base = demoIntent(world.devnet) as any
const pool = new Pool(world.gateway.baseUrl, { connections: 10 })
let nonce = 1
const one = async () => {
  const body = JSON.stringify({ ...base, data: base.data + '00'.repeat(bytes), nonce: String(nonce++) })
  const r = await pool.request({
    path: '/intents/validate',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })
  await r.body.text()
  if (r.statusCode !== 200) throw new Error(String(r.statusCode))
}
const run = async (n: number) => {
  let i = 0
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (i++ < n) await one()
    }),
  )
}
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
await pool.close()
await world.stop()
process.exit(0)
