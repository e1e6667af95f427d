// WEBHOOK_URLS_BY_KEY: each API key's own endpoints, named by the key's short id or its SHA-256 as
// API_KEYS takes it; every problem named, secrets never shown.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { hashApiKey } from '../crypto/hashApiKey.ts'
import { webhooksConfig } from './webhooksConfig.ts'

const secret = `whsec_${randomBytes(32).toString('base64')}`
const other = `whsec_${randomBytes(32).toString('base64')}`
const keyA = 'webhook-config-key-aaaaaaaa'
const keyB = 'webhook-config-key-bbbbbbbb'
const hashA = hashApiKey(keyA).toString('hex')
const hashB = hashApiKey(keyB).toString('hex')
const idA = hashA.slice(0, 8)
const idB = hashB.slice(0, 8)
const apiKeys = `${keyA},sha256:${hashB}`
const parse = (env: Record<string, string>, production = false) => webhooksConfig(env, { production })

describe('webhook endpoints per API key (WEBHOOK_URLS_BY_KEY)', () => {
  it('reads a key by its short id or its sha256, a list or {urls, secret}, beside the global endpoints', () => {
    const byKey = JSON.stringify({
      [idA]: ['https://a.example/hook'],
      [`sha256:${hashB.toUpperCase()}`]: { urls: ['https://b.example/hook', 'https://b.example/two'], secret: other },
    })
    const result = parse(
      {
        API_KEYS: apiKeys,
        WEBHOOK_URLS: 'https://ops.example/all',
        WEBHOOK_SECRET: secret,
        WEBHOOK_URLS_BY_KEY: byKey,
      },
      true,
    )
    assert.deepEqual(result, {
      problems: [],
      value: {
        urls: ['https://ops.example/all'],
        secret,
        byKey: {
          [idA]: { urls: ['https://a.example/hook'] },
          [idB]: { urls: ['https://b.example/hook', 'https://b.example/two'], secret: other },
        },
        maxAttempts: 12,
        retryBaseMs: 1000,
      },
    })
  })

  it('takes per-key endpoints alone, each with its own secret, without WEBHOOK_URLS or WEBHOOK_SECRET', () => {
    const result = parse({
      API_KEYS: apiKeys,
      WEBHOOK_URLS_BY_KEY: JSON.stringify({ [idA]: { urls: 'https://a.example/hook', secret: other } }),
    })
    assert.deepEqual(result.problems, [])
    assert.deepEqual(result.value?.urls, [])
    assert.equal(result.value?.secret, undefined)
    assert.deepEqual(result.value?.byKey, { [idA]: { urls: ['https://a.example/hook'], secret: other } })
  })

  it('names every problem: form, unknown keys, the URL rules, secrets (never shown), one secret per URL', () => {
    assert.deepEqual(parse({ API_KEYS: apiKeys, WEBHOOK_URLS_BY_KEY: '{not json' }).problems, [
      'WEBHOOK_URLS_BY_KEY: not JSON (a JSON object from an API key id to its endpoint URLs)',
    ])
    assert.deepEqual(parse({ API_KEYS: apiKeys, WEBHOOK_URLS_BY_KEY: '["https://a.example"]' }).problems, [
      'WEBHOOK_URLS_BY_KEY: must be a JSON object from an API key id to its endpoint URLs, e.g. {"1a2b3c4d": ["https://hooks.example/a"]}',
    ])
    const bad = JSON.stringify({
      [keyA]: ['https://a.example/hook'],
      '0badc0de': ['https://x.example/hook'],
      [`sha256:${'0'.repeat(56)}${idA}`]: ['https://y.example/hook'],
      [idB]: {
        urls: ['http://b.example/hook', 'https://user:pw@b.example/x', 'ftp://b.example/'],
        secret: 'whsec_c2hvcnQ=',
        retries: 3,
      },
    })
    const refused = parse({ API_KEYS: apiKeys, WEBHOOK_SECRET: secret, WEBHOOK_URLS_BY_KEY: bad }, true)
    assert.equal(refused.value, undefined)
    assert.deepEqual(refused.problems, [
      `WEBHOOK_URLS_BY_KEY["${keyA}"]: not an API key id: 8 hex digits (the key's id as the gateway logs it) or sha256:<64 hex digits> (as API_KEYS accepts it); never the key itself`,
      'WEBHOOK_URLS_BY_KEY["0badc0de"]: no key of API_KEYS has this id',
      `WEBHOOK_URLS_BY_KEY["sha256:${'0'.repeat(56)}${idA}"]: no key of API_KEYS has this id`,
      `WEBHOOK_URLS_BY_KEY["${idB}"].retries: unknown field (urls and secret are read)`,
      `WEBHOOK_URLS_BY_KEY["${idB}"].urls[0]: must be https in production`,
      `WEBHOOK_URLS_BY_KEY["${idB}"].urls[1]: must not carry credentials (the payload is signed with its secret)`,
      `WEBHOOK_URLS_BY_KEY["${idB}"].urls[2]: "ftp:" is not https`,
      `WEBHOOK_URLS_BY_KEY["${idB}"].secret: must be whsec_ followed by the base64 of at least 32 random bytes (its value is not shown)`,
    ])
    assert.ok(!refused.problems.join('\n').includes('c2hvcnQ'), 'the secret is not shown')
    assert.ok(!refused.problems.join('\n').includes(keyB), 'no key is shown')

    // The sha256 form must be the key's whole hash, not just its id.
    const lookalike = `sha256:${idA}${'0'.repeat(56)}`
    assert.deepEqual(
      parse({
        API_KEYS: apiKeys,
        WEBHOOK_SECRET: secret,
        WEBHOOK_URLS_BY_KEY: JSON.stringify({ [lookalike]: ['https://a.example/'] }),
      }).problems,
      [`WEBHOOK_URLS_BY_KEY["${lookalike}"]: no key of API_KEYS has this SHA-256`],
    )
    // The same key twice (id and sha256), an empty list, no secret at all.
    assert.deepEqual(
      parse({
        API_KEYS: apiKeys,
        WEBHOOK_URLS_BY_KEY: JSON.stringify({
          [idA]: ['https://a.example/'],
          [`sha256:${hashA}`]: ['https://a2.example/'],
          [idB]: [],
        }),
      }).problems,
      [
        `WEBHOOK_URLS_BY_KEY["sha256:${hashA}"]: names the same API key as another entry`,
        `WEBHOOK_URLS_BY_KEY["${idB}"].urls: must be a non-empty list of URLs`,
        `WEBHOOK_SECRET: required for the endpoints of WEBHOOK_URLS_BY_KEY["${idA}"], which have no secret of their own: whsec_ followed by the base64 of at least 32 random bytes`,
      ],
    )
    // One URL, two secrets: a receiver could not verify both.
    assert.deepEqual(
      parse({
        API_KEYS: apiKeys,
        WEBHOOK_URLS: 'https://ops.example/all',
        WEBHOOK_SECRET: secret,
        WEBHOOK_URLS_BY_KEY: JSON.stringify({ [idA]: { urls: ['https://ops.example/all'], secret: other } }),
      }).problems,
      [
        `WEBHOOK_URLS_BY_KEY["${idA}"].urls[0]: this URL is also WEBHOOK_URLS[0] with another secret: one endpoint is signed with one secret`,
      ],
    )
    // Without API_KEYS no execution carries a key.
    assert.deepEqual(
      parse({ WEBHOOK_SECRET: secret, WEBHOOK_URLS_BY_KEY: JSON.stringify({ [idA]: ['https://a.example/'] }) })
        .problems,
      [
        `WEBHOOK_URLS_BY_KEY["${idA}"]: no key of API_KEYS has this id`,
        'WEBHOOK_URLS_BY_KEY: is set but API_KEYS is empty: no execution is asked for with a key',
      ],
    )
  })

  it('refuses a key whose short id another key of API_KEYS shares: their executions could not be told apart', () => {
    // Two keys whose SHA-256 begin alike (given as hashes: finding two such plain keys takes 2^32 tries).
    const twin = `${idA}${'f'.repeat(56)}`
    const result = parse({
      API_KEYS: `${keyA},${keyB},sha256:${twin}`,
      WEBHOOK_SECRET: secret,
      WEBHOOK_URLS_BY_KEY: JSON.stringify({ [idA]: ['https://a.example/'], [idB]: ['https://b.example/'] }),
    })
    assert.deepEqual(result.problems, [
      `WEBHOOK_URLS_BY_KEY["${idA}"]: API_KEYS entries 1 and 3 share this id, so their executions cannot be told apart: replace one of those keys`,
    ])
  })

  it('refuses in production an endpoint whose host is an internal IP literal, in every form, naming the setting; public literals and names pass', () => {
    const inward = [
      'https://127.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://10.1.2.3/hook',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:a9fe:a9fe]/hook',
      'https://2130706433/hook',
      'https://0x7f.1/hook',
      'https://192.168.0.10:8443/hook',
    ]
    const result = parse({ WEBHOOK_URLS: inward.join(','), WEBHOOK_SECRET: secret }, true)
    assert.equal(result.value, undefined)
    assert.deepEqual(
      result.problems,
      inward.map((raw, i) => {
        const host = new URL(raw).hostname
        return `WEBHOOK_URLS[${i}]: its host ${host} is a loopback, private, link-local or reserved address: refused in production (name the endpoint by a public address or a DNS name)`
      }),
    )
    assert.match(result.problems[6]!, /host 127\.0\.0\.1 /, 'the decimal form is read as the address it is')
    // A key's endpoints follow the same rule.
    assert.deepEqual(
      parse(
        {
          API_KEYS: apiKeys,
          WEBHOOK_SECRET: secret,
          WEBHOOK_URLS_BY_KEY: JSON.stringify({ [idA]: ['https://[fd00::1]/h'] }),
        },
        true,
      ).problems,
      [
        `WEBHOOK_URLS_BY_KEY["${idA}"].urls[0]: its host [fd00::1] is a loopback, private, link-local or reserved address: refused in production (name the endpoint by a public address or a DNS name)`,
      ],
    )
    assert.deepEqual(
      parse({ WEBHOOK_URLS: 'https://1.1.1.1/hook,https://hooks.example/a', WEBHOOK_SECRET: secret }, true).problems,
      [],
    )
    // Outside production (the devnet's receivers are on loopback) they are allowed.
    assert.deepEqual(parse({ WEBHOOK_URLS: inward.join(','), WEBHOOK_SECRET: secret }).problems, [])
  })
})
