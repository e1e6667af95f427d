// The README's settings tables list exactly the settings the code reads: a setting added to the
// code without a row fails here, and so does a row naming a setting nothing reads.
//
// What the code reads, two ways that cover each other:
// - by reading the source of every file under src/ that handles an `env` object: `env.NAME`,
//   `env['NAME']`, `readX(env, 'NAME', …)`, and in a file that indexes `env[name]` with a name it
//   computes, every quoted NAME in it (its readers are handed names as literals);
// - by running the readers (loadConfig with every runtime, readTracingConfig, readDeployOptions)
//   on an environment that records each name asked for: names built at run time
//   (`${prefix}_RELAYER_KMS_KEY_ID`) are caught there.
// What the README lists: the backquoted names in the first cell of a table row
// ("| `WEBHOOK_URLS`, `WEBHOOK_SECRET` | …").
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, it } from 'node:test'
import { readDeployOptions } from '../../src/chains/evm/deploy/readDeployOptions.ts'
import { loadConfig } from '../../src/runtimes.ts'
import { readTracingConfig } from '../../src/tracing/tracingConfig.ts'

const root = new URL('../../', import.meta.url).pathname
const settingName = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/

/**
 * Read, and deliberately without a row of the README's settings tables. Each says where it is
 * documented instead.
 */
const documentedElsewhere: Record<string, string> = {
  // OpenTelemetry's own variables, read as the SDK defines them: the README's "Tracing" section
  // names them and links the SDK's list.
  OTEL_EXPORTER_OTLP_ENDPOINT: 'Tracing',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'Tracing',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'Tracing',
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'Tracing',
  OTEL_SDK_DISABLED: 'Tracing',
  OTEL_SERVICE_NAME: 'Tracing',
  OTEL_TRACES_EXPORTER: 'Tracing',
  OTEL_TRACES_SAMPLER: 'Tracing',
  OTEL_TRACES_SAMPLER_ARG: 'Tracing',
}

