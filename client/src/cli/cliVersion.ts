// The client package's version (semver), read once from its package.json: the same relative path
// from src/cli/ and from dist/cli/.
import { readFileSync } from 'node:fs'

export const cliVersion: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version
