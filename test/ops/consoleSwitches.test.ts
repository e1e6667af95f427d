// The console's switches over HTTP against anvil (one instance, SQLite journal): who may use them
// (an operator's key; never an agent's key, never none: 401/403 and nothing changed), pause and
// resume (execute 503 0x42 chain-paused before anything is claimed, validate still answers, a sent
// intent still replays, resume runs it), drain and undrain, unknown names 404, repeats idempotent,
// every switch journaled with who and when, exported as metrics, documented in OpenAPI.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createPublicClient, type Hex, http } from 'viem'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { opsConfig } from '../../src/config/opsConfig.ts'
import { createGateway, type Gateway } from '../../src/createGateway.ts'
import { hashApiKey } from '../../src/crypto/hashApiKey.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { rawRequest } from '../support/rawRequest.ts'
import { localKey } from '../support/relayerKeys.ts'
import { testConfig } from '../support/testConfig.ts'
import { post, request, signedIntent } from '../support/testGateway.ts'

const opsKey = `ops-${randomBytes(12).toString('hex')}`
const agentKey = `agent-${randomBytes(12).toString('hex')}`
const opsId = hashApiKey(opsKey).toString('hex').slice(0, 8)
const asOps = { authorization: `Bearer ${opsKey}` }
const asAgent = { authorization: `Bearer ${agentKey}` }

let devnet: Devnet
let gateway: Gateway
let base: string
let chainId: string
let nonce = BigInt(`0x${randomBytes(6).toString('hex')}`)

const intent = () => signedIntent(devnet, { nonce: String(nonce++) })

