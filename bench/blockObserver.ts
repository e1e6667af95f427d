// When each block of the bench's anvil first appears, seen from outside the gateway: the head asked
// every 5 ms (about 200 reads a second; their cost to the node not measured, so a run with it is not
// one to count for the node's ratio), one line per new head, `{ n, asked, at }` (Date.now()). Started before the bench, it waits for an anvil with a
// `--port`, follows it, and ends with it (thirty-second session: how late the gateway's receipt
// watch sees a block, with bench/experiments/wave-timeline.patch and bench/blockSightings.ts).
//   npx tsx bench/blockObserver.ts /tmp/blocks.jsonl & npm run bench -- --only=execute
import { execFileSync } from 'node:child_process'
import { appendFileSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

const out = process.argv[2]
if (!out) throw new Error('usage: blockObserver.ts <output file>')
writeFileSync(out, '')

/** The RPC address of the first anvil running with a `--port`, once there is one. */
async function findAnvil(): Promise<string> {
  for (;;) {
    const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    const port = processes
      .split('\n')
      .filter((line) => /(^|\/)anvil\s/.test(line))
      .map((line) => line.match(/--port\s+(\d+)/)?.[1])
      .find((p) => p !== undefined)
    if (port) return `http://127.0.0.1:${port}`
    await sleep(200)
  }
}

const url = await findAnvil()
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })
let last = -1
let failures = 0
while (failures < 20) {
  const asked = Date.now()
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    const n = Number(BigInt(((await response.json()) as { result: string }).result))
    failures = 0
    if (n !== last) appendFileSync(out, `${JSON.stringify({ n, asked, at: Date.now() })}\n`)
    last = n
  } catch {
    failures++ // anvil stopped: the bench ended
  }
  await sleep(5)
}
