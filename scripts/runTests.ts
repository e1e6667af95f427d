// The test runner of `npm test`: every test file in its own node process (node:test runs a file
// executed directly, with the spec reporter), several at a time where they can share the machine,
// and one at a time those that cannot (see `serialFiles`). Each file's output is printed whole when
// it finishes (never interleaved with another's), then node:test's summary summed over all files,
// and the exit code is 1 if any file failed. The type checks (`--check '<command>'`, repeatable)
// run in the parallel pass too, first, beside the longest test files.
//
// The parallel pass starts the longest files first (their last times are in
// scripts/testFileTimes.json; a file not listed there counts as long), so that no long file starts
// last and holds the end of the run alone. Every run writes each file's wall and CPU time
// (/usr/bin/time: the file's processes and every child they waited for, anvil included) to
// .cache/testFileTimes.json; copy it over scripts/testFileTimes.json to reorder.
//
//   tsx scripts/runTests.ts [--check '<command>' …] [file …]      all test files when none is given
//   TEST_CONCURRENCY=3                    files at a time in the parallel pass (default 3)
//   TEST_FILE_TIMEOUT_S=1200              a file still running then is ended and fails
//   TEST_GATEWAY_BUNDLE=none              gateway processes from src/main.ts (tsx), not the bundle
//   TEST_COMPILED=none                    test files through tsx, not compiled into .cache/test-js
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { compileTests } from './compileTests.ts'

// Files that must run with no other test file beside them, each with the reason. Everything else
// owns its chain (anvil on a free port), its ports (0), its PostgreSQL database and its Redis prefix.
export const serialFiles: Record<string, string> = {
  'src/chains/evm/adapter/simulationBatcher.test.ts': 'three simulations within 500 ms of a 1 s gather window',
  'test/http/limits.test.ts': 'when the gateway closes slow sockets, to within 100 ms of 8 s deadlines',
  'test/evm/faults.test.ts': 'a 503 within the RPC timeout (1 s) + 2 s while RPC calls hang',
  'test/ops/webhooksDelivery.test.ts': 'deliveries in flight counted before a 2 s tarpit timeout',
  'test/keys/facilitatorKeys.test.ts': 'a slow PKCS#11 token answered at the timeout, within 6 s',
  'test/chaos/leaseFencing.test.ts': 'sleeps of the 1.2 s relayer lease + 300 ms across a cut PostgreSQL link',
  'test/chaos/releaseAfterCut.test.ts': 'a 500 ms connect timeout across a cut PostgreSQL link',
  'test/sui/sui.test.ts': 'the stand-in answered within a 300 ms RPC deadline',
  'test/sui/suiFleet.test.ts':
    'gas coin reads within a 1 s RPC deadline while a key is taken over within its lease TTL',
  'test/sui/suiKeyHold.test.ts': "a holder's local deadline, two thirds of the lease TTL, against the database's",
  'test/sui/suiSponsored.test.ts': 'sponsored transactions within a 1 s RPC deadline',
  'test/sui/suiTransactions.test.ts': 'gRPC calls within a short RPC deadline (DEADLINE_EXCEEDED beside other files)',
  'test/zz/quickCampaign.test.ts': 'the fault campaign: its own redis-server, gateways and clock steps; runs last',
}

const root = process.cwd()
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 3) || 3)
const fileTimeoutS = Math.max(1, Number(process.env.TEST_FILE_TIMEOUT_S ?? 1200) || 1200)

type FileResult = {
  file: string
  code: number
  wallS: number
  cpuS: number
  counts: Record<string, number>
  output: string
}

const countNames = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'] as const

function findTestFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === 'node_modules') return []
    if (statSync(path).isDirectory()) return findTestFiles(path)
    return name.endsWith('.test.ts') ? [relative(root, path)] : []
  })
}

function lastTimes(): Record<string, number> {
  try {
    const last = JSON.parse(readFileSync(join(root, 'scripts/testFileTimes.json'), 'utf8')) as Record<
      string,
      { wallS: number }
    >
    return Object.fromEntries(Object.entries(last).map(([file, { wallS }]) => [file, wallS]))
  } catch {
    return {}
  }
}

