// API keys: only their SHA-256 hashes are kept, and a presented key is compared with every one
// of them in constant time, so neither memory nor timing gives a key away.
import { timingSafeEqual } from 'node:crypto'
import { hashApiKey } from '../crypto/hashApiKey.ts'

export { hashApiKey }

export type ApiKeyCheck = {
  /** The short id of the matching key (for logs and limits), or undefined. */
  identify(presented: string): string | undefined
  size: number
}

export function createApiKeyCheck(keyHashes: Buffer[]): ApiKeyCheck {
  return {
    size: keyHashes.length,
    identify(presented) {
      const candidate = hashApiKey(presented)
      let match: Buffer | undefined
      // No early exit: the time taken does not depend on which key matched, or whether one did.
      for (const hash of keyHashes) if (timingSafeEqual(candidate, hash)) match = hash
      return match?.toString('hex').slice(0, 8)
    },
  }
}
