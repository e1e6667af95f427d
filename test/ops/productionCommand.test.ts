// Production's command line (npm run start:prod) keeps V8's young generation small (the bench's
// peak resident size fell from ~170 to ~145 MB with it) and glibc's malloc arenas few. A child process churning short-lived
// garbage on this Node shows the new space's peak with production's flags and without them.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { productionCommand, productionNodeFlags } from '../../scripts/productionCommand.ts'

const churn = `
import { getHeapSpaceStatistics } from 'node:v8'
const recent = []
let peak = 0
for (let r = 0; r < 300; r++) {
  recent.push(Array.from({ length: 5_000 }, (_, j) => ({ j, s: 'garbage ' + r + ' ' + j })))
  if (recent.length > 4) recent.shift()
  peak = Math.max(peak, getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)
}
process.stdout.write(String(peak))
`
const peakNewSpace = (flags: string[]) =>
  Number(execFileSync(process.execPath, [...flags, '--input-type=module', '-e', churn], { encoding: 'utf8' }))

describe('the production command (npm run start:prod)', () => {
  it('runs dist/main.js with a young generation far smaller than V8 grows on its own', () => {
    const flags = productionNodeFlags()
    const own = peakNewSpace([])
    const production = peakNewSpace(flags)
    assert.ok(
      production <= own / 2,
      `new space peaked at ${production / 2 ** 20} MB with ${flags.join(' ')}, ${own / 2 ** 20} MB with V8's own size`,
    )
  })

  it('caps glibc at two malloc arenas: under load the gateway grew ~18 MB outside the JavaScript heap with one per thread', () => {
    assert.equal(productionCommand().env.MALLOC_ARENA_MAX, '2')
  })

  it('refuses a start:prod that is not node [flags] dist/main.js, so the bench never measures something else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'start-prod-'))
    try {
      const file = join(dir, 'package.json')
      writeFileSync(file, JSON.stringify({ scripts: { 'start:prod': 'tsx src/main.ts' } }))
      assert.throws(
        () => productionNodeFlags(file),
        /start:prod is not "\[NAME=value \.\.\.\] node \[flags\] dist\/main.js"/,
      )
      writeFileSync(file, JSON.stringify({ scripts: { 'start:prod': 'MALLOC_ARENA_MAX=2 tsx src/main.ts' } }))
      assert.throws(() => productionNodeFlags(file), /start:prod is not/)
      writeFileSync(file, JSON.stringify({ scripts: { 'start:prod': 'node --max-semi-space-size=4 dist/main.js' } }))
      assert.deepEqual(productionCommand(file), { env: {}, nodeFlags: ['--max-semi-space-size=4'] })
      writeFileSync(
        file,
        JSON.stringify({ scripts: { 'start:prod': 'MALLOC_ARENA_MAX=2 A_B=x=y node --a --b=1 dist/main.js' } }),
      )
      assert.deepEqual(productionCommand(file), {
        env: { MALLOC_ARENA_MAX: '2', A_B: 'x=y' },
        nodeFlags: ['--a', '--b=1'],
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
