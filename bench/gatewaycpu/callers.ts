// Who calls into a package: the CPU spent inside functions matching a pattern (e.g. viem's),
// charged to the first caller outside it, in µs per execute. Usage:
// npx tsx bench/gatewaycpu/callers.ts <file.cpuprofile> 'node_modules/(viem|@noble)' <executes>
import { readFileSync } from 'node:fs'

type ProfileNode = {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const [path, pattern, executes] = process.argv.slice(2)
if (!path || !pattern || !executes) throw new Error('usage: callers.ts <file.cpuprofile> <pattern> <executes>')
const inside = new RegExp(pattern)
const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const totals = new Map<string, number>()
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i] ?? 0
  let entered = false
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const { functionName, url, lineNumber } = byId.get(at)!.callFrame
    if (inside.test(`${functionName} ${url}`)) entered = true
    else if (entered) {
      const name = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:.*\/(dist|src)\//, '$1/')}:${lineNumber + 1}`
      totals.set(name, (totals.get(name) ?? 0) + us)
      return
    }
  }
})
for (const [name, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, 25))
  process.stdout.write(`${(us / Number(executes)).toFixed(0).padStart(6)} µs  ${name}\n`)
