// The house's rules (docs/architecture.md), read from the imports of src/ as they are: shared code
// never reaches into a runtime's folder, runtimes never into each other, ports import no
// implementation, only the composition root opens a store, no two rooms import each other, and a
// payment family keeps to its room (payments/mechanisms/<family>/).
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { chainTypes, parseChainId } from '../../src/ports/chainId.ts'
import { runtimes as runtimeModules } from '../../src/runtimes.ts'
import { compositionRoot as compositionRootFiles } from '../support/compositionRoot.ts'

const src = resolve(import.meta.dirname, '../../src')
const runtimes = readdirSync(join(src, 'chains')).filter((name) => statSync(join(src, 'chains', name)).isDirectory())
const compositionRoot = new Set(compositionRootFiles)

type Import = { from: string; to: string }

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [relative(src, path)] : []
  })
}

const imports: Import[] = sourceFiles(src).flatMap((from) => {
  const text = readFileSync(join(src, from), 'utf8')
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)].map(
    (m) => ({
      from,
      to: relative(src, resolve(dirname(join(src, from)), (m[1] ?? m[2])!)),
    }),
  )
})

/** A room: a top folder, each runtime's folder and each storage engine's its own. */
function roomOf(path: string): string {
  const parts = path.split('/')
  if (parts.length === 1) return '.'
  if ((parts[0] === 'chains' && runtimes.includes(parts[1]!)) || (parts[0] === 'store' && parts.length > 2))
    return `${parts[0]}/${parts[1]}`
  return parts[0]!
}
const runtimeOf = (path: string) =>
  path.startsWith('chains/') && runtimes.includes(path.split('/')[1]!) ? path.split('/')[1] : undefined
const show = (list: Import[]) => list.map((i) => `${i.from} -> ${i.to}`)

