// The command production runs the gateway with (`npm run start:prod`), read from package.json so
// that the benchmark and the tests run the gateway exactly as it:
// `[NAME=value ...] node <flags> dist/main.js`.
import { readFileSync } from 'node:fs'

export type ProductionCommand = {
  /** The environment start:prod sets before `node` (MALLOC_ARENA_MAX: glibc reads it at start only). */
  env: Record<string, string>
  /** The Node flags, in order. */
  nodeFlags: string[]
}

export function productionCommand(
  packageJsonPath: string | URL = new URL('../package.json', import.meta.url),
): ProductionCommand {
  const script = (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { scripts?: Record<string, string> }).scripts?.[
    'start:prod'
  ]
  const words = script?.trim().split(/\s+/) ?? []
  const assignments = words.findIndex((word) => !/^[A-Z_][A-Z0-9_]*=\S*$/.test(word))
  const env = Object.fromEntries(
    words
      .slice(0, Math.max(0, assignments))
      .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  )
  const command = words.slice(Math.max(0, assignments))
  if (command[0] !== 'node' || command.at(-1) !== 'dist/main.js')
    throw new Error(`package.json's start:prod is not "[NAME=value ...] node [flags] dist/main.js": ${script}`)
  return { env, nodeFlags: command.slice(1, -1) }
}

/** The Node flags of `npm run start:prod`, in order. */
export function productionNodeFlags(packageJsonPath?: string | URL): string[] {
  return productionCommand(packageJsonPath).nodeFlags
}