describe('operator console switches', () => {
  before(async () => {
    devnet = await startDevnet()
    chainId = devnet.chain.chainId
    const ops = opsConfig({ OPS_API_KEYS: opsKey, OPS_POLL_MS: '100' }, { production: false }).value
    gateway = await createGateway({
      config: testConfig({
        production: false,
        chains: [devnet.chain],
        keys: { evm: [localKey(devnetAccounts.relayer, 'RELAYER_PRIVATE_KEY')] },
        auth: { keyHashes: [hashApiKey(agentKey)], requireForValidate: false },
        execution: { receiptTimeoutMs: 10_000 },
        rpc: { timeoutMs: 2_000, pollMs: 20 },
        ops,
      } as Parameters<typeof testConfig>[0]),
      logger: createLogger({ level: 'silent' }),
    })
    base = await gateway.app.listen({ host: '127.0.0.1', port: 0 })
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  it("refuses the state and every switch without a key (401) and with an agent's key (403), changing nothing", async () => {
    for (const headers of [{}, asAgent, { authorization: 'Bearer not-a-key-of-anyone-at-all' }]) {
      const state = await request(base, '/ops/state', { headers })
      assert.equal(
        state.status,
        'authorization' in headers && headers.authorization === asAgent.authorization ? 403 : 401,
      )
      for (const path of [`/ops/chains/${chainId}/pause`, `/ops/instances/local/drain`]) {
        const r = await post(base, path, {}, headers)
        assert.equal(r.status, headers === asAgent ? 403 : 401, path)
        assert.match(String(r.headers.get('www-authenticate')), /^Bearer realm="intent-gateway-ops"/)
      }
      const events = await fetch(`${base}/ops/events`, { headers })
      assert.equal(events.status, headers === asAgent ? 403 : 401)
      await events.body?.cancel()
    }
    const state = (await request(base, '/ops/state', { headers: asOps })).body as {
      paused: unknown[]
      drained: unknown[]
      audit: unknown[]
    }
    assert.deepEqual([state.paused, state.drained, state.audit], [[], [], []])
  })

  it('answers 404 naming an unknown chain or instance, and 400 naming a bad action or reason', async () => {
    const chain = await post(base, '/ops/chains/eip155:999999/pause', {}, asOps)
    assert.equal(chain.status, 404)
    const body = chain.body as { errors: Array<{ field: string; message: string }> }
    assert.equal(body.errors[0]!.field, 'chainId')
    assert.match(body.errors[0]!.message, /eip155:999999/)
    const instance = await post(base, '/ops/instances/nobody-here/drain', {}, asOps)
    assert.equal(instance.status, 404)
    assert.match(JSON.stringify(instance.body), /nobody-here/)
    const action = await post(base, `/ops/chains/${chainId}/explode`, {}, asOps)
    assert.equal(action.status, 400)
    assert.match(JSON.stringify(action.body), /action/)
    const reason = await post(base, `/ops/chains/${chainId}/pause`, { reason: 'x'.repeat(500) }, asOps)
    assert.equal(reason.status, 400)
    assert.match(JSON.stringify(reason.body), /reason/)
    const state = (await request(base, '/ops/state', { headers: asOps })).body as {
      paused: unknown[]
      audit: unknown[]
    }
    assert.deepEqual([state.paused, state.audit], [[], []])
  })

  it('pause: execute answers 503 0x42 chain-paused and claims nothing; validate answers; a sent intent replays; resume runs it', async () => {
    const sent = await intent()
    const first = await post(base, '/intents/execute', sent, asAgent)
    assert.equal(first.status, 200, JSON.stringify(first.body))

    const paused = await post(base, `/ops/chains/${chainId}/pause`, { reason: 'incident 42' }, asOps)
    assert.equal(paused.status, 200)
    assert.deepEqual(
      { ...(paused.body as object), since: undefined, auditId: undefined },
      { chainId, paused: true, changed: true, since: undefined, by: `ops:${opsId}`, auditId: undefined },
    )
    const again = await post(base, `/ops/chains/${chainId}/pause`, {}, asOps)
    assert.equal(again.status, 200)
    assert.equal((again.body as { changed: boolean; paused: boolean }).changed, false)
    assert.equal((again.body as { paused: boolean }).paused, true)

    const fresh = await intent()
    const refused = await post(base, '/intents/execute', fresh, asAgent)
    assert.equal(refused.status, 503)
    assert.equal(refused.headers.get('x-erc1066-status'), '0x42')
    assert.equal(refused.headers.get('retry-after'), '30')
    const problem = refused.body as { type: string; intentHash: Hex; chainId: string }
    assert.equal(problem.type, 'urn:intent-gateway:problem:chain-paused')
    assert.equal(problem.chainId, chainId)
    // Nothing claimed: the journal never saw it.
    assert.equal(await gateway.journal.get(problem.intentHash, chainId), undefined)
    // Even without a credential, the answer is the pause (nothing priced, nothing checked).
    assert.equal((await post(base, '/intents/execute', fresh)).status, 503)

    const validate = await post(base, '/intents/validate', fresh, asAgent)
    assert.equal(validate.status, 200, JSON.stringify(validate.body))
    const replay = await post(base, '/intents/execute', sent, asAgent)
    assert.equal(replay.status, 200)
    assert.equal((replay.body as { replayed: boolean }).replayed, true)

    const metrics = await request(base, '/metrics')
    assert.match(metrics.text, new RegExp(`gateway_ops_chain_paused\\{chain="${chainId}"\\} 1`))
    assert.match(metrics.text, /gateway_ops_switches_total\{action="pause"\} 1/)

    const resumed = await post(base, `/ops/chains/${chainId}/resume`, {}, asOps)
    assert.equal(resumed.status, 200)
    assert.equal((resumed.body as { paused: boolean }).paused, false)
    const runs = await post(base, '/intents/execute', fresh, asAgent)
    assert.equal(runs.status, 200, JSON.stringify(runs.body))
    assert.doesNotMatch((await request(base, '/metrics')).text, /gateway_ops_chain_paused\{/)

    const audit = (
      (await request(base, '/ops/state', { headers: asOps })).body as {
        audit: Array<{ actor: string; action: string; target: string; detail?: string }>
      }
    ).audit
    assert.deepEqual(
      audit.map((a) => [a.action, a.target, a.actor, a.detail]),
      [
        ['resume', chainId, `ops:${opsId}`, undefined],
        ['pause', chainId, `ops:${opsId}`, 'incident 42'],
      ],
    )
  })

  it('drain: this instance claims nothing new at once, undrain takes executions again', async () => {
    const me = ((await request(base, '/ops/state', { headers: asOps })).body as { instanceId: string }).instanceId
    const drained = await post(base, `/ops/instances/${me}/drain`, {}, asOps)
    assert.equal(drained.status, 200)
    assert.equal((drained.body as { draining: boolean }).draining, true)
    const body = await intent()
    const refused = await post(base, '/intents/execute', body, asAgent)
    assert.equal(refused.status, 503, JSON.stringify(refused.body))
    assert.equal(await gateway.journal.get((refused.body as { intentHash: Hex }).intentHash, chainId), undefined)
    const state = (await request(base, '/ops/state', { headers: asOps })).body as {
      draining: boolean
      fleet: Array<{ instanceId: string; draining: boolean }>
    }
    assert.equal(state.draining, true)
    assert.equal(state.fleet[0]!.draining, true)
    assert.match((await request(base, '/metrics')).text, /gateway_ops_instance_draining 1/)
    assert.equal((await post(base, `/ops/instances/${me}/undrain`, {}, asOps)).status, 200)
    const runs = await post(base, '/intents/execute', body, asAgent)
    assert.equal(runs.status, 200, JSON.stringify(runs.body))

    // Each relayer key as the chain and this instance see it: its own balance, the nonce this
    // instance will send next and the one mined on chain (equal once the execute above is mined),
    // and the chain's head block.
    type KeyView = { address: string; held: boolean; balance?: string; nonce?: number; onChainNonce?: number }
    const after = (await request(base, '/ops/state', { headers: asOps })).body as {
      chains: Array<{ chainId: string; headBlock?: string; relayers: KeyView[] }>
    }
    const chain = after.chains.find((c) => c.chainId === chainId)!
    const client = createPublicClient({ transport: http(devnet.chain.rpcUrls[0]) })
    const head = await client.getBlockNumber()
    assert.ok(
      chain.headBlock !== undefined && BigInt(chain.headBlock) <= head && BigInt(chain.headBlock) > 0n,
      JSON.stringify(chain),
    )
    const sender = chain.relayers.find((r) => r.nonce !== undefined)
    assert.ok(sender, JSON.stringify(chain.relayers))
    const mined = await client.getTransactionCount({ address: sender.address as Hex, blockTag: 'latest' })
    assert.equal(sender.onChainNonce, mined)
    assert.equal(sender.nonce, mined, 'nothing of this key is in flight: the next nonce is the mined count')
    assert.equal(BigInt(sender.balance!), await client.getBalance({ address: sender.address as Hex }))
  })

  it('retries a stuck transaction now with a fee bump (journaled first); 404 names an unknown one; an agent cannot', async () => {
    const rpcUrl = devnet.anvil.rpcUrl
    const rpc = (method: string, params: unknown[] = []) =>
      fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }).then((r) => r.json())
    const unknown = `0x${'ab'.repeat(32)}`
    const missing = await post(base, `/ops/transactions/${unknown}/retry`, {}, asOps)
    assert.equal(missing.status, 404)
    assert.equal(
      (missing.body as { errors: Array<{ field: string; message: string }> }).errors[0]!.field,
      'transactionId',
    )
    assert.match(JSON.stringify(missing.body), new RegExp(unknown))
    await rpc('evm_setAutomine', [false])
    try {
      const answer = post(base, '/intents/execute', await intent(), asAgent)
      const stuck = await (async () => {
        for (let i = 0; i < 100; i++) {
          const [record] = await gateway.journal.pending({ chainId })
          if (record?.transaction) return record
          await new Promise((r) => setTimeout(r, 50))
        }
        throw new Error('nothing went pending')
      })()
      const txId = stuck.transaction!.id
      // A fee spike: the next block's base fee is above what the transaction offers, so it stays out.
      await rpc('anvil_setNextBlockBaseFeePerGas', ['0x12a05f200'])
      await rpc('evm_mine')
      assert.equal((await post(base, `/ops/transactions/${txId}/retry`, {}, asAgent)).status, 403)
      const retried = await post(base, `/ops/transactions/${txId}/retry`, { reason: 'stuck behind a fee spike' }, asOps)
      assert.equal(retried.status, 200, JSON.stringify(retried.body))
      const body = retried.body as { retried: boolean; replacement: string; attempt: number }
      assert.equal(body.retried, true)
      assert.notEqual(body.replacement, txId)
      assert.equal(body.attempt, stuck.attempt + 1)
      const [live] = await gateway.journal.pending({ chainId })
      assert.equal(live?.transaction?.id, body.replacement)
      const audit = (
        (await request(base, '/ops/state', { headers: asOps })).body as {
          audit: Array<{ action: string; target: string; detail?: string }>
        }
      ).audit
      assert.deepEqual(
        [audit[0]!.action, audit[0]!.target, audit[0]!.detail],
        ['retry', txId, 'stuck behind a fee spike'],
      )
      await rpc('evm_mine')
      assert.ok([200, 202].includes((await answer).status))
    } finally {
      await rpc('evm_setAutomine', [true])
    }
  })

  it('serves the page with its CSP, behind the Host check, and documents the switches in OpenAPI', async () => {
    const page = await fetch(`${base}/ops`)
    assert.equal(page.status, 200)
    assert.equal(
      page.headers.get('content-security-policy'),
      "default-src 'self'; script-src 'self'; frame-ancestors 'none'",
    )
    const html = await page.text()
    assert.doesNotMatch(html, /<script>|<style>| style=|https?:\/\//)
    // DNS rebinding: a page on another name pointed at this address.
    const foreign = await rawRequest(
      base,
      `GET /ops/state HTTP/1.1\r\nHost: attacker.example\r\nAuthorization: Bearer ${opsKey}\r\nConnection: close\r\n\r\n`,
    )
    assert.equal(foreign.status, 403)
    const cross = await fetch(`${base}/ops/state`, { headers: { ...asOps, origin: 'https://attacker.example' } })
    assert.equal(cross.status, 403)
    const doc = (await request(base, '/openapi.json')).body as {
      paths: Record<string, Record<string, { security?: unknown }>>
      components: { securitySchemes: Record<string, unknown> }
    }
    assert.ok(doc.paths['/ops/chains/{chainId}/{action}']?.post?.security)
    assert.ok(doc.paths['/ops/instances/{instanceId}/{action}']?.post)
    assert.ok(doc.paths['/ops/state']?.get)
    assert.ok(doc.components.securitySchemes.opsKey)
  })
})
