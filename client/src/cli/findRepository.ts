// Where the gateway's source is, for `intent-gateway start`: the checkout this package sits in,
// else the working directory or one of its parents.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export function findRepository(cwd: string): string | undefined {
  const candidates = [resolve(dirname(fileURLToPath(import.meta.url)), '../../..')]
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    candidates.push(dir)
    if (dirname(dir) === dir) break
  }
  return candidates.find(isGatewayCheckout)
}

function isGatewayCheckout(dir: string): boolean {
  try {
    return (
      existsSync(join(dir, 'src/main.ts')) &&
      JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name === 'intent-gateway'
    )
  } catch {
    return false
  }
}
