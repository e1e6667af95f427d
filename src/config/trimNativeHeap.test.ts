// The native heap's trim: glibc's malloc_trim really called (a child process frees 32 MB of native
// memory below a block it keeps, and only the trim gives the pages back), and its timers.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, it } from 'node:test'
import pino from 'pino'
import { type NativeHeapTrim, startNativeHeapTrim } from './trimNativeHeap.ts'

// Buffers of 16 KiB are malloc'ed from glibc's heap (under its mmap threshold). Every 64th is kept,
// so what is freed lies between blocks still held, where free() cannot give it back (only the top
// of a heap goes back at free): its pages stay resident until the trim. One block kept after them
// all was not always enough: in CI run 121 the trim gave back 10 MB, with 85 MB resident before it
// (~105 MB here): likely that block went into a hole lower down, and free() gave back what lay above it.
const freedBelowKept = `
import { loadNativeHeapTrim } from './src/config/trimNativeHeap.ts'
const trim = await loadNativeHeapTrim()
if (!trim) { process.stdout.write('none'); process.exit(0) }
let blocks = Array.from({ length: 2048 }, () => Buffer.allocUnsafeSlow(16384).fill(1))
const kept = blocks.filter((_, i) => i % 64 === 63)
blocks = undefined
for (let i = 0; i < 4; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 50)) }
const before = process.memoryUsage.rss()
const gaveBack = trim()
const after = process.memoryUsage.rss()
process.stdout.write(JSON.stringify({ before, after, gaveBack, kept: kept.length }))
`

const silent = pino({ level: 'silent' })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('trimNativeHeap', () => {
  it("gives back native memory freed below memory still held (glibc's malloc_trim, through koffi)", () => {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', freedBelowKept],
      { encoding: 'utf8', env: { ...process.env, MALLOC_ARENA_MAX: '2' } },
    )
    assert.notEqual(out, 'none', 'malloc_trim is callable on this machine (glibc, koffi installed)')
    const { before, after, gaveBack } = JSON.parse(out) as { before: number; after: number; gaveBack: boolean }
    assert.equal(gaveBack, true)
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20)
    assert.ok(before - after > 16 * 2 ** 20, `resident ${mb(before)} MB before the trim, ${mb(after)} MB after`)
  })

  it('trims first after its delay, then every interval, until stopped', async () => {
    let calls = 0
    const trim: NativeHeapTrim = () => {
      calls++
      return true
    }
    const trimmer = startNativeHeapTrim({ everyMs: 40, firstAfterMs: 100, logger: silent, load: async () => trim })
    await sleep(60)
    assert.equal(calls, 0, 'not before its first delay')
    await sleep(200)
    assert.ok(calls >= 2, `trimmed ${calls} times in 260 ms`)
    trimmer.stop()
    const stoppedAt = calls
    await sleep(120)
    assert.equal(calls, stoppedAt, 'none after stop()')
  })

  it('does nothing at 0, and runs on where there is nothing to call (no glibc, no koffi)', async () => {
    let loads = 0
    startNativeHeapTrim({
      everyMs: 0,
      firstAfterMs: 1,
      logger: silent,
      load: async () => {
        loads++
        return undefined
      },
    })
    await sleep(30)
    assert.equal(loads, 0, 'NATIVE_HEAP_TRIM_MS=0 never loads the C library')
    const lines: string[] = []
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) })
    const trimmer = startNativeHeapTrim({ everyMs: 10, firstAfterMs: 1, logger, load: async () => undefined })
    await sleep(50)
    trimmer.stop()
    assert.equal(lines.length, 1, 'said once, at debug, that there is nothing to trim with')
    assert.match(lines[0]!, /no glibc malloc_trim/)
  })

  it('stops trimming, with a warning, if a trim throws', async () => {
    let calls = 0
    const lines: string[] = []
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) })
    const trimmer = startNativeHeapTrim({
      everyMs: 10,
      firstAfterMs: 1,
      logger,
      load: async () => () => {
        calls++
        throw new Error('no')
      },
    })
    await sleep(60)
    trimmer.stop()
    assert.equal(calls, 1)
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /native heap trim failed/)
  })
})
