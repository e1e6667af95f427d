// The packer on small objects compiled here: what it writes as SBPF v0 and as SBPF v3, and what it
// refuses.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { clangArguments } from '../../scripts/buildSolanaProgram.ts'
import { murmur3 } from '../../scripts/murmur3.ts'
import { packSbf } from '../../scripts/packSbf.ts'

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
    return {
      name: Buffer.from(elf.subarray(start, end)).toString(),
      addr: v.getBigUint64(at + 16, true),
      offset: v.getBigUint64(at + 24, true),
      size: v.getBigUint64(at + 32, true),
    }
  })
}

const twiceSource = `
  extern void sol_log_(const char *, unsigned long long);
  static const char A[] = "hello";
  static __attribute__((noinline)) void twice(void) { sol_log_(A, 5); sol_log_(A + 1, 4); }
  unsigned long long entrypoint(const unsigned char *in) { twice(); return in[0]; }
`

function programHeaders(elf: Uint8Array) {
  const v = new DataView(elf.buffer, elf.byteOffset, elf.byteLength)
  return Array.from({ length: v.getUint16(56, true) }, (_, i) => {
    const at = Number(v.getBigUint64(32, true)) + i * 56
    return {
      type: v.getUint32(at, true),
      flags: v.getUint32(at + 4, true),
      offset: v.getBigUint64(at + 8, true),
      vaddr: v.getBigUint64(at + 16, true),
      paddr: v.getBigUint64(at + 24, true),
      filesz: v.getBigUint64(at + 32, true),
      memsz: v.getBigUint64(at + 40, true),
    }
  })
}

describe('murmur3', () => {
  it("hashes syscall names as the SBPF loader does (the values of the Solana SDK's syscall declarations)", () => {
    const hash = (name: string) => murmur3(new TextEncoder().encode(name))
    assert.equal(hash('sol_log_'), 0x207559bd)
    assert.equal(hash('abort'), 0xb6fc1a11)
    assert.equal(hash('sol_invoke_signed_c'), 0xa22b9c85)
    assert.equal(hash('sol_log_64_'), 0x5c2a3178)
    assert.equal(hash('entrypoint'), 0x71e3cf81)
  })
})

