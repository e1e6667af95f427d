// Reads an `Authorization: Bearer <key>` header and names the configured key it holds, if any.
import type { ApiKeyCheck } from './createApiKeyCheck.ts'

export function identifyBearerKey(check: ApiKeyCheck, header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  return match ? check.identify(match[1]!) : undefined
}
