// Starts the LiteSVM JSON-RPC front in a child process of its own (the SVM is native code and
// busy while it runs a transaction; the gateway's event loop stays free).
import { fork } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { projectFile } from '../../../config/projectFile.ts'

export type LiteSvmRpcProcess = { url: string; genesisHash: string; pid: number; stop(): Promise<void> }

// From source (tsx) the child runs the .ts file through tsx; from a build, the compiled file beside
// this one (npm run build:files) or the bundle's own entry point for it (npm run build).
const fromSource = import.meta.url.endsWith('.ts')
const beside = new URL(fromSource ? './liteSvmRpcProcess.ts' : './liteSvmRpcProcess.js', import.meta.url)
const entry = fileURLToPath(fromSource || existsSync(beside) ? beside : projectFile('dist/liteSvmRpcProcess.js'))

export async function startLiteSvmRpc({
  port = 0,
  startTimeoutMs = 20_000,
  allowSbpfV0Deployment = false,
}: {
  port?: number
  startTimeoutMs?: number
  allowSbpfV0Deployment?: boolean
} = {}): Promise<LiteSvmRpcProcess> {
  const child = fork(entry, [String(port), allowSbpfV0Deployment ? 'allow-sbpf-v0' : 'sbpf-v3-only'], {
    execArgv: fromSource ? ['--import', import.meta.resolve('tsx')] : [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const ready = await new Promise<{ url: string; genesisHash: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the Solana devnet did not start in time')), startTimeoutMs)
    child.once('message', (m) => {
      clearTimeout(timer)
      resolve(m as { url: string; genesisHash: string })
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the Solana devnet exited with code ${code} before it was ready`))
    })
  })
  return {
    ...ready,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}
