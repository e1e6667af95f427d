// Compiles the C programs in programs/solana (intent_gateway.c, and probe_target.c, the tests'
// target) with Debian's clang for BPF and packs each object twice, into the programs the
// repository commits next to it: `<name>.so`, SBPF v3 (what Loader V3 deploys once SIMD-0500 is
// active, and what the devnet deploys), and `<name>.v0.so`, SBPF v0 (for clusters where v3 is not
// enabled yet). Shared by the build command (`npx tsx scripts/buildSolanaProgram.ts`) and the
// tests that prove the committed programs are what the source builds to.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packSbf } from './packSbf.ts'
import type { SbpfVersion } from './sbpfProgram.ts'

export const solanaProgramDir = fileURLToPath(new URL('../programs/solana/', import.meta.url))
export const solanaProgramSource = join(solanaProgramDir, 'intent_gateway.c')
export const solanaProgramPath = join(solanaProgramDir, 'intent_gateway.so')
/** The programs this script builds, by name (`<name>.c` → `<name>.so`, `<name>.v0.so`). */
export const solanaProgramNames = ['intent_gateway', 'probe_target'] as const
export type SolanaProgramName = (typeof solanaProgramNames)[number]
export const sbpfVersions = ['v3', 'v0'] as const satisfies readonly SbpfVersion[]
export const solanaProgramFile = (name: SolanaProgramName, version: SbpfVersion = 'v3') =>
  join(solanaProgramDir, version === 'v3' ? `${name}.so` : `${name}.${version}.so`)

/** The exact compiler command: the committed .so is what this produces with Debian's clang 14. */
export const clangArguments = [
  '-target',
  'bpf',
  '-mcpu=v1',
  '-O2',
  '-ffreestanding',
  '-fno-builtin',
  '-fno-function-sections',
  '-Wall',
  '-Werror',
  '-c',
]

export function buildSolanaProgram({
  clang = process.env.CLANG ?? 'clang',
  name = 'intent_gateway',
  version = 'v3',
}: {
  clang?: string
  name?: SolanaProgramName
  version?: SbpfVersion
} = {}): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'intent-gateway-sbf-'))
  try {
    const object = join(dir, `${name}.o`)
    // Compiled from inside the program folder with a relative name, so no absolute path can
    // leak into the object.
    try {
      execFileSync(clang, [...clangArguments, `${name}.c`, '-o', object], {
        cwd: solanaProgramDir,
        stdio: ['ignore', 'inherit', 'inherit'],
      })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        throw new Error(
          `${clang} not found: the Solana program is built with Debian's clang (apt-get install -y clang), or set CLANG`,
        )
      throw err
    }
    return packSbf(readFileSync(object), { version })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const name of solanaProgramNames) {
    for (const version of sbpfVersions) {
      const program = buildSolanaProgram({ name, version })
      const file = solanaProgramFile(name, version)
      writeFileSync(file, program)
      process.stdout.write(
        `wrote programs/solana/${file.slice(solanaProgramDir.length)} (SBPF ${version}, ${program.length} bytes)\n`,
      )
    }
  }
}
