// Runs the gateway as a user would (`src/main.ts`, or the production bundle, in its own process),
// from a directory of the test's choosing, so that no developer's .env leaks into the test.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const main = new URL('../../src/main.ts', import.meta.url).pathname
const tsx = import.meta.resolve('tsx')
// The test runner (scripts/runTests.ts) builds the gateway once, as `npm run build` does for
// production, and names the bundle here: a gateway process then starts in ~1.5 s of CPU instead of
// ~5 s through tsx, whose loader hooks see every module. Run alone, a test file starts src/main.ts.
const bundle = process.env.TEST_GATEWAY_BUNDLE

export type GatewayProcess = {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exit: Promise<number | null>
  cwd: string
}

export function runGateway({ env, dotenv }: { env: Record<string, string>; dotenv?: string }): GatewayProcess {
  const cwd = mkdtempSync(join(tmpdir(), 'intent-gateway-'))
  if (dotenv !== undefined) writeFileSync(join(cwd, '.env'), dotenv)
  const child = spawn(process.execPath, bundle ? [bundle] : ['--import', tsx, main], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()))
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, stdout: () => out, stderr: () => err, exit, cwd }
}

export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
