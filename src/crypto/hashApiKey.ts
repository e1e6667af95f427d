// The SHA-256 of an API key: what the gateway keeps of a key (config reads keys into it, auth compares with it).
import { hash } from 'node:crypto'

export function hashApiKey(key: string): Buffer {
  // One-shot, no Hash object per request: 0.9 µs a call against 1.5 in a loop (the profile's
  // ~15 µs per execute under createHash was not this call's alone).
  return hash('sha256', key, 'buffer')
}
