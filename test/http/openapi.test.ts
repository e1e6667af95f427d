// GET /openapi.json and GET /docs against a real gateway on anvil: the document is valid OpenAPI
// 3.1 and names every route the app serves; the answers serialized through the route schemas keep
// every field (whole bodies asserted); the docs page renders the operations in headless Chromium.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { Validator } from '@seriousme/openapi-schema-validator'
import { parseEther } from 'viem'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { readOAuthConfig } from '../../src/config/oauthConfig.ts'
import { getStatusCode, Status } from '../../src/status/statusCodes.ts'
import { statusVocabulary } from '../../src/status/statusVocabulary.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { expectedSigning } from '../support/expectedSigning.ts'
import {
  demoIntent,
  post,
  request,
  signIntent,
  startTestGateway,
  startWorld,
  type World,
} from '../support/testGateway.ts'

const commonHeaders = [
  'X-Request-Id',
  'X-ERC1066-Status',
  'X-Status-Code',
  'X-Intent-Hash',
  'X-Chain-Type',
  'X-Chain-Id',
  'X-Payment-Required',
]
const chainId = 'eip155:31337'

/** The outcome fields every body carries for a code (docs/api-contract.md §5). */
function outcome(code: number, intentHash: string | null) {
  const entry = getStatusCode(code)
  return {
    erc1066Status: entry.hex,
    statusName: entry.statusName,
    description: entry.description,
    intentHash,
    chainType: 'evm',
    chainId,
  }
}

/** A problem body: RFC 9457 members and the outcome fields. */
function problem(code: number, intentHash: string | null, httpStatus: number, title: string, detail: string) {
  const entry = getStatusCode(code)
  return {
    type: `urn:intent-gateway:problem:${entry.statusName.toLowerCase().replace(/_/g, '-')}`,
    title,
    status: httpStatus,
    detail,
    ...outcome(code, intentHash),
  }
}

/**
 * Every route Fastify serves, as "METHOD /path", read from the router's own listing (the tree
 * printRoutes draws, one node per line, methods in parentheses).
 */
function listRoutes(tree: string): string[] {
  const routes: string[] = []
  const stack: string[] = []
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line)
    if (!match) continue
    const depth = match[1]!.length / 4
    stack.length = depth
    stack.push(match[2]!)
    const path = stack.join('')
    for (const method of match[3]?.split(', ') ?? []) routes.push(`${method} ${path}`)
  }
  return routes
}

