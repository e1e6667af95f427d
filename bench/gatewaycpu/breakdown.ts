// Where an execute's CPU goes, from a V8 .cpuprofile of the gateway (`npm run bench -- --only=execute
// --profile` prints its path): inclusive time of the functions that mark each step, in µs per
// execute. Usage: npx tsx bench/gatewaycpu/breakdown.ts <file.cpuprofile> <executes> [pattern...]
// Samples taken while modules load (start-up) are left out: they are no execute's cost.
import { readFileSync } from 'node:fs'

type ProfileNode = {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const [path, executesArg, ...extra] = process.argv.slice(2)
if (!path || !executesArg) throw new Error('usage: breakdown.ts <file.cpuprofile> <executes> [pattern...]')
const executes = Number(executesArg)
// Each step is named by a regular expression on "functionName url"; a sample counts for the first step on its stack, from the leaf up.
const steps: [string, RegExp][] = [
  ...extra.map((p): [string, RegExp] => [p, new RegExp(p)]),
  [
    'start-up (module loading)',
    /Module\._load|ModuleJob\.run|loadESM|module_job|compileSourceTextModule|(^| )main\.js/,
  ],
  ['journal: claim', /^claim .*openJournal/],
  ['journal: recordSigned', /^recordSigned .*openJournal/],
  ['journal: settle', /^settle .*openJournal|settleRow/],
  ['journal: other', /openJournal|better-sqlite3/],
  ['signing (secp256k1, serialize)', /signTransaction|ecdsaSign|signRelayed/],
  ['keccak (viem/noble JS)', /keccakP|keccak_f|sha3\.js/],
  ['viem encode/decode', /viem\/_esm\/utils\/(abi|encoding|data)/],
  ['logging (pino)', /pino|sonic-boom/],
  ['metrics (prom-client)', /prom-client/],
  ['JSON-RPC to the node (undici)', /undici|jsonRpcSend|createEndpointPool|jsonRpc/],
  ['HTTP in/out (fastify, node:http)', /fastify|_http_|find-my-way|avvio|light-my-request|node:net|stream_base|writev/],
  ['(garbage collector)', /^\(garbage collector\)/],
]

const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const totals = new Map<string, number>()
let busy = 0
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i] ?? 0
  if (byId.get(id)!.callFrame.functionName === '(idle)') return
  busy += us
  let step = 'other'
  // The outermost matching step wins for start-up, the innermost for the rest: walk the stack once.
  const stack: string[] = []
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const { functionName, url } = byId.get(at)!.callFrame
    stack.push(`${functionName} ${url}`)
  }
  if (stack.some((f) => steps.find(([n]) => n.startsWith('start-up'))![1].test(f))) step = 'start-up (module loading)'
  else
    for (const f of stack) {
      const hit = steps.find(([n, re]) => !n.startsWith('start-up') && re.test(f))
      if (hit) {
        step = hit[0]
        break
      }
    }
  totals.set(step, (totals.get(step) ?? 0) + us)
})
const startup = totals.get('start-up (module loading)') ?? 0
process.stdout.write(
  `busy ${(busy / 1e6).toFixed(2)} s, start-up ${(startup / 1e6).toFixed(2)} s; per execute (${executes}): ${((busy - startup) / executes).toFixed(0)} µs\n`,
)
for (const [step, us] of [...totals].sort((a, b) => b[1] - a[1])) {
  if (step.startsWith('start-up')) continue
  process.stdout.write(`  ${(us / executes).toFixed(0).padStart(6)} µs  ${step}\n`)
}
