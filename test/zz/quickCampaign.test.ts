// The quick fault campaign on every change (issue 43, item 6): two database faults of `npm run chaos`
// on real gateways and a real anvil: one instance of a three-gateway PostgreSQL fleet partitioned
// from the database for longer than a relayer lease (its journal write held and landing late), with
// every broadcast it makes checked against the lease table as it reaches the node (fencing), and
// Redis cut while executes go on (rate limits open, budgets divided among the live instances). Once with a fixed seed and once with a random one, printed:
// `CHAOS_SEED=<seed> npm run chaos -- --quick --phases=partition,redis` repeats a failure. PostgreSQL
// and Redis are cut only through the campaign's own TCP relays, and the Redis is a redis-server this
// file starts on a free port: the machine's servers, which other tests use, are never touched (the
// campaign creates its own PostgreSQL database and drops it). The PostgreSQL cut of the whole fleet
// is left to `npm run chaos` (an execution whose claim could not be released during the cut waits
// two minutes for the stale-claim age: see docs/chaos.md). Placed in test/zz so that the suite's
// sorted file list runs it last, alone.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { testDatabaseUrl } from '../support/postgresDatabase.ts'

const campaign = new URL('../../bench/chaos/run.ts', import.meta.url).pathname
const tsx = import.meta.resolve('tsx')
/** The fixed seed: a seed that once failed goes here (or beside it) as a regression. */
const fixedSeed = 43_043
const randomSeed = Math.floor(Math.random() * 1e9)

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Runs the quick campaign's database phase with `seed`; its output and exit code. */
function runCampaign(seed: number, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', tsx, campaign, '--quick', '--phases=partition,redis'], {
      env: { ...process.env, CHAOS_SEED: String(seed), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString()
    })
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString()
    })
    child.once('exit', (code) => resolve({ code, output }))
  })
}

describe('the quick fault campaign (a partition from PostgreSQL longer than a lease, Redis cut)', () => {
  let redis: ChildProcess | undefined
  let redisUrl = ''
  const results = mkdtempSync(join(tmpdir(), 'chaos-results-'))
  before(async () => {
    const port = await freePort()
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    })
    redisUrl = `redis://127.0.0.1:${port}`
    // Stopped with this process, even when `after` does not run (the run interrupted).
    process.once('exit', () => redis?.kill('SIGTERM'))
    // Listening once a connection is accepted.
    for (let i = 0; ; i++) {
      const up = await new Promise<boolean>((resolve) => {
        const socket = new Socket()
        socket.once('connect', () => {
          socket.destroy()
          resolve(true)
        })
        socket.once('error', () => resolve(false))
        socket.connect(port, '127.0.0.1')
      })
      if (up) break
      if (i > 100) throw new Error('redis-server did not start')
      await new Promise((r) => setTimeout(r, 50))
    }
  })
  after(() => {
    redis?.kill('SIGTERM')
    rmSync(results, { recursive: true, force: true })
  })

  for (const [which, seed] of [
    ['a fixed seed', fixedSeed],
    ['a random seed', randomSeed],
  ] as const) {
    it(`holds its verdict with ${which} (CHAOS_SEED=${seed})`, async () => {
      process.stdout.write(`quick fault campaign, ${which}: CHAOS_SEED=${seed}\n`)
      const { code, output } = await runCampaign(seed, {
        CHAOS_REDIS_URL: redisUrl,
        CHAOS_DATABASE_URL: testDatabaseUrl,
        CHAOS_RESULTS_DIR: results,
      })
      const line = /^(\d+) of (\d+) intents executed exactly once\b.*$/m.exec(output)
      assert.ok(line, `no verdict line (CHAOS_SEED=${seed}):\n${output.slice(-4000)}`)
      assert.equal(line[1], line[2], `not every intent exactly once (CHAOS_SEED=${seed}):\n${output.slice(-4000)}`)
      assert.match(output, /fencing: the partitioned gateway never broadcast from a key it no longer held/)
      assert.match(output, /Redis cut: budgets divided among the live instances, never unbounded/)
      assert.ok(
        code === 0 && /^verdict: PASS$/m.test(output),
        `the verdict failed (CHAOS_SEED=${seed}, exit ${code}):\n${output.slice(-4000)}`,
      )
    })
  }
})
