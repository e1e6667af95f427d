// The gateway as a process: configuration errors stop it with exit code 1 and every problem
// listed; with nothing configured it starts its devnet, the printed commands do what they say,
// and Ctrl-C leaves no anvil behind.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { runGateway, waitFor } from '../support/runGateway.ts'

describe('gateway process', () => {
  it('exits 1 listing every configuration problem in production', async () => {
    const gw = runGateway({
      env: { NODE_ENV: 'production', RPC_URLS: '{"1": "https://user:hunter2@rpc.example/key"}', BODY_LIMIT: '12' },
    })
    assert.equal(await gw.exit, 1)
    const lines = gw.stderr().trim().split('\n')
    assert.deepEqual(lines, [
      'Invalid configuration (7 problems):',
      '  - PORT: required',
      '  - EXECUTOR_ADDRESSES: required (a JSON object of chain id -> contract address)',
      '  - VALIDATOR_ADDRESSES: required (a JSON object of chain id -> contract address)',
      '  - REGISTRY_ADDRESSES: required (a JSON object of chain id -> contract address)',
      '  - RPC_URLS: chain eip155:1 has no contract addresses (set it in EXECUTOR_ADDRESSES, VALIDATOR_ADDRESSES and REGISTRY_ADDRESSES, or remove it)',
      // MCP is on by default: without PUBLIC_URL, /mcp could not tell its own host from a rebinding page's.
      '  - PUBLIC_URL: required in production while the MCP server is on (MCP_ENABLED): /mcp serves only requests naming this host (DNS rebinding); set the origin clients reach the gateway at, like https://gateway.example',
      '  - BODY_LIMIT: "12" is not an integer between 1024 and 16777216',
    ])
    assert.ok(!gw.stderr().includes('hunter2'))
    assert.equal(gw.stdout(), '')
  })

  it('reads .env from the working directory, without overriding the environment', async () => {
    const gw = runGateway({
      env: { NODE_ENV: 'production', PORT: '8080' },
      dotenv: 'PORT=not-a-port\nLOG_LEVEL=loud\n',
    })
    assert.equal(await gw.exit, 1)
    assert.match(gw.stderr(), /LOG_LEVEL: "loud" is not one of/)
    assert.doesNotMatch(gw.stderr(), /PORT/)
  })

  it('starts the embedded devnet, answers every printed command as promised, and stops clean on Ctrl-C', async () => {
    const stateDir = join(homedir(), '.foundry', 'anvil', 'tmp')
    const stateBefore = existsSync(stateDir) ? readdirSync(stateDir) : []
    const gw = runGateway({ env: { PORT: '0', HOST: '127.0.0.1' } })
    try {
      await waitFor(
        () => gw.stdout().includes('Press Ctrl-C') || gw.child.exitCode !== null,
        60_000,
        'the devnet banner',
      )
      const out = gw.stdout()
      assert.match(
        out,
        /^No chain is configured and NODE_ENV is not production: starting the embedded devnet \(anvil and a LiteSVM Solana chain\)\.\.\.$/m,
      )
      const baseUrl = /running on its embedded devnet at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!
      const anvilUrl = /Devnet: anvil (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!
      const solanaUrl =
        /Devnet: Solana \(LiteSVM behind a JSON-RPC front\) (http:\/\/127\.0\.0\.1:\d+), chain (solana:\S+)/.exec(
          out,
        )![1]!

      // Each printed command: "# <status> ..." then a curl line; run it as curl would.
      const blocks = [
        ...out.matchAll(
          /^# (\d{3}) .*\ncurl -i -X POST (\S+) -H 'Content-Type: application\/json' -H 'X-Chain-Id: (\S+)'(?: -H 'Authorization: (Bearer \S+)')? -d '(.*)'$/gm,
        ),
      ]
      assert.equal(blocks.length, 24, out)
      const results: number[] = []
      for (const [, expected, url, chainId, authorization, body] of blocks) {
        const headers = {
          'content-type': 'application/json',
          'x-chain-id': chainId!,
          ...(authorization ? { authorization } : {}),
        }
        const res = await fetch(url!, { method: 'POST', headers, body: body! })
        results.push(res.status)
        assert.equal(res.status, Number(expected), `${url} ${body}`)
        assert.ok(res.headers.get('x-erc1066-status'))
        if (url!.endsWith('/intents/execute') && res.status === 200) {
          // The printed "run it twice": the second replays the outcome.
          const again = await fetch(url!, { method: 'POST', headers, body: body! })
          assert.equal(again.status, 200)
          assert.equal(((await again.json()) as { replayed?: boolean }).replayed, true)
        }
      }
      // EVM (account mode's six after the signed execute; the last one keyless: the x402 price), then Solana: the chain ids say which.
      assert.deepEqual(
        results,
        [
          200, 403, 402, 410, 202, 421, 421, 401, 200, 200, 200, 200, 200, 200, 402, 402, 200, 403, 402, 410, 202, 421,
          200, 401,
        ],
      )
      // The printed paid execute, run as printed: the unmodified @x402/fetch client pays and the intent runs.
      const paid = /^node scripts\/payForExecute\.mjs (\S+) (\S+) (\S+) '(.*)'$/m.exec(out)
      assert.ok(paid, out)
      const script = execFileSync(process.execPath, [
        'scripts/payForExecute.mjs',
        paid[1]!,
        paid[2]!,
        paid[3]!,
        paid[4]!,
      ]).toString()
      assert.match(script, /^HTTP 200 0x11$/m)
      assert.match(script, /"success": true/)
      assert.deepEqual([...new Set(blocks.map((b) => b[3]!.split(':')[0]))], ['31337', '8453', 'solana'])
      assert.equal((await fetch(`${baseUrl}/health`)).status, 200)

      gw.child.kill('SIGINT')
      assert.equal(await gw.exit, 0)
      // The node is gone: nothing answers on its port, no anvil process serves it.
      await assert.rejects(fetch(anvilUrl, { method: 'POST', body: '{}' }))
      await assert.rejects(fetch(solanaUrl, { method: 'POST', body: '{}' }), 'the Solana front is gone too')
      const port = new URL(anvilUrl).port
      const ps = execFileSync('ps', ['-eo', 'args']).toString()
      assert.ok(
        !ps.split('\n').some((l) => l.includes('anvil') && l.includes(`--port ${port}`)),
        'no anvil process left',
      )
      const stateAfter = existsSync(stateDir) ? readdirSync(stateDir) : []
      assert.deepEqual(
        stateAfter.filter((d) => !stateBefore.includes(d)),
        [],
        'no anvil state directory left',
      )
    } finally {
      if (gw.child.exitCode === null) gw.child.kill('SIGKILL')
    }
  })
})
