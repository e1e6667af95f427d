// The project's TypeScript as JavaScript for the test runner (scripts/runTests.ts): a mirror of the
// project under .cache/test-js/ where every .ts file is compiled by esbuild (types stripped, one
// file at a time, relative `.ts` imports pointing at the `.js` beside them) and every other file,
// the .ts sources included, is a symbolic link to the original. A test file runs there with plain
// `node --test`: Node 20 then loads the project's modules as it loads any JavaScript, without
// tsx's loader hooks, which cost ~1.7 s of CPU each time a test process loads the gateway's graph.
// Tests that read the sources (the house's tests), fixtures or the project's files find them
// through the links; the node_modules above are the project's.
//
// Types are checked by `tsc --noEmit` in `npm test`, not here. A stack trace names the compiled
// file: each carries its source map inline (`node --enable-source-maps` maps it back).
//
//   tsx scripts/compileTests.ts [--outdir <dir>]     .cache/test-js unless told
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { transform } from 'esbuild'

const root = resolve(new URL('..', import.meta.url).pathname)

/**
 * Linked whole, not walked: installed packages, builds, what the gateway writes, git's files and
 * the caches (this mirror among them; tests keep tools there). A test builds dist/ and starts it
 * from the mirror.
 */
const linkedWhole = new Set(['node_modules', 'dist', 'data', '.devnet', '.git', '.cache'])

/** `./x.ts` → `./x.js` in static imports, re-exports and dynamic imports of relative paths. */
const relativeTs = /((?:\bfrom|\bimport)\s*\(?\s*)(["'])(\.{1,2}\/[^"']*?)\.ts\2/g

export async function compileTests(to: string): Promise<number> {
  rmSync(to, { recursive: true, force: true })
  const sources: string[] = []
  const walk = (dir: string) => {
    mkdirSync(join(to, relative(root, dir)), { recursive: true })
    // The project's build goes to its own dist/ whether or not one is there yet.
    if (dir === root) symlinkSync(join(root, 'dist'), join(to, 'dist'))
    for (const name of readdirSync(dir)) {
      if (dir === root && name === 'dist') continue
      const path = join(dir, name)
      if (linkedWhole.has(name)) {
        symlinkSync(path, join(to, relative(root, path)))
        continue
      }
      const stat = lstatSync(path)
      if (stat.isDirectory()) walk(path)
      else {
        symlinkSync(path, join(to, relative(root, path)))
        if (name.endsWith('.ts') && !name.endsWith('.d.ts')) sources.push(path)
      }
    }
  }
  walk(root)
  await Promise.all(
    sources.map(async (path) => {
      const { code } = await transform(readFileSync(path, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcemap: 'inline',
        sourcefile: path,
      })
      const compiled = join(to, `${relative(root, path).slice(0, -3)}.js`)
      // A .js file of the project beside a .ts of the same name would be written through its link.
      if (existsSync(compiled)) throw new Error(`${relative(root, path)}: a .js file of the same name is beside it`)
      writeFileSync(compiled, code.replace(relativeTs, '$1$2$3.js$2'))
    }),
  )
  return sources.length
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } } })
  const outdir = resolve(values.outdir ?? join(root, '.cache/test-js'))
  const started = performance.now()
  const count = await compileTests(outdir)
  process.stdout.write(
    `compiled ${count} TypeScript files into ${relative(root, outdir)}/ in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  )
}
