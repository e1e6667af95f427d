// The early optimization of small functions is turned off at start-up on the Node that runs the
// gateway when its V8 has the flag (V8 11, Node 20), and left alone on a V8 that does not (12 and
// later: no early optimization there, and the flag unknown) or when node's command line set it.
// A child process calls a small function hot under --trace-opt and shows V8's reason to optimize it.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, it } from 'node:test'
import { optimizeWhenHot } from './optimizeWhenHot.ts'

const hot = `
import { optimizeWhenHot } from './src/config/optimizeWhenHot.ts'
const set = process.env.SET === '1' && optimizeWhenHot()
function add(a, b) { return a + b }
let sum = 0
for (let i = 0; i < 3e6; i++) sum = add(sum, i & 7)
process.stdout.write('\\nSET ' + set + ' ' + (sum > 0) + '\\n')
`
const run = (set: boolean, flags: string[] = []) =>
  // No on-stack replacement: the loop stays interpreted and calls `add` until V8 decides on it (with
  // it, the loop's own optimized code may take `add` inlined before `add` reaches a tick).
  execFileSync(
    process.execPath,
    ['--trace-opt', '--no-use-osr', ...flags, '--import', 'tsx', '--input-type=module', '-e', hot],
    {
      env: { ...process.env, SET: set ? '1' : '0' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
/** V8's reasons to mark `add` for optimization, as --trace-opt prints them. */
const reasons = (out: string) =>
  [...out.matchAll(/<JSFunction add [^>]*> for optimization[^\]]*reason: ([^\]]+)\]/g)].map((m) => m[1])

describe('optimizeWhenHot', () => {
  it('on this Node: a small function is optimized when hot, not at its first tick, where V8 would do that', () => {
    const major = Number.parseInt(process.versions.v8, 10)
    const withIt = run(true)
    const without = run(false)
    if (major < 12) {
      assert.match(withIt, /SET true true/)
      assert.ok(reasons(without).includes('small function'), `without it: ${reasons(without).join(', ')}`)
      assert.ok(!reasons(withIt).includes('small function'), `with it: ${reasons(withIt).join(', ')}`)
      assert.ok(reasons(withIt).includes('hot and stable'), `with it, still optimized: ${reasons(withIt).join(', ')}`)
    } else {
      // Nothing set: V8 12 and later have no such flag (and no early optimization).
      assert.match(withIt, /SET false true/)
      assert.ok(!reasons(without).includes('small function'))
    }
  })

  const noFlag = Number.parseInt(process.versions.v8, 10) >= 12 && 'V8 12 and later have no such flag'
  it("leaves node's own command line alone: a value given there stays", { skip: noFlag }, () => {
    const out = run(true, ['--max-bytecode-size-for-early-opt=81'])
    assert.match(out, /SET false true/)
    assert.ok(reasons(out).includes('small function'), reasons(out).join(', '))
  })

  it('sets nothing on a V8 that no longer has the flag, or when node was given it', () => {
    assert.equal(optimizeWhenHot({ v8Version: '12.4.254.21-node.57', execArgv: [] }), false)
    assert.equal(optimizeWhenHot({ v8Version: '13.6.233.17-node.63', execArgv: [] }), false)
    assert.equal(
      optimizeWhenHot({ v8Version: '11.3.244.8-node.38', execArgv: ['--max_bytecode_size_for_early_opt=40'] }),
      false,
    )
  })
})
