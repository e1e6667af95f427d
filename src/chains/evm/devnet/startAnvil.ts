// Starts anvil from the npm package on a free loopback port and stops it without leaving the
// process or its state behind. Used by the embedded devnet, the tests and the benchmarks.
import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'

export type Anvil = { rpcUrl: string; port: number; chainId: number; pid: number; stop(): Promise<void> }

export type StartAnvilParameters = {
  /** Seconds between blocks; automine (a block per transaction) when unset. */
  blockTime?: number
  port?: number
  /** Chain id to serve (anvil's default is 31337). */
  chainId?: number
  /** Loads the chain from this file if it exists and writes it back on stop (anvil --state). */
  statePath?: string
  readyTimeoutMs?: number
}

const require = createRequire(import.meta.url)

export function anvilBinary(): string {
  // The platform package, not the wrapper: the wrapper exits 0 whatever anvil did.
  return require.resolve('@foundry-rs/anvil-linux-amd64/bin/anvil')
}

export async function startAnvil({
  blockTime,
  port,
  chainId: requestedChainId,
  statePath,
  readyTimeoutMs = 20_000,
}: StartAnvilParameters = {}): Promise<Anvil> {
  const chosenPort = port ?? (await freePort())
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(chosenPort),
    '--silent',
    '--hardfork',
    'prague',
    '--prune-history',
    '100',
  ]
  if (blockTime) args.push('--block-time', String(blockTime))
  if (requestedChainId) args.push('--chain-id', String(requestedChainId))
  if (statePath) args.push('--state', statePath)
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000)
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const rpcUrl = `http://127.0.0.1:${chosenPort}`

  const deadline = Date.now() + readyTimeoutMs
  let chainId: number | undefined
  while (chainId === undefined) {
    if (child.exitCode !== null)
      throw new Error(`anvil exited with code ${child.exitCode} before it was ready: ${stderr.trim()}`)
    if (Date.now() > deadline) {
      await stopProcess(child, exited)
      throw new Error(`anvil did not answer on ${rpcUrl} within ${readyTimeoutMs} ms: ${stderr.trim()}`)
    }
    chainId = await readChainId(rpcUrl)
    if (chainId === undefined) await new Promise((r) => setTimeout(r, 50))
  }

  let stopping: Promise<void> | undefined
  return {
    rpcUrl,
    port: chosenPort,
    chainId,
    pid: child.pid!,
    stop: () => (stopping ??= stopProcess(child, exited)),
  }
}

async function readChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1000),
    })
    const body = (await res.json()) as { result?: string }
    return body.result ? Number(body.result) : undefined
  } catch {
    return undefined
  }
}

async function stopProcess(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  // A busy node takes a few seconds to stop; do not leave it behind.
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
