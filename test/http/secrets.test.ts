// No secrets out: the real gateway process in production mode, with a relayer key, an API key and
// an RPC URL carrying credentials, is driven through success and failure paths; then every
// response (body and headers) and every line it printed is searched for each secret.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { runGateway, waitFor } from '../support/runGateway.ts'
import { type HttpResult, post, request, rpc, signedIntent } from '../support/testGateway.ts'

const dir = mkdtempSync(join(tmpdir(), 'secrets-test-'))
after(() => rmSync(dir, { recursive: true, force: true }))

describe('secrets', () => {
  it('never puts the relayer key, an API key or RPC credentials into a response or a log line', async () => {
    const devnet = await startDevnet()
    const relayerKey = generatePrivateKey()
    const relayer = privateKeyToAccount(relayerKey).address
    const apiKey = `agent-key-${generatePrivateKey().slice(2, 34)}`
    const rpcPassword = 'pa55w0rd-s3cret'
    const rpcQuery = 'qu3ry-s3cret'
    const rpcUrl = `${devnet.anvil.rpcUrl.replace('http://', `http://ops:${rpcPassword}@`)}/?key=${rpcQuery}`
    const secrets = [relayerKey, relayerKey.slice(2), apiKey, rpcPassword, rpcQuery]
    await rpc(devnet.anvil.rpcUrl, 'anvil_setBalance', [relayer, '0xDE0B6B3A7640000'])

    const on = (value: string) => JSON.stringify({ 31337: value })
    const gw = runGateway({
      env: {
        NODE_ENV: 'production',
        LOG_LEVEL: 'debug',
        HOST: '127.0.0.1',
        PORT: '0',
        EXECUTOR_ADDRESSES: on(devnet.contracts.executor),
        VALIDATOR_ADDRESSES: on(devnet.contracts.validator),
        REGISTRY_ADDRESSES: on(devnet.contracts.registry),
        RPC_URLS: on(rpcUrl),
        RELAYER_PRIVATE_KEY: relayerKey,
        API_KEYS: apiKey,
        JOURNAL_PATH: join(dir, 'journal.sqlite'),
        PUBLIC_URL: 'https://gateway.example',
      },
    })
    const responses: HttpResult[] = []
    try {
      const listening = /listening on 127\.0\.0\.1:(\d+)/
      await waitFor(() => listening.test(gw.stdout()) || gw.child.exitCode !== null, 60_000, 'the gateway to listen')
      const baseUrl = `http://127.0.0.1:${listening.exec(gw.stdout())?.[1] ?? assert.fail(gw.stderr())}`
      const call = async (res: Promise<HttpResult>, expected: number) => {
        const r = await res
        responses.push(r)
        assert.equal(r.status, expected, r.text)
        return r
      }
      const chain = { 'x-chain-id': '31337' }
      const auth = { ...chain, authorization: `Bearer ${apiKey}` }
      const intent = await signedIntent(devnet, { nonce: '5' })

      await call(post(baseUrl, '/intents/validate', intent, chain), 200)
      await call(post(baseUrl, '/intents/execute', intent, chain), 401)
      await call(post(baseUrl, '/intents/execute', intent, { ...chain, authorization: `Bearer ${apiKey}x` }), 401)
      const done = await call(post(baseUrl, '/intents/execute', intent, auth), 200)
      await call(post(baseUrl, '/intents/execute', intent, auth), 200)
      await call(request(baseUrl, `/intents/${done.body.intentHash}`), 200)
      await call(post(baseUrl, '/intents/execute', { ...intent, sender: 'not an address' }, auth), 400)
      await call(post(baseUrl, '/intents/validate', intent, { 'x-chain-id': '8453' }), 421)
      for (const path of ['/chains', '/chains/31337', '/health', '/health/ready', '/status-codes'])
        await call(request(baseUrl, path), 200)
      // A relayer failure logs the node's error in full.
      await rpc(devnet.anvil.rpcUrl, 'anvil_setBalance', [relayer, '0x0'])
      await call(post(baseUrl, '/intents/execute', await signedIntent(devnet, { nonce: '6' }), auth), 502)

      gw.child.kill('SIGTERM')
      assert.equal(await gw.exit, 0)
      assert.match(gw.stdout(), /"msg":"request"/, 'the run was logged')
      for (const secret of secrets) {
        for (const r of responses) {
          assert.ok(!r.text.includes(secret), `a response body leaked a secret: ${r.text.slice(0, 200)}`)
          assert.ok(![...r.headers.values()].some((v) => v.includes(secret)), 'a response header leaked a secret')
        }
        assert.ok(!gw.stdout().includes(secret), 'the logs leaked a secret')
        assert.ok(!gw.stderr().includes(secret), 'stderr leaked a secret')
      }
    } finally {
      if (gw.child.exitCode === null) gw.child.kill('SIGKILL')
      await devnet.stop()
    }
  })
})
