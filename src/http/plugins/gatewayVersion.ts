// The gateway's version, read once from its package.json (the same relative path from src/ and
// from dist/), for GET /health, the OpenAPI document and the MCP handshake.
import { readFileSync } from 'node:fs'

export const gatewayVersion: string = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version
