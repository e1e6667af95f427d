// PUBLIC_URL: the origin clients reach the gateway at (`https://gateway.example`), behind whatever
// proxy. It is what the gateway says its own address is (x402 `resource.url`, /discovery/resources)
// instead of echoing the request's Host, and the one host and origin `/mcp` serves in production
// (http/plugins/hostCheck.ts: DNS rebinding). Required in production while the MCP server is on or
// something is priced; reads its own variable and reports its own problems, for loadConfig.
export type PublicUrlConfigResult = { value: string | undefined; problems: string[] }

export function publicUrlConfig(
  env: Record<string, string | undefined>,
  { production, mcpEnabled, priced }: { production: boolean; mcpEnabled: boolean; priced: boolean },
): PublicUrlConfigResult {
  const problems: string[] = []
  const raw = env.PUBLIC_URL?.trim()
  if (!raw) {
    if (production && (mcpEnabled || priced)) {
      const why = mcpEnabled
        ? 'the MCP server is on (MCP_ENABLED): /mcp serves only requests naming this host (DNS rebinding)'
        : 'X402_PRICES is set: it is the base of x402 resource URLs'
      problems.push(
        `PUBLIC_URL: required in production while ${why}; set the origin clients reach the gateway at, like https://gateway.example`,
      )
    }
    return { value: undefined, problems }
  }
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {}
  const bare = raw.replace(/\/+$/, '')
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== bare) {
    problems.push(
      `PUBLIC_URL: "${raw.slice(0, 80)}" is not an origin like https://gateway.example (scheme, host and port only)`,
    )
    return { value: undefined, problems }
  }
  if (production && url.protocol !== 'https:') problems.push('PUBLIC_URL: must be https in production')
  return { value: url.origin, problems }
}
