// Compiles the C programs in programs/solana (intent_gateway.c, and probe_target.c, the tests'
// target) with Debian's clang for BPF and packs each into the sBPF v0 program the repository
// commits next to it (intent_gateway.so, probe_target.so). Shared by the
// build command (`npx tsx scripts/buildSolanaProgram.ts`) and the test that proves the committed
// program is what the source builds to.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packSbf } from './packSbf.ts'

export const solanaProgramDir = fileURLToPath(new URL('../programs/solana/', import.meta.url))
export const solanaProgramSource = join(solanaProgramDir, 'intent_gateway.c')
export const solanaProgramPath = join(solanaProgramDir, 'intent_gateway.so')
/** The programs this script builds, by name (`<name>.c` → `<name>.so`). */
export const solanaProgramNames = ['intent_gateway', 'probe_target'] as const
export type SolanaProgramName = (typeof solanaProgramNames)[number]
export const solanaProgramFile = (name: SolanaProgramName) => join(solanaProgramDir, `${name}.so`)

/** The exact compiler command: the committed .so is what this produces with Debian's clang 14. */
export const clangArguments = ['-target', 'bpf', '-mcpu=v1', '-O2', '-ffreestanding', '-fno-builtin', '-fno-function-sections', '-Wall', '-Werror', '-c']

export function buildSolanaProgram({ clang = process.env.CLANG ?? 'clang', name = 'intent_gateway' }: { clang?: string; name?: SolanaProgramName } = {}): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'intent-gateway-sbf-'))
  try {
    const object = join(dir, `${name}.o`)
    // Compiled from inside the program folder with a relative name, so no absolute path can
    // leak into the object.
    try {
      execFileSync(clang, [...clangArguments, `${name}.c`, '-o', object], { cwd: solanaProgramDir, stdio: ['ignore', 'inherit', 'inherit'] })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${clang} not found: the Solana program is built with Debian's clang (apt-get install -y clang), or set CLANG`)
      throw err
    }
    return packSbf(readFileSync(object))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const name of solanaProgramNames) {
    const program = buildSolanaProgram({ name })
    writeFileSync(solanaProgramFile(name), program)
    process.stdout.write(`wrote programs/solana/${name}.so (${program.length} bytes)\n`)
  }
}
