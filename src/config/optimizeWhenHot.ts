// V8 11 (Node 20) optimizes a small function at its first profiler tick, before it is hot. Under
// execute load the request path's small closures were compiled again after every full collection,
// and V8's compiler thread took a third of the gateway's CPU (docs/performance.md, the twenty-first
// session of the fourth round). `--max-bytecode-size-for-early-opt=0` has V8 wait until they are
// hot, like any other function. V8 12 (Node 22) and later no longer optimize small functions early
// and no longer know the flag: on node's command line it stops node from starting (`node: bad
// option`). So it is set here, at start-up, and only on a V8 that has it. V8 reads it at each
// decision to optimize, so setting it after start-up takes effect from then on (a test checks
// this Node honours it). A value given on node's own command line is left as it is.
import { setFlagsFromString } from 'node:v8'

const flag = '--max-bytecode-size-for-early-opt'

export type OptimizeWhenHotParameters = {
  /** `process.versions.v8` of the Node that runs it. */
  v8Version?: string | undefined
  /** `process.execArgv`: node's own command-line flags. */
  execArgv?: readonly string[] | undefined
}

/** Sets the flag where V8 has it and node's command line did not set it; whether it did. */
export function optimizeWhenHot({
  v8Version = process.versions.v8,
  execArgv = process.execArgv,
}: OptimizeWhenHotParameters = {}): boolean {
  if (!(Number.parseInt(v8Version, 10) < 12)) return false
  if (execArgv.some((arg) => arg.replaceAll('_', '-').startsWith(flag))) return false
  setFlagsFromString(`${flag}=0`)
  return true
}
