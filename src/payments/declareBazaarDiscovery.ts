// The x402 `bazaar` discovery extension for what the gateway sells: how a priced HTTP route or MCP
// tool is called (its input schema, an example, what it answers), declared with
// @x402/extensions' own builders so that discovery services and agents read it with its helpers.
import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar'

export const bazaarExtension = 'bazaar'

export type HttpDiscovery = {
  method: 'POST' | 'PUT' | 'PATCH'
  /** The JSON Schema of the request body (the route's own). */
  bodySchema: Record<string, unknown>
  /** An example body. */
  example?: Record<string, unknown> | undefined
  /** What a paid call answers (an example outcome). */
  outputExample?: unknown
}

export type McpDiscovery = {
  toolName: string
  description: string
  /** The tool's input schema (the one tools/list gives). */
  inputSchema: Record<string, unknown>
  example?: Record<string, unknown> | undefined
  outputExample?: unknown
}

/** `{ bazaar: … }` for a priced HTTP route, its method set as x402's HTTP server sets it. */
export function declareHttpDiscovery({
  method,
  bodySchema,
  example,
  outputExample,
}: HttpDiscovery): Record<string, unknown> {
  const declared = declareDiscoveryExtension({
    bodyType: 'json',
    input: example ?? {},
    inputSchema: bodySchema,
    ...(outputExample !== undefined ? { output: { example: outputExample } } : {}),
  })[bazaarExtension]!
  // x402's server extension fills in the method from the request; the gateway knows it up front.
  return { [bazaarExtension]: bazaarResourceServerExtension.enrichDeclaration!(declared, { method, adapter: {} }) }
}

/** `{ bazaar: … }` for a priced MCP tool (x402's MCP transport: paid in `_meta["x402/payment"]`). */
export function declareMcpDiscovery({
  toolName,
  description,
  inputSchema,
  example,
  outputExample,
}: McpDiscovery): Record<string, unknown> {
  return declareDiscoveryExtension({
    toolName,
    description,
    transport: 'streamable-http',
    inputSchema,
    ...(example ? { example } : {}),
    ...(outputExample !== undefined ? { output: { example: outputExample } } : {}),
  })
}