/** Quoted names in the source that are not settings. */
const notSettings = new Set([
  // Signals main.ts handles.
  'SIGINT',
  'SIGTERM',
  'SIGUSR2',
  // Prefixes that signersConfig.ts joins to a suffix (SOLANA_RELAYER_KMS_KEY_ID, FACILITATOR_KMS_KEY_ID, …):
  // the runtimes' (RuntimeModule.heldKeys) and the facilitator's.
  'EVM',
  'SOLANA',
  'SUI',
  'RELAYER',
  'SOLANA_RELAYER',
  'SUI_RELAYER',
  'FACILITATOR',
  'FACILITATOR_SOLANA',
  // The error code of the deploy command's invalid options (runDeployCommand.ts).
  'DEPLOY_OPTIONS',
])

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** Names the source reads from an `env` object, file by file. */
function readInSource(): Map<string, string[]> {
  const found = new Map<string, string[]>()
  const add = (name: string, file: string) => {
    if (!settingName.test(name) || notSettings.has(name)) return
    found.set(name, [...new Set([...(found.get(name) ?? []), relative(root, file)])])
  }
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8')
    if (!/\benv\b/.test(text)) continue
    for (const m of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) add(m[1]!, file)
    for (const m of text.matchAll(/\benv\??\.?\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g)) add(m[1]!, file)
    for (const m of text.matchAll(/\(\s*env\s*,\s*['"`]([A-Z][A-Z0-9_]*)['"`]/g)) add(m[1]!, file)
    // A file that reads env by a computed name (env[name], readInteger(env, name, …)): the names
    // it passes around are its literals.
    if (/\benv\??\.?\[\s*[^'"`\s]|\(\s*env\s*,\s*[a-z]/.test(text))
      for (const m of text.matchAll(/['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)['"`]/g)) add(m[1]!, file)
  }
  return found
}

/** Names the readers ask for when they run, on environments that take their branches. */
function readWhenRun(): Set<string> {
  const asked = new Set<string>()
  const recording = (values: Record<string, string>) =>
    new Proxy(values, {
      get(target, key) {
        if (typeof key === 'string' && settingName.test(key)) asked.add(key)
        return Reflect.get(target, key)
      },
    }) as Record<string, string | undefined>
  const environments: Record<string, string>[] = [
    {},
    { NODE_ENV: 'production' },
    // Every signer backend and optional family named, so that their branches read their settings.
    {
      NODE_ENV: 'production',
      RPC_URLS: '{"eip155:84532":"https://rpc.example"}',
      RELAYER_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so',
      RELAYER_PKCS11_TOKEN: 't',
      RELAYER_PKCS11_PIN: '1234',
      RELAYER_PKCS11_KEY_LABELS: 'a',
      RELAYER_KMS_KEY_IDS: 'k',
      DATABASE_URL: 'postgres://127.0.0.1/x',
      REDIS_URL: 'redis://127.0.0.1:6379',
      WEBHOOK_URLS: 'https://hooks.example',
      OAUTH_ISSUER: 'https://issuer.example',
      X402_PRICES: '{}',
      METRICS_PORT: '9464',
    },
  ]
  for (const values of environments) {
    try {
      loadConfig(recording(values))
    } catch {
      // Refused configurations still read what they judged.
    }
    readTracingConfig(recording(values))
    readDeployOptions({ argv: ['--chain', 'eip155:31337', '--rpc', 'http://127.0.0.1:8545'], env: recording(values) })
  }
  return asked
}

/** The backquoted names in the first cell of each README table row. */
function listedInReadme(): Set<string> {
  const listed = new Set<string>()
  for (const line of readFileSync(join(root, 'README.md'), 'utf8').split('\n')) {
    const first = /^\|\s*(`[A-Z][^|]*)\|/.exec(line)?.[1]
    if (!first) continue
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) if (settingName.test(m[1]!)) listed.add(m[1]!)
  }
  return listed
}

describe("the README's settings tables", () => {
  const inSource = readInSource()
  const whenRun = readWhenRun()
  const read = new Set([...inSource.keys(), ...whenRun])
  const listed = listedInReadme()

  it('finds the settings both ways (the scan and the run agree on what runs)', () => {
    // Sanity of the two collectors: each finds settings of every kind, so that an empty set can never pass.
    for (const name of [
      'PORT',
      'RPC_URLS',
      'RELAYER_PKCS11_PIN',
      'WEBHOOK_URLS_BY_KEY',
      'OTEL_SERVICE_NAME',
      'DEPLOYER_PRIVATE_KEY',
    ]) {
      assert.ok(inSource.has(name), `${name} not found in the source`)
    }
    for (const name of [
      'PORT',
      'SOLANA_RELAYER_KMS_KEY_ID',
      'SUI_RELAYER_PKCS11_KEY_LABEL',
      'FACILITATOR_SOLANA_KMS_KEY_ID',
    ]) {
      assert.ok(whenRun.has(name), `${name} not asked for when the readers run`)
    }
    // What only the run finds: the relayer keys' names, built from a runtime's prefix by each signer
    // backend (signersConfig.ts). Any other would be a reading pattern the scan misses: it is listed
    // here, to be taught to the scan.
    const unscanned = [...whenRun].filter((name) => !inSource.has(name)).sort()
    assert.deepEqual(
      unscanned,
      [
        'FACILITATOR_KMS_KEY_ID',
        'FACILITATOR_PKCS11_KEY_LABEL',
        'FACILITATOR_PRIVATE_KEY',
        'FACILITATOR_SOLANA_KMS_KEY_ID',
        'FACILITATOR_SOLANA_PKCS11_KEY_LABEL',
        'FACILITATOR_SOLANA_PRIVATE_KEY',
        'RELAYER_KMS_KEY_IDS',
        'RELAYER_PKCS11_KEY_LABELS',
        'SOLANA_RELAYER_KMS_KEY_ID',
        'SOLANA_RELAYER_PKCS11_KEY_LABEL',
        'SUI_RELAYER_KMS_KEY_ID',
        'SUI_RELAYER_PKCS11_KEY_LABEL',
      ],
      `asked for at run time but not seen in the source: ${unscanned.join(', ')}`,
    )
  })

  it('has a row for every setting the code reads', () => {
    const missing = [...read].filter((name) => !listed.has(name) && !(name in documentedElsewhere)).sort()
    assert.deepEqual(
      missing,
      [],
      `settings read by the code with no row in the README's settings tables:\n${missing.map((n) => `  ${n} (${(inSource.get(n) ?? ['read at run time']).join(', ')})`).join('\n')}`,
    )
  })

  it('names no setting that nothing reads', () => {
    const unread = [...listed].filter((name) => !read.has(name)).sort()
    assert.deepEqual(unread, [], `README rows naming settings nothing reads: ${unread.join(', ')}`)
    const stale = Object.keys(documentedElsewhere).filter((name) => !read.has(name))
    assert.deepEqual(stale, [], `exceptions for settings nothing reads any more: ${stale.join(', ')}`)
  })
})
