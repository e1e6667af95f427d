// `npm run build`: the gateway as production runs it (`npm run start:prod`), bundled and minified
// by esbuild into dist/. A bundle holds far less in memory than the 740 files Node would load from
// src/'s compiled output and node_modules: V8 keeps every module's source text and records, and
// comments and whitespace are most of that text (issue 44: the bench's configuration went from
// 33 to 21 MB of heap once started). The code paths loaded only by some configurations stay in
// their own chunks (`splitting`), loaded on first use as before.
//
// Types are checked by `npm test` (`tsc --noEmit`), not here. Stack traces name functions as written,
// with positions in the bundle; `node --enable-source-maps dist/main.js` maps them to src/ through
// the .map files written beside each chunk (never loaded without that flag).
//
//   tsx scripts/build.ts [--outdir <dir>]     dist/ unless told (the test runner builds its own copy)
import { rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'

const { values } = parseArgs({ options: { outdir: { type: 'string' } } })
const outdir = values.outdir ? `${resolve(values.outdir)}/` : new URL('../dist/', import.meta.url).pathname

/**
 * Packages loaded from node_modules, not bundled: native addons, packages that find their own
 * files through `__dirname` or `createRequire` (their paths would point into dist/), and the
 * OpenTelemetry and AWS SDKs (loaded only when tracing or a KMS key is configured, and
 * OpenTelemetry's instrumentation hooks modules as Node loads them).
 */
export const unbundled = [
  // Native addons.
  'better-sqlite3',
  'secp256k1',
  'pkcs11js',
  'pg-native',
  'litesvm',
  'koffi',
  // Their own files, through __dirname or createRequire.
  'hash-wasm',
  'ioredis',
  'undici',
  'pino',
  'thread-stream',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  // Loaded only when configured.
  '@opentelemetry/*',
  '@fastify/otel',
  '@aws-sdk/*',
]

rmSync(outdir, { recursive: true, force: true })
const result = await build({
  // The gateway, and the LiteSVM devnet's child process (src/chains/solana/devnet/startLiteSvmRpc.ts).
  entryPoints: { main: 'src/main.ts', liteSvmRpcProcess: 'src/chains/solana/devnet/liteSvmRpcProcess.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Whitespace and syntax minified, identifiers kept: functions and classes are named as written
  // (error types in logs, stack traces) without esbuild's keepNames, which wraps every named
  // function in a call that defines its name again, closures made on every request included
  // (issue 44: ~4 MB lower peak in the execute bench, docs/performance.md). Where esbuild renames a
  // binding (a collision, a class that names itself), the renamed name shows: 125 classes of
  // dependencies, none of the gateway's own (docs/performance.md).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  external: unbundled,
  // CommonJS packages inside the bundle still call require() (Node's own modules, JSON).
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  metafile: true,
  logLevel: 'warning',
})
// Which source and package each chunk holds (bench/memoryAtStart.ts --modules reads it).
writeFileSync(new URL('meta.json', `file://${outdir}`), JSON.stringify(result.metafile))
