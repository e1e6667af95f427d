// The gateway's version, read once from its package.json (from src/ and from dist/'s bundle alike),
// for GET /health, the OpenAPI document and the MCP handshake.
import { readFileSync } from 'node:fs'
import { projectFile } from '../../config/projectFile.ts'

export const gatewayVersion: string = (
  JSON.parse(readFileSync(projectFile('package.json'), 'utf8')) as { version: string }
).version
