// Seams a newcomer and an operator hit (issue 45 item 6), each tried as they would: the gateway's
// --version, where the devnet listens, and the Retry-After of an intent valid only far ahead.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { runGateway, waitFor } from '../support/runGateway.ts'
import { demoIntent, post, startWorld, type World } from '../support/testGateway.ts'

const main = new URL('../../src/main.ts', import.meta.url).pathname
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string
}

/** Whether a TCP connection to host:port is accepted. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

describe('the gateway command: --version', () => {
  it('prints the version from package.json and exits 0, reading no .env and starting nothing', async () => {
    // A .env that would make the gateway refuse to start: --version does not read it.
    const cwd = mkdtempSync(join(tmpdir(), 'intent-gateway-'))
    writeFileSync(join(cwd, '.env'), 'PORT=not-a-port\n')
    const run = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), main, '--version'], {
      cwd,
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 30_000,
    })
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stdout, `intent-gateway ${version}\n`)
    assert.equal(run.stderr, '')
  })
})

describe('the embedded devnet listens on loopback unless HOST says otherwise', () => {
  it("with HOST unset: listening on 127.0.0.1, refused on the machine's other addresses", async (t) => {
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address
    const gw = runGateway({ env: { PORT: '0' } })
    try {
      await waitFor(
        () => gw.stdout().includes('Press Ctrl-C') || gw.child.exitCode !== null,
        90_000,
        'the devnet banner',
      )
      const port = Number(
        /running on its embedded devnet at http:\/\/127\.0\.0\.1:(\d+) \(listening on 127\.0\.0\.1:\1\)/.exec(
          gw.stdout(),
        )?.[1],
      )
      assert.ok(port > 0, gw.stdout() + gw.stderr())
      assert.equal(await accepts('127.0.0.1', port), true)
      if (outside) assert.equal(await accepts(outside, port), false, `the devnet answers on ${outside}:${port}`)
      else t.diagnostic('no network interface but loopback here: nothing else to refuse on')
    } finally {
      gw.child.kill('SIGINT')
      await Promise.race([gw.exit, new Promise((r) => setTimeout(r, 20_000))])
      if (gw.child.exitCode === null) gw.child.kill('SIGKILL')
    }
  })
})

describe('Retry-After of an intent valid only later (0x20)', () => {
  let world: World
  before(async () => {
    world = await startWorld()
  })
  after(async () => {
    await world?.stop()
  })
  const validate = (validAfter: number) =>
    post(world.gateway.baseUrl, '/intents/validate', demoIntent(world.devnet, { validAfter: String(validAfter) }), {
      'x-chain-id': '31337',
    })

  it('is capped at one day when validAfter is years away', async () => {
    const now = Math.floor(Date.now() / 1000)
    const far = await validate(now + 73 * 365 * 86_400)
    assert.equal(far.status, 202)
    assert.equal(far.body.status, '0x20')
    assert.equal(far.headers.get('retry-after'), '86400')
    // The largest validAfter the intent can carry (uint64) as well.
    const last = await validate(Number.MAX_SAFE_INTEGER)
    assert.equal(last.status, 202)
    assert.equal(last.headers.get('retry-after'), '86400')
  })

  it('still says the exact wait when it is under a day', async () => {
    const now = Math.floor(Date.now() / 1000)
    const soon = await validate(now + 86_000)
    assert.equal(soon.status, 202)
    const retryAfter = Number(soon.headers.get('retry-after'))
    assert.ok(retryAfter > 85_990 && retryAfter <= 86_000, `Retry-After ${retryAfter}`)
  })
})
