// The sBPF v0 packer on small objects compiled here: what it writes, and what it refuses.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { clangArguments } from '../scripts/buildSolanaProgram.ts'
import { packSbf } from '../scripts/packSbf.ts'

const dir = mkdtempSync(join(tmpdir(), 'pack-sbf-test-'))
function compile(source: string): Uint8Array {
  writeFileSync(join(dir, 'p.c'), source)
  execFileSync(process.env.CLANG ?? 'clang', [...clangArguments, 'p.c', '-o', 'p.o'], { cwd: dir })
  return readFileSync(join(dir, 'p.o'))
}

function sections(elf: Uint8Array) {
  const v = new DataView(elf.buffer, elf.byteOffset, elf.byteLength)
  const shoff = Number(v.getBigUint64(40, true))
  const count = v.getUint16(60, true)
  const strtab = Number(v.getBigUint64(shoff + v.getUint16(62, true) * 64 + 24, true))
  return Array.from({ length: count }, (_, i) => {
    const at = shoff + i * 64
    let end = strtab + v.getUint32(at, true)
    const start = end
    while (elf[end] !== 0) end++
    return { name: Buffer.from(elf.subarray(start, end)).toString(), addr: v.getBigUint64(at + 16, true), offset: v.getBigUint64(at + 24, true), size: v.getBigUint64(at + 32, true) }
  })
}

describe('packSbf', () => {
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('writes an ET_DYN for e_machine 247 with e_flags 0, sections at their file offsets, and one dynamic relocation per syscall call', () => {
    const elf = packSbf(
      compile(`
        extern void sol_log_(const char *, unsigned long long);
        static const char A[] = "hello";
        static __attribute__((noinline)) void twice(void) { sol_log_(A, 5); sol_log_(A + 1, 4); }
        unsigned long long entrypoint(const unsigned char *in) { twice(); return in[0]; }
      `),
    )
    const v = new DataView(elf.buffer, elf.byteOffset, elf.byteLength)
    assert.equal(v.getUint16(16, true), 3, 'ET_DYN')
    assert.equal(v.getUint16(18, true), 247, 'EM_BPF')
    assert.equal(v.getUint32(48, true), 0, 'sBPF v0')
    const list = sections(elf)
    assert.deepEqual(list.map((s) => s.name), ['', '.text', '.rodata', '.dynamic', '.dynsym', '.dynstr', '.rel.dyn', '.shstrtab'])
    for (const s of list.slice(1, 7)) assert.equal(s.addr, s.offset, s.name)
    const relDyn = list.find((s) => s.name === '.rel.dyn')!
    assert.equal(relDyn.size, 32n, 'two calls to sol_log_')
    const dynstr = list.find((s) => s.name === '.dynstr')!
    assert.match(Buffer.from(elf.subarray(Number(dynstr.offset), Number(dynstr.offset + dynstr.size))).toString('latin1'), /\0entrypoint\0sol_log_\0/)
    // Each relocated call keeps imm -1 for the loader.
    for (let at = Number(relDyn.offset); at < Number(relDyn.offset + relDyn.size); at += 16) {
      const insn = Number(v.getBigUint64(at, true))
      assert.equal(elf[insn], 0x85, 'call')
      assert.equal(v.getInt32(insn + 4, true), -1)
    }
  })

  it('refuses writable globals and objects without read-only data', () => {
    assert.throws(() => packSbf(compile('unsigned long long counter = 1; unsigned long long entrypoint(const unsigned char *in) { counter += in[0]; return counter; }')), /writable: sBPF programs have no writable globals/)
    assert.throws(() => packSbf(compile('unsigned long long entrypoint(const unsigned char *in) { return in[0]; }')), /no read-only data/)
    assert.throws(() => packSbf(compile('unsigned long long start(const unsigned char *in) { static const char s[] = "xy"; return s[in[0] & 1]; }')), /no function named entrypoint/)
  })
})