describe('packSbf', () => {
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('writes an ET_DYN for e_machine 247 with e_flags 0, sections at their file offsets, and one dynamic relocation per syscall call', () => {
    const elf = packSbf(compile(twiceSource))
    const v = new DataView(elf.buffer, elf.byteOffset, elf.byteLength)
    assert.equal(v.getUint16(16, true), 3, 'ET_DYN')
    assert.equal(v.getUint16(18, true), 247, 'EM_BPF')
    assert.equal(v.getUint32(48, true), 0, 'sBPF v0')
    const list = sections(elf)
    assert.deepEqual(
      list.map((s) => s.name),
      ['', '.text', '.rodata', '.dynamic', '.dynsym', '.dynstr', '.rel.dyn', '.shstrtab'],
    )
    for (const s of list.slice(1, 7)) assert.equal(s.addr, s.offset, s.name)
    const relDyn = list.find((s) => s.name === '.rel.dyn')!
    assert.equal(relDyn.size, 32n, 'two calls to sol_log_')
    const dynstr = list.find((s) => s.name === '.dynstr')!
    assert.match(
      Buffer.from(elf.subarray(Number(dynstr.offset), Number(dynstr.offset + dynstr.size))).toString('latin1'),
      /\0entrypoint\0sol_log_\0/,
    )
    // Each relocated call keeps imm -1 for the loader.
    for (let at = Number(relDyn.offset); at < Number(relDyn.offset + relDyn.size); at += 16) {
      const insn = Number(v.getBigUint64(at, true))
      assert.equal(elf[insn], 0x85, 'call')
      assert.equal(v.getInt32(insn + 4, true), -1)
    }
  })

  it('writes SBPF v3 as SIMD-0189 wants it: e_flags 3, two PT_LOAD headers (read-only data at 0, bytecode at 1 << 32) right after the header, no dynamic section; syscalls by hash, internal calls relative', () => {
    const object = compile(twiceSource)
    const elf = packSbf(object, { version: 'v3' })
    const v = new DataView(elf.buffer, elf.byteOffset, elf.byteLength)
    assert.deepEqual([...elf.subarray(0, 16)], [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    assert.equal(v.getUint16(16, true), 3, 'ET_DYN')
    assert.equal(v.getUint16(18, true), 247, 'EM_BPF')
    assert.equal(v.getUint32(48, true), 3, 'SBPF v3')
    assert.equal(v.getBigUint64(32, true), 64n, 'program headers right after the ELF header')
    const [rodata, text, ...rest] = programHeaders(elf)
    assert.equal(rest.length, 0)
    assert.deepEqual(
      { ...rodata, filesz: undefined, memsz: undefined },
      { type: 1, flags: 4, offset: 176n, vaddr: 0n, paddr: 0n, filesz: undefined, memsz: undefined },
    )
    assert.deepEqual(
      { ...text, filesz: undefined, memsz: undefined },
      {
        type: 1,
        flags: 1,
        offset: 176n + rodata!.filesz,
        vaddr: 1n << 32n,
        paddr: 1n << 32n,
        filesz: undefined,
        memsz: undefined,
      },
    )
    assert.equal(rodata!.filesz % 8n, 0n)
    assert.equal(text!.filesz % 8n, 0n)
    const entry = v.getBigUint64(24, true)
    assert.ok(entry >= 1n << 32n && entry < (1n << 32n) + text!.filesz)
    assert.deepEqual(
      sections(elf).map((s) => s.name),
      ['', '.rodata', '.text', '.shstrtab'],
    )
    // "hello" is in the read-only segment, past the padding that keeps address 0 free.
    assert.equal(Buffer.from(elf.subarray(176 + 8, 176 + 13)).toString(), 'hello')

    const code = elf.subarray(Number(text!.offset), Number(text!.offset + text!.filesz))
    const cv = new DataView(code.buffer, code.byteOffset, code.byteLength)
    const calls = []
    for (let at = 0; at < code.length; at += code[at] === 0x18 ? 16 : 8)
      if (code[at] === 0x85) calls.push({ at, src: code[at + 1]! >> 4, imm: cv.getInt32(at + 4, true) })
    const syscalls = calls.filter((c) => c.src === 0)
    assert.equal(syscalls.length, 2)
    for (const c of syscalls) assert.equal(c.imm >>> 0, 0x207559bd, 'sol_log_ by its hash')
    const internal = calls.filter((c) => c.src === 1)
    assert.equal(internal.length, 1, 'entrypoint calls twice')
    const target = internal[0]!.at / 8 + 1 + internal[0]!.imm
    assert.ok(
      target >= 0 && target < code.length / 8 && target !== Number(entry - (1n << 32n)) / 8,
      'a relative call to another function of ours',
    )
    // The lddw pointers are addresses in the read-only segment: A at 8 (clang adds 1 for A + 1).
    const pointers = []
    for (let at = 0; at < code.length; at += code[at] === 0x18 ? 16 : 8) {
      if (code[at] === 0x18)
        pointers.push(BigInt(cv.getUint32(at + 4, true)) | (BigInt(cv.getUint32(at + 12, true)) << 32n))
    }
    assert.ok(pointers.length > 0)
    for (const p of pointers) assert.equal(p, 8n)
  })

  it('builds v0 and v3 from the same object with the same instructions but calls and lddw addresses', () => {
    const object = compile(twiceSource)
    const v0 = packSbf(object, { version: 'v0' })
    const v3 = packSbf(object, { version: 'v3' })
    const textOf = (elf: Uint8Array) => {
      const s = sections(elf).find((x) => x.name === '.text')!
      return elf.subarray(Number(s.offset), Number(s.offset + s.size))
    }
    const a = textOf(v0)
    const b = textOf(v3)
    assert.equal(a.length, b.length)
    for (let at = 0; at < a.length; at += 8) {
      if (a[at] === 0x85 || (at >= 8 && a[at - 8] === 0x18)) continue
      if (a[at] === 0x18) continue
      assert.ok(Buffer.from(a.subarray(at, at + 8)).equals(b.subarray(at, at + 8)), `instruction at ${at}`)
    }
  })

  it('stops the build naming an instruction it does not translate exactly (atomics, callx)', () => {
    const atomic = compile(
      'static const char A[] = "hi"; unsigned long long entrypoint(unsigned long long *in) { __sync_fetch_and_add(in, 3); return A[in[1] & 1]; }',
    )
    for (const version of ['v0', 'v3'] as const)
      assert.throws(
        () => packSbf(atomic, { version }),
        new RegExp(`instruction atomic dw \\(opcode 0xdb\\) at \\.text\\+8 is not supported in SBPF ${version}`),
      )
    const callx = compile(
      'static const char A[] = "hi"; unsigned long long entrypoint(unsigned long long (*f)(void), unsigned long long x) { return f() + A[x & 1]; }',
    )
    assert.throws(
      () => packSbf(callx, { version: 'v3' }),
      /instruction callx \(opcode 0x8d\) at \.text\+\d+ is not supported in SBPF v3/,
    )
  })

  it('refuses writable globals and objects without read-only data', () => {
    assert.throws(
      () =>
        packSbf(
          compile(
            'unsigned long long counter = 1; unsigned long long entrypoint(const unsigned char *in) { counter += in[0]; return counter; }',
          ),
        ),
      /writable: sBPF programs have no writable globals/,
    )
    assert.throws(
      () => packSbf(compile('unsigned long long entrypoint(const unsigned char *in) { return in[0]; }')),
      /no read-only data/,
    )
    assert.throws(
      () =>
        packSbf(
          compile(
            'unsigned long long start(const unsigned char *in) { static const char s[] = "xy"; return s[in[0] & 1]; }',
          ),
        ),
      /no function named entrypoint/,
    )
  })
})