function runFile(file: string, scratch: string): Promise<FileResult> {
  const timeFile = join(scratch, `${file.replace(/[^A-Za-z0-9.-]/g, '_')}.time`)
  const started = performance.now()
  const command = checks.includes(file)
    ? ['sh', '-c', file]
    : compiled
      ? [process.execPath, '--test-reporter=spec', join(compiled, `${file.slice(0, -3)}.js`)]
      : [process.execPath, '--import', 'tsx', '--test-reporter=spec', file]
  return new Promise((resolve) => {
    // Its own process group, so that a file that hangs (a child it never stopped keeps it alive) is
    // ended with everything it started once it has run longer than any file should.
    const child = spawn('/usr/bin/time', ['-q', '-f', '%U %S', '-o', timeFile, ...command], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    const overdue = setTimeout(() => {
      output += `\n✖ still running after ${fileTimeoutS} s (TEST_FILE_TIMEOUT_S): ended with every process it started\n`
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {}
    }, fileTimeoutS * 1000)
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('close', (code, signal) => {
      clearTimeout(overdue)
      const wallS = (performance.now() - started) / 1000
      let cpuS = Number.NaN
      try {
        const [user, system] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number)
        cpuS = user! + system!
      } catch {}
      const plain = stripVTControlCharacters(output)
      const counts: Record<string, number> = {}
      for (const name of countNames) {
        const match = plain.match(new RegExp(`^ℹ ${name} (\\d+)$`, 'm'))
        counts[name] = match ? Number(match[1]) : 0
      }
      resolve({ file, code: code ?? (signal ? 1 : 0), wallS, cpuS, counts, output })
    })
  })
}

