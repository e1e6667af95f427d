// The gateway's version (semver), read once from the package.json at the repository's root: the
// same relative path from src/ (npm start, tsx) and from dist/ (npm run start:prod).
import { readFileSync } from 'node:fs'

export const gatewayVersion: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version