describe('OpenAPI document and docs page', () => {
  let world: World
  let doc: any
  const validate = (body: unknown, headers: Record<string, string> = {}) =>
    post(world.gateway.baseUrl, '/intents/validate', body, headers)
  const execute = (body: unknown, headers: Record<string, string> = {}) =>
    post(world.gateway.baseUrl, '/intents/execute', body, headers)

  before(async () => {
    world = await startWorld()
    const res = await request(world.gateway.baseUrl, '/openapi.json')
    assert.equal(res.status, 200, res.text)
    doc = res.body
  })
  after(async () => {
    await world?.stop()
  })

  it('serves an OpenAPI 3.1 document that a validator accepts, with the common headers', async () => {
    const res = await request(world.gateway.baseUrl, '/openapi.json')
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/)
    assertCommonHeaders(res, { status: '0x01' })
    assert.equal(doc.openapi, '3.1.0')
    const validator = new Validator()
    const result = await validator.validate(doc)
    assert.deepEqual(result.errors, undefined, JSON.stringify(result.errors, null, 1)?.slice(0, 2000))
    assert.equal(result.valid, true)
    assert.equal(validator.version, '3.1')
  })

  it('with API keys and a rate limit: the document and the page need no key and are never limited; execute documents its key', async () => {
    const gateway = await startTestGateway({
      chains: [world.devnet.chain],
      auth: { keyHashes: [hashApiKey('a-test-key-of-enough-length-0001')], requireForValidate: false },
      rateLimit: { max: 1, windowMs: 60_000 },
    })
    try {
      for (let i = 0; i < 3; i++) {
        for (const path of ['/openapi.json', '/docs', '/docs/static/swagger-ui-bundle.js']) {
          const res = await request(gateway.baseUrl, path)
          assert.equal(res.status, 200, `${path} #${i}`)
          assertCommonHeaders(res, { status: '0x01' })
        }
      }
      // The limit is on: the intent routes are limited as before.
      assert.equal((await request(gateway.baseUrl, '/intents/validate', { method: 'POST' })).status, 400)
      assert.equal((await request(gateway.baseUrl, '/intents/validate', { method: 'POST' })).status, 429)
      const keyed = (await request(gateway.baseUrl, '/openapi.json')).body
      assert.equal((await new Validator().validate(keyed)).valid, true)
      assert.deepEqual(keyed.paths['/intents/execute'].post.security, [{ apiKey: [] }])
      assert.deepEqual(keyed.paths['/intents/validate'].post.security, [{ apiKey: [] }, {}])
      assert.deepEqual(keyed.paths['/mcp'].post.security, [{ apiKey: [] }, {}])
      // Public routes say so (security: []), rather than leaving readers and linters to guess.
      for (const path of [
        '/health',
        '/health/ready',
        '/status-codes',
        '/chains',
        '/chains/{chainId}',
        '/openapi.json',
        '/intents/{intentHash}',
      ]) {
        assert.deepEqual(keyed.paths[path].get.security, [], path)
      }
      assert.deepEqual(Object.keys(keyed.components.securitySchemes), ['apiKey'])
      assert.deepEqual(keyed.components.securitySchemes.apiKey, {
        type: 'http',
        scheme: 'bearer',
        description: keyed.components.securitySchemes.apiKey.description,
      })
    } finally {
      await gateway.close()
    }
    // Without keys configured, no operation asks for one, and no scheme is declared unused.
    assert.deepEqual(doc.paths['/intents/execute'].post.security, [])
    assert.equal(doc.components.securitySchemes, undefined)
  })

  it('carries the one status vocabulary (x-status-vocabulary): every code with its HTTP status, task state, x402 word and relayer_* code', () => {
    const vocabulary = doc['x-status-vocabulary']
    assert.ok(vocabulary, 'the document has x-status-vocabulary')
    assert.deepEqual(
      vocabulary.relayerStatusCodes,
      Object.fromEntries(Object.entries(statusVocabulary.relayerMeanings)),
    )
    const byCode = new Map<string, Record<string, unknown>>(
      vocabulary.codes.map((row: Record<string, unknown>) => [row.code, row]),
    )
    for (const code of Object.values(Status)) {
      const entry = getStatusCode(code)
      const row = byCode.get(entry.hex)
      const words = statusVocabulary.row(code)!
      assert.ok(row, `${entry.hex} has a row`)
      assert.equal(row.httpStatus, entry.httpStatus, entry.hex)
      assert.equal(row.statusName, entry.statusName, entry.hex)
      assert.equal(row.taskState, words.taskState, entry.hex)
      assert.equal(row.relayerStatus, words.relayer, entry.hex)
      assert.equal(row.x402Settlement, words.x402, entry.hex)
    }
    assert.deepEqual(
      vocabulary.executionStates.map(
        (s: { state: string; taskState: string; relayerStatus: number }) =>
          `${s.state}:${s.taskState}:${s.relayerStatus}`,
      ),
      statusVocabulary.executionStates.map((s) => `${s.state}:${s.taskState}:${s.relayer}`),
    )
  })

  it("with OAUTH_ISSUER: an oauth2 scheme naming the issuer's metadata, beside the API key on every operation that takes one, with its scope", async () => {
    const issuer = 'https://issuer.example/tenant-1'
    const oauth = readOAuthConfig(
      { OAUTH_ISSUER: issuer, OAUTH_AUDIENCE: 'https://gateway.example' },
      { production: false, publicUrl: undefined },
    ).value!
    const gateway = await startTestGateway({
      chains: [world.devnet.chain],
      auth: { keyHashes: [hashApiKey('a-test-key-of-enough-length-0002')], requireForValidate: false },
      oauth,
    })
    try {
      const document = (await request(gateway.baseUrl, '/openapi.json')).body
      const result = await new Validator().validate(document)
      assert.deepEqual(result.errors, undefined, JSON.stringify(result.errors, null, 1)?.slice(0, 2000))
      assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['apiKey', 'oauth2'])
      const scheme = document.components.securitySchemes.oauth2
      assert.equal(scheme.type, 'openIdConnect')
      assert.equal(scheme.openIdConnectUrl, 'https://issuer.example/.well-known/oauth-authorization-server/tenant-1')
      assert.deepEqual(document.paths['/intents/execute'].post.security, [
        { apiKey: [] },
        { oauth2: ['intents:execute'] },
      ])
      assert.deepEqual(document.paths['/intents/validate'].post.security, [
        { apiKey: [] },
        { oauth2: ['intents:validate'] },
        {},
      ])
      // With OAuth on, /mcp needs a credential (an MCP host starts its OAuth flow on its 401).
      assert.deepEqual(document.paths['/mcp'].post.security, [{ apiKey: [] }, { oauth2: [] }])
      assert.deepEqual(document.paths['/intents/{intentHash}'].get.security, [])
    } finally {
      await gateway.close()
    }
    assert.equal(doc.components.securitySchemes, undefined, 'without OAuth or keys: no scheme')
  })

  it('documents every route the app serves (the others answer 405), and nothing it does not serve', async () => {
    const routes = listRoutes(world.gateway.app.printRoutes({ commonPrefix: false }))
    assert.ok(routes.includes('POST /intents/execute') && routes.includes('GET /docs'), routes.join('\n'))
    const documented = new Set(
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      ),
    )
    const concrete = (path: string) => path.replace(':intentHash', `0x${'ab'.repeat(32)}`).replace(':chainId', chainId)
    let checked = 0
    for (const route of routes) {
      const [method, path] = route.split(' ') as [string, string]
      // Swagger UI's page and files; HEAD, which Fastify adds to every GET.
      if (path === '/docs' || path.startsWith('/docs/') || method === 'HEAD') continue
      if (documented.has(route)) {
        documented.delete(route)
        continue
      }
      // Not documented: must be one of the 405 answers for a method a path does not serve.
      const res = await request(world.gateway.baseUrl, concrete(path), { method })
      assert.equal(res.status, 405, `${route} is served but not in /openapi.json`)
      assert.ok(doc.paths[path.replace(/:(\w+)/g, '{$1}')], `${route}: its path is not in /openapi.json`)
      checked++
    }
    assert.deepEqual([...documented], [], 'documented but not served')
    assert.ok(checked > 0)
    for (const path of [
      '/intents/validate',
      '/intents/execute',
      '/intents/{intentHash}',
      '/health',
      '/health/ready',
      '/status-codes',
      '/chains',
      '/chains/{chainId}',
      '/openapi.json',
      '/mcp',
    ]) {
      assert.ok(doc.paths[path], path)
    }
  })

  /** A schema, or the components schema its $ref names. */
  const resolve = (schema: any) =>
    schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema

  it('documents execute: the intent body with signature, the request headers, every status with its body and headers', () => {
    const op = doc.paths['/intents/execute'].post
    const body = op.requestBody.content['application/json'].schema
    assert.deepEqual(body.required, ['sender', 'nonce', 'policyId'])
    // target, data and value unless a batch's `calls` replaces them (account mode).
    assert.deepEqual(body.then.required, ['target', 'data', 'value'])
    assert.deepEqual(body.if, { properties: { calls: false } })
    assert.equal(body.additionalProperties, false)
    for (const field of [
      'sender',
      'target',
      'data',
      'value',
      'nonce',
      'validAfter',
      'validBefore',
      'policyId',
      'chainType',
      'signature',
    ])
      assert.ok(body.properties[field], field)
    const parameters = Object.fromEntries(op.parameters.map((p: any) => [p.name, p]))
    assert.equal(parameters['x-chain-id'].in, 'header')
    assert.match(
      parameters['payment-signature'].description,
      /^x402 v2: the base64 JSON PaymentPayload that pays the gateway/,
    )
    for (const status of ['200', '202', '400', '401', '402', '403', '409', '421', '422', '429', '503']) {
      const response = op.responses[status]
      assert.ok(response, status)
      for (const header of commonHeaders) assert.ok(response.headers?.[header], `${status} ${header}`)
      const media = Number(status) < 400 ? 'application/json' : 'application/problem+json'
      const schema = resolve(response.content[media].schema)
      assert.ok(schema.properties, `${status} ${media}`)
      assert.equal(schema.additionalProperties, true, `${status} is open-ended`)
    }
    assert.ok(op.responses['202'].headers.Location)
    assert.ok(op.responses['402'].headers['PAYMENT-REQUIRED'])
    assert.ok(op.responses['429'].headers['Retry-After'])
    assert.ok(op.responses['503'].headers['Retry-After'])
    const problemProps = resolve(op.responses['401'].content['application/problem+json'].schema).properties
    for (const open of ['signing', 'paymentRequired']) assert.equal(problemProps[open].additionalProperties, true, open)
    assert.equal(problemProps.errors.items.additionalProperties, true)
    assert.equal(op.responses['200'].content['application/json'].examples.example1.value.status, '0x01')
    assert.deepEqual(Object.keys(doc.components.schemas).sort(), ['Outcome', 'Problem'])
    assert.equal(
      doc.paths['/intents/validate'].post.responses['402'].headers['X-Payment-Required'].schema.enum.join(),
      'true,false',
    )
  })

  it("documents 401 with `signing` and 402 in both shapes (the chain's 0x54, the gateway's 0x55 price) by examples", () => {
    for (const path of ['/intents/validate', '/intents/execute']) {
      const responses = doc.paths[path].post.responses
      const unauthorized = Object.values(responses['401'].content['application/problem+json'].examples).map(
        (e: any) => e.value,
      )
      assert.deepEqual(
        unauthorized.map((v: any) => v.erc1066Status),
        ['0xE5', '0xE4'],
      )
      const signing = unauthorized[0].signing
      assert.deepEqual(Object.keys(signing), ['domain', 'types', 'primaryType', 'message'])
      assert.deepEqual(
        signing.types.Intent.map((f: any) => f.name),
        ['sender', 'target', 'data', 'value', 'nonce', 'validAfter', 'validBefore', 'policyId'],
      )
      assert.deepEqual(signing, expectedSigning(signing.domain.verifyingContract, signing.message))
      const payment = Object.values(responses['402'].content['application/problem+json'].examples).map(
        (e: any) => e.value,
      )
      assert.deepEqual(
        payment.map((v: any) => [v.erc1066Status, v.status]),
        [
          ['0x54', 402],
          ['0x55', 402],
        ],
      )
      const [deposit, price] = payment as any[]
      assert.deepEqual(deposit.paymentRequired.accepts, [])
      assert.equal(deposit.paymentRequired.extensions.deposit.function, 'depositFor(address)')
      assert.equal(price.paymentRequired.x402Version, 2)
      assert.match(price.paymentRequired.resource.url, /^https:\/\//)
      assert.deepEqual(Object.keys(price.paymentRequired.accepts[0]).sort(), [
        'amount',
        'asset',
        'extra',
        'maxTimeoutSeconds',
        'network',
        'payTo',
        'scheme',
      ])
      assert.equal(price.paymentRequired.accepts[0].scheme, 'exact')
      assert.match(price.paymentRequired.accepts[0].network, /^eip155:\d+$/)
    }
  })

  it('documents POST /mcp as an operation: a JSON-RPC body, its answers, no GET or DELETE', () => {
    const op = doc.paths['/mcp'].post
    assert.equal(op.operationId, 'mcp')
    assert.deepEqual(op.tags, ['agents'])
    for (const tool of ['validate_intent', 'execute_intent', 'get_intent', 'list_chains', 'explain_status'])
      assert.match(op.description, new RegExp(tool))
    assert.match(op.requestBody.content['application/json'].schema.description, /JSON-RPC 2\.0/)
    assert.deepEqual(Object.keys(op.responses).sort(), ['200', '202', '400', '401', '406', '413', '415', '429'])
    for (const header of commonHeaders) assert.ok(op.responses['200'].headers[header], header)
    assert.deepEqual(Object.keys(doc.paths['/mcp']), ['post'])
    assert.ok(doc.tags.some((t: any) => t.name === 'agents'))
  })

  it('answers validate and execute with whole bodies through the route schemas: nothing dropped', async () => {
    const allowed = await validate(demoIntent(world.devnet, { nonce: '7' }))
    assert.equal(allowed.status, 200, allowed.text)
    assertCommonHeaders(allowed, { status: '0x01' })
    assert.deepEqual(allowed.body, { status: '0x01', ...outcome(0x01, allowed.headers.get('x-intent-hash')) })

    const executed = await execute(await signIntent(world.devnet, demoIntent(world.devnet, { nonce: '7' })))
    assert.equal(executed.status, 200, executed.text)
    const receipt = await world.clients.publicClient.getTransactionReceipt({ hash: executed.body.transactionHash })
    assert.deepEqual(executed.body, {
      status: '0x11',
      ...outcome(0x11, executed.headers.get('x-intent-hash')),
      state: 'mined',
      transactionHash: receipt.transactionHash,
      blockNumber: receipt.blockNumber.toString(),
      gasUsed: receipt.gasUsed.toString(),
      returnData: executed.body.returnData,
      final: true,
    })
    assert.match(executed.body.returnData, /^0x([0-9a-f]{2})*$/)

    const readBack = await request(world.gateway.baseUrl, `/intents/${executed.headers.get('x-intent-hash')}`)
    // GET adds the same outcome in the other ecosystems' words (§18).
    assert.deepEqual(readBack.body, {
      ...executed.body,
      statusWords: { taskState: 'completed', relayerStatus: 200, relayerMeaning: 'included and successful' },
    })

    // The same intent again: the whole body of its outcome, replayed.
    const replay = await execute(await signIntent(world.devnet, demoIntent(world.devnet, { nonce: '7' })))
    assert.equal(replay.status, 200, replay.text)
    assert.deepEqual(replay.body, {
      ...executed.body,
      detail: 'this intent was executed already (replayed: nothing was sent or charged again)',
      replayed: true,
    })
  })

  it('answers problems with whole bodies: errors on 400, signing on 401 (0xE5), paymentRequired on 402, 421', async () => {
    const unknownField =
      'is not a known field (the fields are: sender, target, data, value, calls, nonce, validAfter, validBefore, policyId, accounts, chainType, mode, authorization, signature)'
    const typo = await validate({ ...demoIntent(world.devnet), validBfore: '1' })
    assert.equal(typo.status, 400)
    assert.match(typo.headers.get('content-type') ?? '', /^application\/problem\+json/)
    // A body the schema refuses has no intent hash yet: the header hashes the raw bytes, the body has none.
    const { intentHash: _, ...typoProblem } = problem(
      0xa0,
      null,
      400,
      'The intent is not valid',
      `validBfore: ${unknownField}`,
    )
    assert.deepEqual(typo.body, {
      ...typoProblem,
      errors: [{ field: 'validBfore', message: unknownField }],
    })

    const unsigned = demoIntent(world.devnet, { nonce: '8' })
    const refused = await execute(unsigned)
    assert.equal(refused.status, 401, refused.text)
    assertCommonHeaders(refused, { status: '0xE5' })
    assert.deepEqual(refused.body, {
      ...problem(
        0xe5,
        refused.headers.get('x-intent-hash'),
        401,
        getStatusCode(0xe5).description,
        "the executor runs a relayed intent only with its sender's signature: sign the typed data in `signing` and send it as `signature`",
      ),
      signing: expectedSigning(world.devnet.contracts.executor, { ...unsigned }),
    })

    const overCap = await validate(demoIntent(world.devnet, { value: parseEther('5').toString() }))
    assert.equal(overCap.status, 402, overCap.text)
    assertCommonHeaders(overCap, { status: '0x54' })
    const header = JSON.parse(Buffer.from(overCap.headers.get('payment-required')!, 'base64').toString())
    const intentHash = overCap.headers.get('x-intent-hash')
    assert.deepEqual(overCap.body, {
      ...problem(0x54, intentHash, 402, getStatusCode(0x54).description, overCap.body.detail),
      paymentRequired: {
        x402Version: 2,
        error: overCap.body.detail,
        resource: {
          url: '/intents/validate',
          description: `POST /intents/validate for intent ${intentHash}`,
          mimeType: 'application/json',
        },
        accepts: [],
        extensions: {
          deposit: {
            chainId,
            sender: world.devnet.demo.sender,
            limit: 'policy',
            detail: 'the policy allows at most 1000000000000000000 wei per intent; no deposit raises that cap',
            cap: '1000000000000000000',
          },
        },
      },
    })
    assert.equal(typeof overCap.body.detail, 'string')
    assert.deepEqual(overCap.body.paymentRequired, header)

    const elsewhere = await validate(demoIntent(world.devnet), { 'x-chain-id': 'eip155:1' })
    assert.equal(elsewhere.status, 421)
    assert.deepEqual(elsewhere.body, {
      ...problem(
        0xa2,
        elsewhere.headers.get('x-intent-hash'),
        421,
        getStatusCode(0xa2).description,
        `chain eip155:1 is not served by this gateway (configured: ${chainId})`,
      ),
      chainId: 'eip155:1',
    })
  })

  it('gives every operation a summary, an id, its security, a 4xx, and names its servers, license and version', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default
    assert.equal(doc.info.version, version)
    assert.deepEqual(doc.info.license, { name: 'MIT', identifier: 'MIT' })
    assert.deepEqual(
      doc.servers.map((s: any) => s.url),
      ['/'],
    )
    const ids = new Set<string>()
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const name = `${method.toUpperCase()} ${path}`
        assert.ok(op.summary, `${name}: summary`)
        assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${name}: operationId`)
        assert.ok(!ids.has(op.operationId), `${name}: operationId ${op.operationId} is unique`)
        ids.add(op.operationId)
        assert.ok(Array.isArray(op.security), `${name}: security is declared`)
        assert.ok(
          Object.keys(op.responses).some((s) => s.startsWith('4')),
          `${name}: a 4xx answer`,
        )
      }
    }
    assert.deepEqual(doc.paths['/metrics'].get.security, [])
    assert.equal(doc.paths['/metrics'].get.operationId, 'getMetrics')
    assert.ok(doc.paths['/metrics'].get.responses['200'].content['text/plain'])
    const tokened = await startTestGateway({
      chains: [world.devnet.chain],
      metricsToken: 'a-metrics-token-of-enough-length',
    })
    try {
      const tokenedDoc = (await request(tokened.baseUrl, '/openapi.json')).body
      assert.deepEqual(tokenedDoc.paths['/metrics'].get.security, [{ metricsToken: [] }])
      assert.ok(tokenedDoc.paths['/metrics'].get.responses['401'])
      assert.deepEqual(Object.keys(tokenedDoc.components.securitySchemes), ['metricsToken'])
    } finally {
      await tokened.close()
    }
  })

  it('gives every request body and path parameter an example that works against the devnet ("Try it out" on /docs)', async () => {
    const examples = new Map<string, unknown>()
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const name = `${method.toUpperCase()} ${path}`
        if (op.requestBody) {
          const media = op.requestBody.content['application/json']
          assert.ok(media.example, `${name}: a request body example`)
          examples.set(name, media.example)
        }
        for (const parameter of op.parameters ?? []) {
          if (parameter.in === 'path') assert.ok(parameter.example, `${name}: an example of ${parameter.name}`)
        }
      }
    }
    assert.deepEqual([...examples.keys()].sort(), ['POST /intents/execute', 'POST /intents/validate', 'POST /mcp'])

    // Sent as Swagger UI sends them: the body as it stands, the X-Chain-Id example.
    const headers = {
      'x-chain-id': doc.paths['/intents/validate'].post.parameters.find((p: any) => p.name === 'x-chain-id').example,
    }
    const validated = await validate(examples.get('POST /intents/validate'), headers)
    assert.equal(validated.status, 200, validated.text)
    const executed = await execute(examples.get('POST /intents/execute'), headers)
    assert.equal(executed.status, 200, executed.text)
    assert.equal(executed.body.status, '0x11')
    const pathExample = (path: string) => doc.paths[path].get.parameters.find((p: any) => p.in === 'path').example
    assert.equal(executed.headers.get('x-intent-hash'), pathExample('/intents/{intentHash}'))
    const intent = await request(world.gateway.baseUrl, `/intents/${pathExample('/intents/{intentHash}')}`)
    assert.equal(intent.status, 200, intent.text)
    assert.equal(intent.body.status, '0x11')
    const chain = await request(world.gateway.baseUrl, `/chains/${pathExample('/chains/{chainId}')}`)
    assert.equal(chain.status, 200, chain.text)
    const mcp = await request(world.gateway.baseUrl, '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(examples.get('POST /mcp')),
    })
    assert.equal(mcp.status, 200, mcp.text)
    assert.ok(mcp.body.result.tools.length > 0, mcp.text)
  })

  it("passes Redocly's recommended lint with no error or warning", async (t) => {
    // @redocly/cli is not a dependency yet (see CHANGELOG/README); REDOCLY_CLI names a binary installed elsewhere.
    const cli = process.env.REDOCLY_CLI ?? join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'redocly')
    if (!existsSync(cli))
      return t.skip(
        `@redocly/cli is not installed (${cli}); install it (npm i -D @redocly/cli@2.77.0, the last line of releases that runs on Node 20) or set REDOCLY_CLI to its binary`,
      )
    const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'))
    // Open, and with API keys and a metrics token: the two documents a gateway can serve.
    const keyed = await startTestGateway({
      chains: [world.devnet.chain],
      auth: { keyHashes: [hashApiKey('a-test-key-of-enough-length-0001')], requireForValidate: false },
      metricsToken: 'a-metrics-token-of-enough-length',
    })
    try {
      for (const [name, document] of [
        ['open', doc],
        ['keyed', (await request(keyed.baseUrl, '/openapi.json')).body],
      ] as const) {
        const file = join(dir, `${name}.json`)
        await writeFile(file, JSON.stringify(document))
        const { stdout, stderr } = await promisify(execFile)(cli, ['lint', file, '--format=summary'], {
          timeout: 120_000,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        }).catch((err) => assert.fail(`redocly lint ${name}: ${err.stdout}${err.stderr}`))
        const output = stdout + stderr
        assert.match(output, /Your API description is valid/, output)
        assert.doesNotMatch(output, /\b(error|warning)\s+[a-z0-9-]+: \d+/, output)
      }
    } finally {
      await keyed.close()
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("renders /docs in headless Chromium from the gateway's own files, showing the operations", async () => {
    const page = await request(world.gateway.baseUrl, '/docs')
    assert.equal(page.status, 200)
    assertCommonHeaders(page, { status: '0x01' })
    assert.doesNotMatch(page.text, /https?:\/\//, 'the page loads nothing from elsewhere')
    const dir = await mkdtemp(join(tmpdir(), 'docs-page-'))
    try {
      const { stdout } = await promisify(execFile)(
        'chromium',
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          `--user-data-dir=${join(dir, 'profile')}`,
          '--virtual-time-budget=10000',
          '--dump-dom',
          `${world.gateway.baseUrl}/docs`,
        ],
        { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      )
      // The visible text: Swagger UI breaks paths with <wbr> between segments.
      const text = stdout.replace(/<wbr>/g, '').replace(/<[^>]*>/g, ' ')
      const expectedTexts = [
        'Intent Gateway',
        '/intents/execute',
        '/intents/validate',
        '/intents/{intentHash}',
        '/chains/{chainId}',
        '/status-codes',
        doc.paths['/intents/execute'].post.summary,
      ]
      for (const expected of expectedTexts) {
        assert.ok(text.includes(expected), `${expected} in the rendered page`)
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
