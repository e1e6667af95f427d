// Reads a V8 .cpuprofile (node --cpu-prof) and tells where the time went: self time by package
// (or our own source folder) and the hottest functions, as shares of the time the process was busy.
import { readFileSync } from 'node:fs'

type ProfileNode = {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
  children?: number[]
}
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

export function summarizeProfile(path: string, top = 25): string {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  let busy = 0
  const byPlace = new Map<string, number>()
  const byFunction = new Map<string, number>()
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame
    if (functionName === '(idle)') continue
    busy += us
    const place = placeOf(url, functionName)
    byPlace.set(place, (byPlace.get(place) ?? 0) + us)
    const fn = `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us)
  }
  // Inclusive time: each sample counts once for every distinct function on its stack.
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const inclusive = new Map<string, number>()
  for (const [id, us] of self) {
    if (byId.get(id)!.callFrame.functionName === '(idle)') continue
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url, lineNumber } = byId.get(at)!.callFrame
      if (!url) continue
      seen.add(`${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`)
    }
    for (const fn of seen) inclusive.set(fn, (inclusive.get(fn) ?? 0) + us)
  }
  const rows = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `  ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n')
  return `busy ${(busy / 1e6).toFixed(2)} s of CPU in the profile\nself time by place\n${rows(byPlace, 20)}\nhottest functions (self time)\n${rows(byFunction, top)}\nfunctions with their callees (total time)\n${rows(inclusive, top * 2)}\n`
}

function placeOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1]!
  if (url.startsWith('node:')) return url.split('/')[0]!.replace(/^node:internal.*/, 'node:internal')
  const own = /\/dist\/([^/]+)\//.exec(url) ?? /\/src\/([^/]+)\//.exec(url)
  return own ? `gateway ${own[1]}/` : url
}

const shortUrl = (url: string) => url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|src)\//, '$1/')
