// Payments reach a chain through the endpoints its runtime lends (src/ports/chainEndpoints.ts):
// the chains' pool, failover, standing and metrics. No file of src/payments/ builds a transport
// of its own from a URL (viem's http or webSocket, @solana/kit's default RPC or transport).
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'

const src = resolve(import.meta.dirname, '../../src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : []
  })
}

/** A transport built from a URL: viem's `http(`, `webSocket(`; kit's `createSolanaRpc(`, `createDefaultRpcTransport(`, subscriptions. */
const ownTransport =
  /(?<![\w.])(?:http|webSocket)\s*\(|\bcreateSolanaRpc\s*\(|\bcreateDefaultRpcTransport\b|\bcreateSolanaRpcSubscriptions\b|\bcreateHttpTransport\w*\b/

/** The lines of a source text that build a transport of their own (comments aside). */
function transportsBuilt(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, ''))
    .filter((line) => !/^\s*\*/.test(line) && ownTransport.test(line))
    .map((line) => line.trim())
}

describe('payments use the endpoints the runtimes lend', () => {
  it('no file of src/payments/ builds a transport from a URL', () => {
    const found = sourceFiles(join(src, 'payments')).flatMap((path) =>
      transportsBuilt(readFileSync(path, 'utf8')).map((line) => `${relative(src, path)}: ${line}`),
    )
    assert.deepEqual(found, [])
  })

  it('the check sees a planted one', () => {
    const planted = [
      "import { createPublicClient, http } from 'viem'",
      'const client = createPublicClient({ transport: http(url, { timeout: 5_000 }) })',
      'const rpc = createSolanaRpc(url)',
      'const transport = createDefaultRpcTransport({ url })',
      'const ws = webSocket(url)',
      '// http(url) in a comment says why, and is no transport',
      'const rpc = createSolanaRpcFromTransport(lent)',
      'const transport = toEvmTransport(lent)',
    ].join('\n')
    assert.deepEqual(transportsBuilt(planted), [
      'const client = createPublicClient({ transport: http(url, { timeout: 5_000 }) })',
      'const rpc = createSolanaRpc(url)',
      'const transport = createDefaultRpcTransport({ url })',
      'const ws = webSocket(url)',
    ])
  })
})
