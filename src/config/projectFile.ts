// A file of the project (package.json, ops/page/, programs/), found from wherever this code runs:
// src/ under tsx, or the bundle in dist/ (`npm run build`), whose chunks sit at another depth than
// the source file that asks.
import { existsSync, readFileSync } from 'node:fs'

const root = findProjectRoot(new URL('./', import.meta.url))

/** The URL of `path` relative to the project's root (the directory of its package.json). */
export function projectFile(path: string): URL {
  return new URL(path, root)
}

function findProjectRoot(start: URL): URL {
  for (let dir = start; ; dir = new URL('../', dir)) {
    const manifest = new URL('package.json', dir)
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'intent-gateway'
    )
      return dir
    if (dir.pathname === '/') throw new Error(`no package.json of intent-gateway above ${start.pathname}`)
  }
}
