// What the gateway loads and holds at start, in the bench's configuration (bench/run.ts: EVM only,
// production's Node flags, dist/main.js, MCP on, no payments): its RSS and heap once ready, and the
// modules it loaded, counted by package (a resolve hook records every file it imports). Medians of
// three starts (MEMORY_STARTS=N for more), and each start's resident memory by kind of mapping,
// 6 s after it answered /health (MEMORY_SETTLE_MS; NATIVE_HEAP_TRIM_MS=0 to start without the trim).
// `npx tsx bench/memoryAtStart.ts [--modules]` (`npm run build` first).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseEther, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { productionCommand } from '../scripts/productionCommand.ts'
import { createDevClients, startDevnet } from './gatewayParts.ts'
import { writeModuleLogHook } from './moduleLogHook.ts'

const starts = Number(process.env.MEMORY_STARTS ?? 3)
const showModules = process.argv.includes('--modules')
/** How long after /health answers a start is measured: past the native heap's first trim (5 s after listening). */
const settleMs = Number(process.env.MEMORY_SETTLE_MS ?? 6_000)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const dir = mkdtempSync(join(tmpdir(), 'memory-at-start-'))
const hook = writeModuleLogHook(dir)

const devnet = await startDevnet()
// A key of its own (production refuses the devnet's public keys), funded on the devnet.
const relayerKey = generatePrivateKey()
await createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId).publicClient.request({
  method: 'anvil_setBalance' as never,
  params: [privateKeyToAccount(relayerKey).address, toHex(parseEther('1000'))] as never,
})
const rss: number[] = []
const heap: number[] = []
let modules: string[] = []
try {
  for (let i = 0; i < starts; i++) {
    const port = 10_000 + Math.floor(Math.random() * 22_000)
    const moduleLog = join(dir, `modules-${i}.log`)
    writeFileSync(moduleLog, '')
    const child = spawn(
      process.execPath,
      [...productionCommand().nodeFlags, ...(showModules ? ['--import', hook] : []), 'dist/main.js'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          ...productionCommand().env,
          NODE_ENV: 'production',
          LOG_LEVEL: 'warn',
          PORT: String(port),
          HOST: '127.0.0.1',
          PUBLIC_URL: `https://127.0.0.1:${port}`,
          EXECUTOR_ADDRESSES: JSON.stringify({ [devnet.chain.reference]: devnet.contracts.executor }),
          VALIDATOR_ADDRESSES: JSON.stringify({ [devnet.chain.reference]: devnet.contracts.validator }),
          REGISTRY_ADDRESSES: JSON.stringify({ [devnet.chain.reference]: devnet.contracts.registry }),
          RPC_URLS: JSON.stringify({ [devnet.chain.reference]: devnet.anvil.rpcUrl }),
          RELAYER_PRIVATE_KEY: relayerKey,
          API_KEYS: `bench-${generatePrivateKey().slice(2, 34)}`,
          JOURNAL_PATH: join(dir, `journal-${i}.sqlite`),
          MODULE_LOG: moduleLog,
          // The gateway's trim of freed native memory, 5 s after listening (0: off, to compare).
          ...(process.env.NATIVE_HEAP_TRIM_MS ? { NATIVE_HEAP_TRIM_MS: process.env.NATIVE_HEAP_TRIM_MS } : {}),
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    )
    const deadline = Date.now() + 60_000
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) break
      if (Date.now() > deadline) throw new Error('the gateway did not start')
      await new Promise((r) => setTimeout(r, 100))
    }
    // Settled: what start-up left behind, after the gateway's first trim of freed native memory.
    await new Promise((r) => setTimeout(r, settleMs))
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
    rss.push(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024)
    const parts = residentByKind(child.pid!)
    process.stdout.write(
      `start ${i + 1}: RSS ${rss.at(-1)!.toFixed(1)} MB: ${Object.entries(parts)
        .map(([kind, mb]) => `${kind} ${mb.toFixed(1)}`)
        .join(', ')}\n`,
    )
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text().catch(() => '')
    const used = /^nodejs_heap_size_used_bytes (\S+)/m.exec(metrics)
    if (used) heap.push(Number(used[1]) / 1024 / 1024)
    child.kill('SIGKILL')
    modules = [...new Set(readFileSync(moduleLog, 'utf8').split('\n').filter(Boolean))]
  }
} finally {
  await devnet.stop()
}
process.stdout.write(
  `idle RSS after start: median ${median(rss).toFixed(1)} MB of ${rss.map((r) => r.toFixed(1)).join(', ')}\n`,
)
if (heap.length > 0) process.stdout.write(`heap used: median ${median(heap).toFixed(1)} MB\n`)
if (showModules) {
  // The bundle's chunks (npm run build) each hold many source files: dist/meta.json, esbuild's
  // metafile, names them.
  const bundle = JSON.parse(readFileSync('dist/meta.json', 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>
  }
  const distDir = `${process.cwd()}/dist/`
  const sources = modules.flatMap((url) => {
    const path = decodeURIComponent(new URL(url).pathname)
    return path.startsWith(distDir)
      ? Object.keys(bundle.outputs[`dist/${path.slice(distDir.length)}`]?.inputs ?? {})
      : [path]
  })
  const byPackage = new Map<string, number>()
  for (const path of sources) {
    const at = path.lastIndexOf('node_modules/')
    const name = at < 0 ? '(gateway)' : (path.slice(at + 13).match(/^(@[^/]+\/[^/]+|[^/]+)/)?.[1] ?? path)
    byPackage.set(name, (byPackage.get(name) ?? 0) + 1)
  }
  const chunks = modules.filter((url) => decodeURIComponent(new URL(url).pathname).startsWith(distDir)).length
  process.stdout.write(
    `${modules.length} files loaded (${chunks} of them the bundle's chunks), holding ${sources.length} source files, by package:\n`,
  )
  for (const [name, n] of [...byPackage].sort((a, b) => b[1] - a[1]))
    process.stdout.write(`  ${String(n).padStart(5)}  ${name}\n`)
}
rmSync(dir, { recursive: true, force: true })

/**
 * The process's resident memory by kind of mapping (/proc/<pid>/smaps): files (node's binary, its
 * libraries, the bundle), `[heap]` (the C allocator's main heap: native allocations under its mmap
 * threshold) and other anonymous mappings (V8's heap, threads' stacks, larger native allocations).
 */
function residentByKind(pid: number): Record<'file' | 'malloc heap' | 'other anonymous', number> {
  const kb = { file: 0, 'malloc heap': 0, 'other anonymous': 0 }
  let kind: keyof typeof kb = 'other anonymous'
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (mapping) {
      const name = mapping[1] ?? ''
      kind = name.startsWith('/') ? 'file' : name === '[heap]' ? 'malloc heap' : 'other anonymous'
      continue
    }
    const resident = /^Rss:\s+(\d+) kB/.exec(line)
    if (resident) kb[kind] += Number(resident[1])
  }
  return {
    file: kb.file / 1024,
    'malloc heap': kb['malloc heap'] / 1024,
    'other anonymous': kb['other anonymous'] / 1024,
  }
}
