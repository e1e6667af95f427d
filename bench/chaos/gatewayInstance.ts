// One gateway of the fault campaign, run as a user runs it (`node --import tsx src/main.ts`) in its
// own process and directory: started, killed with SIGKILL, and started again with the same settings.
import { type ChildProcess, spawn } from 'node:child_process'
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gatewayMain } from '../gatewayParts.ts'

const tsx = import.meta.resolve('tsx')

export type GatewayInstance = {
  name: string
  url: string
  alive: boolean
  /** Starts the process (again), with `env` plus `extra`; resolves once it listens. */
  start(extra?: Record<string, string>): Promise<void>
  /** SIGKILL, and waits for the process to be gone. */
  kill(): Promise<void>
  /** SIGTERM, and waits; its directory is removed unless it is to be started again (`again`). */
  stop(options?: { again?: boolean }): Promise<void>
  /** The last lines it logged (for a failure's message). */
  tail(): string
  /** The running process's id (undefined when not running). */
  pid(): number | undefined
}

/** A command the gateway's `node` is run under (its arguments then `node` and its own), e.g. `unshare -m …` for a private mount. */
export type Wrapper = { command: string; args: string[] }

/**
 * How long a start may take: a gateway run through tsx compiles its sources at each start, which on
 * a busy shared machine (load average 30 and more) has taken over 60 s. CHAOS_START_TIMEOUT_MS.
 */
const startTimeoutMs = Number(process.env.CHAOS_START_TIMEOUT_MS ?? 180_000)

/** `logFile`: every line the gateway logs, across its restarts, kept for reading after the run. */
export function gatewayInstance(
  name: string,
  env: Record<string, string>,
  logFile?: string,
  wrapper?: Wrapper,
): GatewayInstance {
  const cwd = mkdtempSync(join(tmpdir(), `chaos-${name}-`))
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()
  let log = ''
  const instance: GatewayInstance = {
    name,
    url: '',
    alive: false,
    async start(extra = {}) {
      log = ''
      const argv = [process.execPath, '--import', tsx, gatewayMain]
      const c = spawn(wrapper ? wrapper.command : argv[0]!, wrapper ? [...wrapper.args, ...argv] : argv.slice(1), {
        cwd,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          HOST: '127.0.0.1',
          PORT: '0',
          ...env,
          ...extra,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      child = c
      exited = new Promise((resolve) => {
        c.once('exit', () => resolve())
        c.once('error', () => resolve())
      })
      // A process that could not be started at all (its directory gone, no node): said at start-up, not a crash of the campaign.
      let spawnError: Error | undefined
      c.once('error', (err) => {
        spawnError = err
      })
      const keep = (d: Buffer) => {
        log = (log + d.toString()).slice(-20_000)
        if (logFile) appendFileSync(logFile, d)
      }
      c.stdout!.on('data', keep)
      c.stderr!.on('data', keep)
      if (logFile) appendFileSync(logFile, `--- ${new Date().toISOString()} started ${name} ${JSON.stringify(extra)}\n`)
      const deadline = Date.now() + startTimeoutMs
      for (;;) {
        const port = /listening on 127\.0\.0\.1:(\d+)/.exec(log)?.[1]
        if (port) {
          instance.url = `http://127.0.0.1:${port}`
          instance.alive = true
          return
        }
        if (spawnError) throw new Error(`gateway ${name} could not be started: ${spawnError.message}`)
        if (c.exitCode !== null) throw new Error(`gateway ${name} exited at start-up: ${log.slice(-3000)}`)
        if (Date.now() > deadline)
          throw new Error(`gateway ${name} did not listen within ${startTimeoutMs / 1000} s: ${log.slice(-3000)}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
    async kill() {
      instance.alive = false
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
    async stop({ again = false } = {}) {
      instance.alive = false
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
      if (!again) rmSync(cwd, { recursive: true, force: true })
    },
    tail: () => log.slice(-3000),
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined),
  }
  return instance
}
