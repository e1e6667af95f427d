// Every way a request can be wrong: a 4xx problem-details answer naming what is wrong, with the
// common headers, and nothing sent to the chain.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { keccak256, stringToHex, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { rawRequest } from '../support/rawRequest.ts'
import {
  demoIntent,
  type HttpResult,
  post,
  request,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

const relayer = privateKeyToAccount(devnetAccounts.relayer).address

describe('bad input', () => {
  let world: World
  let small: TestGateway
  let relayerNonceAtStart: number

  before(async () => {
    world = await startWorld()
    small = await startTestGateway({ chains: [world.devnet.chain], bodyLimit: 2048 })
    relayerNonceAtStart = await world.clients.publicClient.getTransactionCount({
      address: relayer,
      blockTag: 'pending',
    })
  })
  after(async () => {
    // Nothing any of these requests did reached the chain.
    if (world)
      assert.equal(
        await world.clients.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' }),
        relayerNonceAtStart,
      )
    await small?.close()
    await world?.stop()
  })

  function assertProblem(
    res: HttpResult,
    httpStatus: number,
    code: string,
    errors?: Array<{ field: string; message: string | RegExp }>,
  ) {
    assert.equal(res.status, httpStatus, res.text)
    assertCommonHeaders(res, { status: code })
    assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    assert.equal(res.body.status, httpStatus)
    assert.equal(res.body.erc1066Status, code)
    assert.equal(typeof res.body.title, 'string')
    assert.equal(typeof res.body.detail, 'string')
    assert.ok(!/at .*\.ts:\d+/.test(res.text), 'no stack trace')
    if (errors) {
      assert.equal(res.body.errors.length, errors.length, JSON.stringify(res.body.errors))
      errors.forEach((e, i) => {
        assert.equal(res.body.errors[i].field, e.field)
        if (typeof e.message === 'string') assert.equal(res.body.errors[i].message, e.message)
        else assert.match(res.body.errors[i].message, e.message)
      })
    }
  }

  for (const path of ['/intents/validate', '/intents/execute']) {
    describe(path, () => {
      const send = (body: unknown, headers?: Record<string, string>) => post(world.gateway.baseUrl, path, body, headers)
      const withField = (field: string, value: unknown) => demoIntent(world.devnet, { [field]: value })

      it('refuses malformed JSON, hashing the raw bytes', async () => {
        const raw = '{"sender": "0x12",'
        const res = await send(raw)
        assertProblem(res, 400, '0xA0', [{ field: 'body', message: /JSON/ }])
        assert.equal(res.body.title, 'The request body is not valid JSON')
        assert.equal(res.headers.get('x-intent-hash'), keccak256(stringToHex(raw)))
      })

      it('refuses an empty body and a body that is not an object', async () => {
        const empty = await fetch(`${world.gateway.baseUrl}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        })
        const emptyRes = { status: empty.status, headers: empty.headers, text: await empty.text() } as HttpResult
        emptyRes.body = JSON.parse(emptyRes.text)
        assertProblem(emptyRes, 400, '0xA0', [{ field: 'body', message: 'must be a JSON object' }])
        assert.equal(emptyRes.headers.get('x-intent-hash'), keccak256('0x'))
        for (const body of ['[]', '"intent"', '42', 'null'])
          assertProblem(await send(body), 400, '0xA0', [{ field: 'body', message: 'must be a JSON object' }])
      })

      it('names every missing field at once', async () => {
        const res = await send({})
        assertProblem(res, 400, '0xA0')
        assert.deepEqual(res.body.errors.map((e: { field: string }) => e.field).sort(), [
          'data',
          'nonce',
          'policyId',
          'sender',
          'target',
          'value',
        ])
        assert.ok(res.body.errors.every((e: { message: string }) => e.message === 'is required'))
      })

      it('refuses unknown fields, naming them: a typo never turns into "no bound"', async () => {
        const { validBefore, ...rest } = demoIntent(world.devnet, {}) as Record<string, unknown>
        void validBefore
        const res = await send({ ...rest, validBfore: '1' })
        assertProblem(res, 400, '0xA0', [
          {
            field: 'validBfore',
            message:
              /^is not a known field \(the fields are: sender, target, data, value, calls, nonce, validAfter, validBefore, policyId, accounts, chainType, mode, authorization, signature\)$/,
          },
        ])
      })

      it('refuses account metas on an EVM chain, and names a bad field inside one', async () => {
        const meta = { address: '0x00000000000000000000000000000000000000aa', signer: false, writable: true }
        assertProblem(await send(withField('accounts', [meta])), 400, '0xA0', [
          {
            field: 'accounts',
            message:
              "must be absent or empty on EVM chains: only Solana intents carry the target instruction's account metas",
          },
        ])
        assertProblem(await send(withField('accounts', [{ ...meta, writeable: true }])), 400, '0xA0', [
          {
            field: 'accounts[0].writeable',
            message: 'is not a known field (an account meta has: address, signer, writable)',
          },
        ])
      })

      it('refuses wrong types without coercing them', async () => {
        assertProblem(await send(withField('value', 5)), 400, '0xA0', [
          { field: 'value', message: 'must be a string (integers are written as decimal strings, e.g. "1000")' },
        ])
        assertProblem(await send(withField('nonce', true)), 400, '0xA0', [
          { field: 'nonce', message: /^must be a string/ },
        ])
        assertProblem(await send(withField('sender', { a: 1 })), 400, '0xA0', [
          { field: 'sender', message: 'must be a string' },
        ])
        assertProblem(await send(withField('data', null)), 400, '0xA0', [
          { field: 'data', message: 'must be a string' },
        ])
      })

      it('refuses numbers that are not plain decimal, or do not fit in 256 bits', async () => {
        for (const value of ['-1', '+1', '1.5', '1e18', '0x10', ' 1', '', '١']) {
          assertProblem(await send(withField('value', value)), 400, '0xA0', [
            {
              field: 'value',
              message:
                /^must be native value to send with the call, in the smallest unit \(wei\): an integer from 0 to 2\^256-1 written in decimal/,
            },
          ])
        }
        assertProblem(await send(withField('nonce', (2n ** 256n).toString())), 400, '0xA0', [
          { field: 'nonce', message: 'must be below 2^256' },
        ])
        assertProblem(await send(withField('validBefore', '9'.repeat(100))), 400, '0xA0', [
          { field: 'validBefore', message: 'must be below 2^256' },
        ])
      })

      it('refuses bad addresses, bad checksums, bad hex data and a bad policy id', async () => {
        assertProblem(await send(withField('sender', '0x1234')), 400, '0xA0', [
          { field: 'sender', message: 'must be an address: 0x followed by 40 hex digits' },
        ])
        assertProblem(await send(withField('target', 'cf7ed3acca5a467e9e704c703e8d87f634fb0fc9')), 400, '0xA0', [
          { field: 'target', message: 'must be an address: 0x followed by 40 hex digits' },
        ])
        const badChecksum = world.devnet.demo.sender.replace(/[a-f]/, (c) => c.toUpperCase())
        assert.notEqual(badChecksum, world.devnet.demo.sender)
        assertProblem(await send(withField('sender', badChecksum)), 400, '0xA0', [
          { field: 'sender', message: 'has mixed case but is not a valid EIP-55 checksum' },
        ])
        for (const data of ['0x123', '0xzz', '1234', 'nothex']) {
          assertProblem(await send(withField('data', data)), 400, '0xA0', [
            {
              field: 'data',
              message: 'must be call data: 0x followed by an even number of hex digits ("0x" is empty)',
            },
          ])
        }
        for (const policyId of ['0x12', `0x${'g'.repeat(64)}`, `0x${'1'.repeat(66)}`]) {
          assertProblem(await send(withField('policyId', policyId)), 400, '0xA0', [
            { field: 'policyId', message: 'must be the policy the intent runs under: 0x + 64 hex digits (bytes32)' },
          ])
        }
      })

      it('refuses a signature that is not hex bytes, or is too long', async () => {
        for (const signature of ['0x', '0x123', 'abcd', `0x${'zz'.repeat(65)}`, `0x${'ab'.repeat(4097)}`]) {
          assertProblem(await send(withField('signature', signature)), 400, '0xA0', [
            {
              field: 'signature',
              message:
                /^must be the sender's \(or a delegate's\) signature of the intent|^must be at most 8194 characters/,
            },
          ])
        }
        assertProblem(await send(withField('signature', 65)), 400, '0xA0', [
          { field: 'signature', message: 'must be a string' },
        ])
      })

      it('refuses a chainType that does not match the chain', async () => {
        assertProblem(await send(withField('chainType', 'solana')), 400, '0xA0', [
          { field: 'chainType', message: 'is solana but chain eip155:31337 is evm' },
        ])
        assertProblem(await send(withField('chainType', 'bitcoin')), 400, '0xA0', [
          { field: 'chainType', message: 'must be one of evm, solana, sui' },
        ])
        if (path.endsWith('validate')) assert.equal((await send(withField('chainType', 'evm'))).status, 200)
      })

      it('refuses a malformed X-Chain-Id, echoing it safely', async () => {
        const res = await send(demoIntent(world.devnet), { 'x-chain-id': 'base sepolia' })
        assert.equal(res.status, 400)
        assertCommonHeaders(res, { status: '0xA0', chainId: 'basesepolia', chainType: '' })
        assert.deepEqual(res.body.errors, [
          {
            field: 'X-Chain-Id',
            message:
              '"base sepolia" is not a chain id: use an EVM chain id in decimal (84532) or CAIP-2 (eip155:84532)',
          },
        ])
      })

      it('refuses content types other than JSON with 415', async () => {
        const res = await request(world.gateway.baseUrl, path, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify(demoIntent(world.devnet)),
        })
        assertProblem(res, 415, '0xA0', [
          { field: 'Content-Type', message: 'text/plain is not supported; send application/json' },
        ])
        const none = await request(world.gateway.baseUrl, path, {
          method: 'POST',
          body: new Blob([JSON.stringify(demoIntent(world.devnet))]),
        })
        assertProblem(none, 415, '0xA0')
      })

      it('refuses a body over the limit with 413', async () => {
        const res = await post(small.baseUrl, path, demoIntent(world.devnet, { data: toHex(new Uint8Array(4096)) }))
        assertProblem(res, 413, '0xA0', [{ field: 'body', message: /too large/i }])
      })

      it('refuses prototype-poisoning keys, nested or escaped too', async () => {
        for (const body of [
          '{"__proto__": {"polluted": true}, "sender": "0x0"}',
          '{"sender": "0x0", "target": {"a": [{"__proto__": {"polluted": true}}]}}',
          '{"\\u005f_proto__": {"polluted": true}}',
          '{"constructor": {"prototype": {"polluted": true}}}',
          '\ufeff{"__proto__": {"polluted": true}}',
        ]) {
          const res = await send(body)
          assertProblem(res, 400, '0xA0', [{ field: 'body', message: /prototype/i }])
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined)
      })
    })
  }

  it('answers 404 (0xA1) for an unknown route and 405 (0xA1) with Allow for a wrong method, with the common headers', async () => {
    const missing = await request(world.gateway.baseUrl, '/intent/validate?x=1')
    assertProblem(missing, 404, '0xA1')
    assert.equal(missing.body.detail, 'GET /intent/validate is not a route of this gateway')

    const notAHash = await request(world.gateway.baseUrl, '/intents/validat')
    assertProblem(notAHash, 400, '0xA0', [
      { field: 'intentHash', message: 'must be the X-Intent-Hash of an execute request: 0x + 64 hex digits' },
    ])

    const wrong = await request(world.gateway.baseUrl, '/intents/validate')
    assertProblem(wrong, 405, '0xA1', [
      { field: 'method', message: 'GET is not supported on /intents/validate; use POST' },
    ])
    assert.equal(wrong.headers.get('allow'), 'POST')

    const del = await request(world.gateway.baseUrl, '/health', { method: 'DELETE' })
    assertProblem(del, 405, '0xA1')
    assert.equal(del.headers.get('allow'), 'GET, HEAD')

    // The 405 table comes from the routes registered (app.ts): the account route, which the
    // hand-kept table of before left out (a 404), answers it too.
    const account = await request(world.gateway.baseUrl, `/accounts/${'0x'.padEnd(42, '1')}`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    })
    assertProblem(account, 405, '0xA1')
    assert.equal(account.headers.get('allow'), 'GET, HEAD')
  })

  it('answers a path the router cannot read (bad percent-encoding, an over-long parameter) with a problem and the common headers, never echoing it', async () => {
    const badEncoding = await request(world.gateway.baseUrl, '/intents/%zz', { headers: { 'x-chain-id': '31337' } })
    assertProblem(badEncoding, 400, '0xA0', [{ field: 'path', message: 'is not valid percent-encoding' }])
    assert.ok(!badEncoding.text.includes('%zz'), badEncoding.text)

    const longId = '1'.repeat(120)
    const tooLong = await request(world.gateway.baseUrl, `/chains/${longId}`)
    assertProblem(tooLong, 414, '0xA0', [{ field: 'path', message: 'has a segment longer than 100 characters' }])
    assert.ok(!tooLong.text.includes(longId), tooLong.text)
    for (const res of [badEncoding, tooLong]) assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
  })

  it('answers requests Node cannot parse (malformed, oversized headers) with a problem and the common headers', async () => {
    const raw = (head: string) => rawRequest(world.gateway.baseUrl, head)
    const malformed = await raw('GET /health HTTP/1.1\r\nHost: x\r\nthis is not a header\r\n\r\n')
    assertProblem(malformed, 400, '0xA0')
    assert.equal(malformed.headers.get('connection'), 'close')
    const oversized = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    assertProblem(oversized, 431, '0xA0')
  })

  it('never echoes header values that could break a response', async () => {
    const res = await post(world.gateway.baseUrl, '/intents/validate', demoIntent(world.devnet), {
      'x-chain-id': 'x'.repeat(500),
    })
    assert.equal(res.status, 400)
    assert.equal(res.headers.get('x-chain-id'), 'x'.repeat(64))
  })
})