describe('the house (import rules of src/)', () => {
  it('reads the imports it judges', () => {
    assert.ok(imports.length > 300, `only ${imports.length} imports read`)
    assert.deepEqual([...runtimes].sort(), ['evm', 'solana', 'sui'])
  })

  it('has no arrow from shared code into a runtime folder, and none between runtime folders', () => {
    const wrong = imports.filter(({ from, to }) => {
      const target = runtimeOf(to)
      if (!target || compositionRoot.has(from)) return false
      return runtimeOf(from) !== target
    })
    assert.deepEqual(show(wrong), [])
  })

  it('names the runtimes and the storage engines only in the composition root: nothing else imports their lists', () => {
    const wrong = imports.filter(
      ({ from, to }) => (to === 'runtimes.ts' || to === 'storageEngines.ts') && !compositionRoot.has(from),
    )
    assert.deepEqual(show(wrong), [])
    for (const file of compositionRoot)
      assert.ok(sourceFiles(src).includes(file), `${file}, named as the composition root's, is in src/`)
  })

  it('resolves the chain a request is for in one place, http/requestChain.ts: no other file reads X-Chain-Id (the route caller only forwards it to the routes it calls)', () => {
    const readers = sourceFiles(src).filter((file) =>
      /headers\[['"]x-chain-id['"]\]/i.test(readFileSync(join(src, file), 'utf8')),
    )
    assert.deepEqual(readers.sort(), ['http/createRouteCaller.ts', 'http/requestChain.ts'])
  })

  it('decodes the payment header in one place, inside payments (payments/claimedPayer.ts), and reads it in one (http/plugins/payments.ts, once per request)', () => {
    const decoders = sourceFiles(src).filter((file) =>
      /decodePaymentSignatureHeader\(/.test(readFileSync(join(src, file), 'utf8')),
    )
    assert.deepEqual(decoders, ['payments/claimedPayer.ts'])
    const readers = sourceFiles(src).filter((file) =>
      /headers\[['"]payment-signature['"]\]/i.test(readFileSync(join(src, file), 'utf8')),
    )
    assert.deepEqual(readers, ['http/plugins/payments.ts'])
  })

  it('keeps the ports free of implementations: they import only ports and the error and status types', () => {
    const wrong = imports.filter(({ from, to }) => from.startsWith('ports/') && !/^(ports|errors|status)\//.test(to))
    assert.deepEqual(show(wrong), [])
  })

  it('opens a store only in the composition root: the domain knows the Journal port, not SQLite or PostgreSQL', () => {
    const wrong = imports.filter(
      ({ from, to }) => to.startsWith('store/') && !from.startsWith('store/') && !compositionRoot.has(from),
    )
    assert.deepEqual(show(wrong), [])
  })

  it("names a storage engine's room in one place, src/storageEngines.ts: a new engine is its folder plus one line there", () => {
    const engines = readdirSync(join(src, 'store')).filter((name) => statSync(join(src, 'store', name)).isDirectory())
    assert.deepEqual([...engines].sort(), ['postgres', 'sqlite'])
    const wrong = imports.filter(
      ({ from, to }) =>
        engines.some((e) => to.startsWith(`store/${e}/`)) && !from.startsWith('store/') && from !== 'storageEngines.ts',
    )
    assert.deepEqual(show(wrong), [])
    const listed = readFileSync(join(src, 'storageEngines.ts'), 'utf8').match(
      /export const storageEngines[^=]*=\s*\[([^\]]*)\]/,
    )?.[1]
    assert.equal(listed?.split(',').filter((e) => e.trim()).length, engines.length, 'one entry per engine folder')
  })

  it('lists the chain types in one place, ports/chainId.ts, that the runtime list agrees with: a new runtime is its folder, its line in src/runtimes.ts and its entry there', () => {
    for (const module of runtimeModules) {
      const parsed = parseChainId(`${module.namespace}:1`)
      assert.equal(
        typeof parsed === 'string' ? parsed : parsed.chainType,
        module.chainType,
        `the port gives ${module.namespace} to ${module.name}'s chain type`,
      )
    }
    assert.deepEqual([...chainTypes].sort(), runtimeModules.map((m) => m.chainType).sort())
    assert.deepEqual([...runtimes].sort(), [...chainTypes].sort(), 'one folder under chains/ per chain type')
    // A hand-kept list (an enum, a union) names every chain type on one line: the schemas, the
    // domain and the configuration read `chainTypes` instead.
    const handKept = sourceFiles(src).filter((file) => {
      if (file === 'ports/chainId.ts' || runtimeOf(file)) return false
      return readFileSync(join(src, file), 'utf8')
        .split('\n')
        .some((line) => chainTypes.every((type) => line.includes(`'${type}'`)))
    })
    assert.deepEqual(handKept, [])
  })

  it("opens a key held outside the process only through signers/'s openers: no file elsewhere reaches a KMS or PKCS#11 backend or their SDKs", () => {
    const backends = [
      'signers/createKmsSigner.ts',
      'signers/createPkcs11Signer.ts',
      'signers/createKmsEd25519Signer.ts',
      'signers/createPkcs11EdDsaSigner.ts',
      'signers/openPkcs11Key.ts',
    ]
    const wrong = imports.filter(({ from, to }) => backends.includes(to) && !from.startsWith('signers/'))
    assert.deepEqual(show(wrong), [])
    const sdks = sourceFiles(src).filter(
      (file) =>
        !file.startsWith('signers/') &&
        /from '(pkcs11js|@aws-sdk\/client-kms)'|\('(pkcs11js|@aws-sdk\/client-kms)'\)/.test(
          readFileSync(join(src, file), 'utf8'),
        ),
    )
    assert.deepEqual(sdks, [])
  })

  it('keeps a payment family in its room, payments/mechanisms/<family>/: a new family is its folder plus one line in paymentFamilies.ts', () => {
    const families = readdirSync(join(src, 'payments/mechanisms')).filter((name) =>
      statSync(join(src, 'payments/mechanisms', name)).isDirectory(),
    )
    assert.deepEqual([...families].sort(), ['evm', 'svm'])
    const inFamily = (path: string) => families.some((f) => path.startsWith(`payments/mechanisms/${f}/`))
    // Shared code reaches a family only through its one list (paymentFamilies.ts: the family's
    // settings, handed to loadConfig by src/runtimes.ts, and its mechanism, which mechanisms.ts
    // loads), and the list only through each family's index.ts.
    const wrong = imports.filter(
      ({ from, to }) =>
        inFamily(to) &&
        !inFamily(from) &&
        !(from === 'payments/mechanisms/paymentFamilies.ts' && /^payments\/mechanisms\/[^/]+\/index\.ts$/.test(to)),
    )
    assert.deepEqual(show(wrong), [])
    // Nor does it test a network's name for its family.
    const named = sourceFiles(join(src, 'payments')).filter(
      (path) => !inFamily(path) && /eip155:|solana:/.test(readFileSync(join(src, path), 'utf8')),
    )
    assert.deepEqual(named, [])
    const listed = readFileSync(join(src, 'payments/mechanisms/paymentFamilies.ts'), 'utf8').match(
      /export const paymentFamilies[^=]*=\s*\[([^\]]*)\]/,
    )?.[1]
    assert.equal(listed?.split(',').filter((m) => m.trim()).length, families.length, 'one entry per family folder')
    // config/ reads a family's settings only through the list it is handed: it imports no payments code.
    assert.deepEqual(
      show(imports.filter(({ from, to }) => from.startsWith('config/') && to.startsWith('payments/'))),
      [],
    )
  })

  it('names a chain family (an `eip155:`, `solana:` or `sui:` id in code) only in its rooms: chains/<runtime>/ and payments/mechanisms/<family>/', () => {
    const rooms = [
      ...runtimes.map((r) => `chains/${r}/`),
      ...readdirSync(join(src, 'payments/mechanisms'))
        .filter((name) => statSync(join(src, 'payments/mechanisms', name)).isDirectory())
        .map((f) => `payments/mechanisms/${f}/`),
    ]
    // Comments may name a family as an example; code may not.
    const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1')
    const naming = sourceFiles(src).filter(
      (path) =>
        !rooms.some((room) => path.startsWith(room)) &&
        /['"`](eip155|solana|sui):/.test(code(readFileSync(join(src, path), 'utf8'))),
    )
    // The places left, each with why; mending one removes it here, and a new one fails.
    const known: Record<string, string> = {
      'ports/chainId.ts': "the one table of the runtimes' namespaces, and the decimal X-Chain-Id the spec reads as EVM",
    }
    assert.deepEqual(naming.sort(), Object.keys(known).sort())
  })

  it('has no circle between rooms', () => {
    const edges = new Map<string, Set<string>>()
    for (const { from, to } of imports) {
      const [a, b] = [roomOf(from), roomOf(to)]
      if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b))
    }
    const circles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const visit = (room: string, path: string[]) => {
      state.set(room, 'open')
      for (const next of edges.get(room) ?? []) {
        if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), room, next].join(' -> '))
        else if (!state.has(next)) visit(next, [...path, room])
      }
      state.set(room, 'done')
    }
    for (const room of edges.keys()) if (!state.has(room)) visit(room, [])
    assert.deepEqual(circles, [])
  })
})
