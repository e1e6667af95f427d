// A priced tool's x402 `bazaar` declaration: the tool's name, description and input schema as
// tools/list gives them, so that discovery lists it as an MCP resource paid in `_meta["x402/payment"]`.
import { declareMcpDiscovery } from '../../payments/declareBazaarDiscovery.ts'
import type { McpTool } from './mcpTools.ts'

export function mcpDiscoveryOf(tool: McpTool): Record<string, unknown> {
  const example = tool.examples?.intent
  return declareMcpDiscovery({
    toolName: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as unknown as Record<string, unknown>,
    example: example ? { intent: example as Record<string, unknown> } : undefined,
    outputExample: tool.examples?.answer,
  })
}
