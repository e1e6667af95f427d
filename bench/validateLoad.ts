// An in-process gateway on its devnet and a client sending it validates, 10 at a time, each a
// different intent with `bytes` of extra call data: what profileValidate.ts and allocValidate.ts
// measure.
import { Pool } from 'undici'
import { demoIntent, startWorld } from '../test/support/testGateway.ts'

export async function startValidateLoad(bytes: number) {
  const world = await startWorld()
  const base = demoIntent(world.devnet) as { data: string }
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
  return {
    /** `n` validates, 10 in flight. */
    async run(n: number) {
      let i = 0
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (i++ < n) await one()
        }),
      )
    },
    async stop() {
      await pool.close()
      await world.stop()
    },
  }
}