function report(result: FileResult, done: number, total: number): void {
  const failed = result.code !== 0 || (result.counts.fail ?? 0) > 0
  process.stdout.write(
    `\n${'─'.repeat(100)}\n${failed ? '✖' : '✔'} ${result.file} (${done}/${total}, ${result.wallS.toFixed(1)} s wall, ${result.cpuS.toFixed(1)} s CPU)\n`,
  )
  process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`)
}

async function runPool(
  files: string[],
  width: number,
  onDone: (r: FileResult) => void,
  scratch: string,
): Promise<FileResult[]> {
  const queue = [...files]
  const results: FileResult[] = []
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const result = await runFile(file, scratch)
      results.push(result)
      onDone(result)
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, files.length) }, worker))
  return results
}

const checks: string[] = []
const chosen: string[] = []
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--check') checks.push(process.argv[++i] ?? '')
  else chosen.push(process.argv[i]!)
}
const all = (
  chosen.length > 0
    ? chosen.map((f) => relative(root, resolve(root, f)))
    : ['src', 'test', 'client/test'].flatMap(findTestFiles)
).sort()
const times = lastTimes()
const parallel = all
  .filter((f) => !(f in serialFiles))
  .sort((a, b) => (times[b] ?? Number.POSITIVE_INFINITY) - (times[a] ?? Number.POSITIVE_INFINITY) || a.localeCompare(b))
// The serial pass in file order, the campaign (test/zz) last.
const serial = all.filter((f) => f in serialFiles)

// The gateway processes the tests start run from one bundle built here, as production's is
// (test/support/runGateway.ts): a start through tsx costs ~3 s more CPU, its loader hooks seeing
// each of the gateway's modules. TEST_GATEWAY_BUNDLE=none starts src/main.ts through tsx instead.
if (process.env.TEST_GATEWAY_BUNDLE === 'none') delete process.env.TEST_GATEWAY_BUNDLE
else if (process.env.TEST_GATEWAY_BUNDLE === undefined) {
  const outdir = join(root, '.cache/test-bundle')
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--outdir', outdir], { stdio: 'inherit' })
  process.env.TEST_GATEWAY_BUNDLE = join(outdir, 'main.js')
}

// The test files run as JavaScript compiled here (scripts/compileTests.ts), not through tsx's
// loader hooks: ~2-3 s less CPU for each file that loads the gateway. TEST_COMPILED=none runs them
// through tsx.
const compiled = process.env.TEST_COMPILED === 'none' ? undefined : join(root, '.cache/test-js')
if (compiled) process.stdout.write(`compiled ${await compileTests(compiled)} TypeScript files into .cache/test-js/\n`)

const scratch = mkdtempSync(join(tmpdir(), 'run-tests-'))
const started = performance.now()
let done = 0
const onDone = (r: FileResult) => report(r, ++done, checks.length + all.length)
process.stdout.write(
  `${checks.length} checks and ${parallel.length} test files at most ${concurrency} at a time, then ${serial.length} test files one at a time\n`,
)
const ran = [
  ...(await runPool([...checks, ...parallel], concurrency, onDone, scratch)),
  ...(await runPool(serial, 1, onDone, scratch)),
]
const checked = ran.filter((r) => checks.includes(r.file))
const results = ran.filter((r) => !checks.includes(r.file))
const wallS = (performance.now() - started) / 1000
rmSync(scratch, { recursive: true, force: true })

mkdirSync(join(root, '.cache'), { recursive: true })
const byFile = Object.fromEntries(
  [...results]
    .sort((a, b) => a.file.localeCompare(b.file))
    .map((r) => [
      r.file,
      {
        wallS: Number(r.wallS.toFixed(2)),
        cpuS: Number(r.cpuS.toFixed(2)),
        tests: r.counts.tests,
        serial: r.file in serialFiles,
      },
    ]),
)
writeFileSync(join(root, '.cache/testFileTimes.json'), `${JSON.stringify(byFile, null, 2)}\n`)

const failed = ran.filter((r) => r.code !== 0 || (r.counts.fail ?? 0) > 0)
const sum = (pick: (r: FileResult) => number) => results.reduce((total, r) => total + pick(r), 0)
// Why each failed file failed, again just above the summary: a log read from its end (CI keeps
// the tail) shows the failing tests' messages, not only their names.
for (const r of failed) process.stdout.write(`\n✖ ${r.file}, why:\n${failureOf(r.output)}\n`)
process.stdout.write(`\n${'═'.repeat(100)}\n`)
for (const name of countNames) process.stdout.write(`ℹ ${name} ${sum((r) => r.counts[name] ?? 0)}\n`)
process.stdout.write(`ℹ duration_ms ${Math.round(wallS * 1000)}\n`)
process.stdout.write(
  `ℹ files ${results.length} (${parallel.length} parallel at ${concurrency}, ${serial.length} serial); sum of file wall times ${sum((r) => r.wallS).toFixed(0)} s, CPU ${sum((r) => r.cpuS || 0).toFixed(0)} s\n`,
)
for (const r of checked)
  process.stdout.write(
    `ℹ check ${r.code === 0 ? 'passed' : 'FAILED'}: ${r.file} (${r.wallS.toFixed(0)} s wall, ${r.cpuS.toFixed(0)} s CPU)\n`,
  )
if (failed.length > 0) {
  process.stdout.write(
    `✖ ${failed.length} failing file(s):\n${failed.map((r) => `  ${r.file} (exit ${r.code}, ${r.counts.fail ?? 0} failed)`).join('\n')}\n`,
  )
  process.exitCode = 1
}

/** node:test's "failing tests" section of a file's output, without stack frames, at most ~3,000 characters. */
function failureOf(output: string): string {
  const plain = stripVTControlCharacters(output)
  const at = plain.lastIndexOf('✖ failing tests:')
  const section = at >= 0 ? plain.slice(at + '✖ failing tests:'.length) : plain.slice(-3000)
  const lines = section.split('\n').filter((line) => !/^\s+at /.test(line) && line.trim() !== '')
  const text = lines.join('\n')
  return text.length > 3000 ? `${text.slice(0, 3000)}\n…` : text
}
