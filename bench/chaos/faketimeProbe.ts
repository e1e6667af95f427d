// Shows that libfaketime can step the wall clock of a running node process (the clock phase's
// means, issue 43 item 5): a child node prints Date.now() and performance.now() while the
// timestamp file it reads on every call (FAKETIME_NO_CACHE=1) is changed to -30 s, then +30 s;
// FAKETIME_DONT_FAKE_MONOTONIC=1 keeps performance.now() monotonic. Exit code 0 when the child saw
// both steps in Date.now() and its monotonic clock never went back.
//   node --import tsx bench/chaos/faketimeProbe.ts
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const libfaketime = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function probe(): Promise<boolean> {
  if (!existsSync(libfaketime)) {
    process.stderr.write(`${libfaketime} is missing: apt-get install -y faketime (as root)\n`)
    return false
  }
  const dir = mkdtempSync(join(tmpdir(), 'faketime-probe-'))
  const file = join(dir, 'offset')
  writeFileSync(file, '+0\n')
  const script = `const t = setInterval(() => console.log(Date.now(), performance.now() + performance.timeOrigin), 100); setTimeout(() => clearInterval(t), 3000)`
  const child = spawn(process.execPath, ['-e', script], {
    env: {
      ...process.env,
      LD_PRELOAD: libfaketime,
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString()
  })
  const exited = new Promise((r) => child.once('exit', r))
  await sleep(1000)
  writeFileSync(file, '-30s\n')
  await sleep(1000)
  writeFileSync(file, '+30s\n')
  await exited
  rmSync(dir, { recursive: true, force: true })
  const samples = out
    .trim()
    .split('\n')
    .map((l) => l.split(' ').map(Number) as [number, number])
  // The wall clock minus the monotonic one: about 0, then about -30 s, then about +30 s.
  const skews = samples.map(([wall, mono]) => (wall - mono) / 1000)
  const sawBack = skews.some((s) => s < -25)
  const sawForward = skews.some((s) => s > 25)
  const monotonic = samples.every(([, mono], i) => i === 0 || mono >= samples[i - 1]![1])
  process.stdout.write(
    `wall minus monotonic (s): ${skews.map((s) => s.toFixed(1)).join(' ')}\nstep back seen ${sawBack}, step forward seen ${sawForward}, performance.now() monotonic ${monotonic}\n`,
  )
  return sawBack && sawForward && monotonic && samples.length > 10
}

process.exit((await probe()) ? 0 : 1)
