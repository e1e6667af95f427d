// The house's rules for settings and keys (docs/architecture.md, "Where a new thing goes"): a
// storage engine reads its own settings in its folder, and shared code reads none of them; shared
// code names no runtime's key fields (keys are KeySources by chain type); every place a key can
// live is a KeyBackend listed in src/signers/keyBackends.ts, and nothing else branches on one.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { runtimes } from '../../src/runtimes.ts'
import { keyBackends } from '../../src/signers/keyBackends.ts'
import { storageEngines } from '../../src/storageEngines.ts'
import { compositionRoot } from '../support/compositionRoot.ts'

const src = resolve(import.meta.dirname, '../../src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [relative(src, path)] : []
  })
}

const read = (file: string) => readFileSync(join(src, file), 'utf8')

/**
 * Shared code: the configuration and the composition root. paymentsConfig.ts is payments' own
 * (its facilitator's keys are compared with the relayers' of its families, by its own parameters).
 */
const shared = [...sourceFiles(join(src, 'config')), ...compositionRoot].filter((f) => f !== 'config/paymentsConfig.ts')

/** Names an `env` object is read by in a file's text: `env.NAME`, `env?.NAME`, `env['NAME']`. */
function envReads(text: string): string[] {
  return [
    ...[...text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]!),
    ...[...text.matchAll(/\benv\??\.?\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g)].map((m) => m[1]!),
  ]
}

/** Each engine of the list and the folder under store/ its line imports it from. */
const listed = [...read('storageEngines.ts').matchAll(/import \{ (\w+) \} from '\.\/store\/(\w+)\/\w+\.ts'/g)].map(
  (m) => ({ exported: m[1]!, folder: m[2]! }),
)

/** The settings an engine asks for, read from an environment that records each name. */
function askedBy(engine: (typeof storageEngines)[number]): string[] {
  const asked = new Set<string>()
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_, name) => {
      if (typeof name === 'string') asked.add(name)
      return undefined
    },
  })
  engine.readSettings(env, { production: false, devnet: false, problems: [] })
  return [...asked]
}

describe('storage engines read their own settings', () => {
  it('each engine of src/storageEngines.ts has its folder, a name of its own and readSettings', () => {
    assert.equal(listed.length, storageEngines.length, 'one import per engine of the list')
    assert.equal(new Set(storageEngines.map((e) => e.name)).size, storageEngines.length, 'names are unique')
    for (const engine of storageEngines) assert.equal(typeof engine.readSettings, 'function', engine.name)
  })

  it("reads each engine's settings in its own folder, and nowhere in shared code", () => {
    const engineSettings = new Set<string>()
    for (const [i, engine] of storageEngines.entries()) {
      const folder = `store/${listed[i]!.folder}`
      const inFolder = new Set(sourceFiles(join(src, folder)).flatMap((f) => envReads(read(f))))
      const asked = askedBy(engine)
      assert.ok(asked.length > 0, `${engine.name} reads no setting`)
      for (const name of asked) {
        assert.ok(inFolder.has(name), `${name}, asked by the ${engine.name} engine, is not read in ${folder}/`)
        engineSettings.add(name)
      }
    }
    const readInShared = shared.flatMap((file) =>
      envReads(read(file))
        .filter((name) => engineSettings.has(name))
        .map((name) => `${file}: ${name}`),
    )
    assert.deepEqual(readInShared, [], "shared code reads a storage engine's setting")
  })
})

describe('keys by chain type', () => {
  /** The names the runtimes' keys had in shared code before they were KeySources by chain type. */
  const keyFields =
    /\b(relayerPrivateKeys?|suiRelayerPrivateKey|solanaRelayerPrivateKey|solanaSimulationFeePayer|hasRelayer\(|ed25519\??\.(?:solana|sui))\b/

  it("shared code names no runtime's key fields (the hand-off to paymentsConfig by its parameters aside)", () => {
    const named = shared.flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((line, i) => {
          // loadConfig hands paymentsConfig (payments' own) the relayers' secrets under its parameters' names.
          if (file === 'config/loadConfig.ts' && /^\s*(relayerPrivateKey|solanaRelayerPrivateKey): /.test(line))
            return []
          return keyFields.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []
        }),
    )
    assert.deepEqual(named, [])
  })

  it('every runtime declares where its keys may be held, under a prefix of its own', () => {
    for (const r of runtimes) assert.ok(r.heldKeys && /^[A-Z][A-Z0-9_]*$/.test(r.heldKeys.prefix), r.name)
    assert.equal(new Set(runtimes.map((r) => r.heldKeys.prefix)).size, runtimes.length)
  })
})

describe('key backends', () => {
  const signers = sourceFiles(join(src, 'signers'))
  const list = read('signers/keyBackends.ts')

  it('every KeyBackend is listed in src/signers/keyBackends.ts, one file each', () => {
    const declared = signers.flatMap((file) =>
      [...read(file).matchAll(/export const (\w+): KeyBackend\b/g)].map((m) => ({ file, name: m[1]! })),
    )
    assert.ok(declared.length >= 3, 'local, PKCS#11 and KMS')
    assert.equal(new Set(declared.map((d) => d.file)).size, declared.length, 'one backend per file')
    const listedNames = list
      .match(/export const keyBackends[^=]*=\s*\[([^\]]*)\]/)?.[1]
      ?.split(',')
      .map((s) => s.trim())
    assert.deepEqual([...(listedNames ?? [])].sort(), declared.map((d) => d.name).sort())
    assert.equal(new Set(keyBackends.map((b) => b.backend)).size, keyBackends.length, 'each backend once')
  })

  it('nothing outside a backend branches on where a key lives', () => {
    const branches = sourceFiles(src)
      .filter((file) => !/^signers\/\w+KeyBackend\.ts$/.test(file))
      .flatMap((file) =>
        read(file)
          .split('\n')
          .flatMap((line, i) =>
            /\.backend\s*[!=]==\s*'(?!local')\w+'/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
          ),
      )
    assert.deepEqual(branches, [])
  })
})
