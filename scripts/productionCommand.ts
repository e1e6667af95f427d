// The command production runs the gateway with (`npm run start:prod`), read from package.json so
// that the benchmark and the tests run the gateway exactly as it: `node <flags> dist/main.js`.
import { readFileSync } from 'node:fs'

/** The Node flags of `npm run start:prod`, in order. */
export function productionNodeFlags(packageJsonPath: string | URL = new URL('../package.json', import.meta.url)): string[] {
  const script = (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { scripts?: Record<string, string> }).scripts?.['start:prod']
  const words = script?.trim().split(/\s+/) ?? []
  if (words[0] !== 'node' || words.at(-1) !== 'dist/main.js') throw new Error(`package.json's start:prod is not "node [flags] dist/main.js": ${script}`)
  return words.slice(1, -1)
}
