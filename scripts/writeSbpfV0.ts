// Writes SBPF v0 (`e_flags` 0), the oldest loadable format: an ELF64 ET_DYN for e_machine 247
// with `.text` and `.rodata` mapped at their file offsets (the program region starts at
// 0x1_0000_0000), and a dynamic section whose relocations name the syscalls: each syscall call
// keeps imm -1 and gets an R_BPF_64_32 relocation naming its symbol, which the loader turns into
// the murmur3 hash of the name at load time.
import type { LinkedProgram } from './sbpfProgram.ts'

const EM_BPF = 247
const R_BPF_64_32 = 10
const MM_PROGRAM_START = 0x1_0000_0000n

export function writeSbpfV0({
  text: linked,
  rodata,
  entry,
  pointers,
  syscalls: syscallCalls,
}: LinkedProgram): Uint8Array {
  // File layout: header, 3 program headers, .text, .rodata, .dynamic, .dynsym, .dynstr,
  // .rel.dyn, .shstrtab, section headers. Addresses equal file offsets.
  const text = new Uint8Array(linked) // a copy: the same linked program may be written in both formats
  const textView = new DataView(text.buffer)
  const phnum = 3
  const textOffset = align(64 + phnum * 56, 8)
  const rodataOffset = align(textOffset + text.length, 8)
  const rodataSize = rodata.length
  for (const { at, offset } of pointers) {
    const address = MM_PROGRAM_START + BigInt(rodataOffset) + offset
    textView.setUint32(at + 4, Number(address & 0xffffffffn), true)
    textView.setUint32(at + 12, Number(address >> 32n), true)
  }
  const syscalls: string[] = []
  const dynRelocations: { offset: number; symbol: string }[] = []
  for (const { at, name } of syscallCalls) {
    textView.setInt32(at + 4, -1, true)
    if (!syscalls.includes(name)) syscalls.push(name)
    dynRelocations.push({ offset: textOffset + at, symbol: name })
  }
  const entrypoint = entry.name

  // .dynsym: null, the entrypoint, then the syscalls (undefined, global functions).
  const dynstrParts = ['', entrypoint, ...syscalls]
  const dynstrOffsets: number[] = []
  let dynstrSize = 0
  for (const s of dynstrParts) {
    dynstrOffsets.push(dynstrSize)
    dynstrSize += s.length + 1
  }
  const dynamicOffset = align(rodataOffset + rodataSize, 8)
  const dynamicEntries = 8
  const dynsymOffset = dynamicOffset + dynamicEntries * 16
  const dynsymSize = (2 + syscalls.length) * 24
  const dynstrOffset = dynsymOffset + dynsymSize
  const relDynOffset = align(dynstrOffset + dynstrSize, 8)
  const relDynSize = dynRelocations.length * 16
  const shstrNames = ['', '.text', '.rodata', '.dynamic', '.dynsym', '.dynstr', '.rel.dyn', '.shstrtab']
  const shstrOffsets: number[] = []
  let shstrSize = 0
  for (const s of shstrNames) {
    shstrOffsets.push(shstrSize)
    shstrSize += s.length + 1
  }
  const shstrtabOffset = relDynOffset + relDynSize
  const sectionHeadersOffset = align(shstrtabOffset + shstrSize, 8)
  const shnumOut = shstrNames.length
  const out = new Uint8Array(sectionHeadersOffset + shnumOut * 64)
  const o = new DataView(out.buffer)

  // ELF header
  out.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0)
  o.setUint16(16, 3, true) // ET_DYN
  o.setUint16(18, EM_BPF, true)
  o.setUint32(20, 1, true)
  o.setBigUint64(24, BigInt(textOffset) + entry.value, true)
  o.setBigUint64(32, 64n, true)
  o.setBigUint64(40, BigInt(sectionHeadersOffset), true)
  o.setUint32(48, 0, true) // e_flags 0: sBPF v0
  o.setUint16(52, 64, true)
  o.setUint16(54, 56, true)
  o.setUint16(56, phnum, true)
  o.setUint16(58, 64, true)
  o.setUint16(60, shnumOut, true)
  o.setUint16(62, shnumOut - 1, true)

  const phdr = (i: number, type: number, flags: number, offset: number, size: number, alignment: number) => {
    const at = 64 + i * 56
    o.setUint32(at, type, true)
    o.setUint32(at + 4, flags, true)
    o.setBigUint64(at + 8, BigInt(offset), true)
    o.setBigUint64(at + 16, BigInt(offset), true)
    o.setBigUint64(at + 24, BigInt(offset), true)
    o.setBigUint64(at + 32, BigInt(size), true)
    o.setBigUint64(at + 40, BigInt(size), true)
    o.setBigUint64(at + 48, BigInt(alignment), true)
  }
  phdr(0, 1, 5, textOffset, text.length, 0x1000) // PT_LOAD R+X: .text
  phdr(1, 1, 4, rodataOffset, relDynOffset + relDynSize - rodataOffset, 0x1000) // PT_LOAD R: .rodata, dynamic tables
  phdr(2, 2, 6, dynamicOffset, dynamicEntries * 16, 8) // PT_DYNAMIC

  out.set(text, textOffset)
  out.set(rodata, rodataOffset)

  const dyn = [
    [6, dynsymOffset], // DT_SYMTAB
    [11, 24], // DT_SYMENT
    [5, dynstrOffset], // DT_STRTAB
    [10, dynstrSize], // DT_STRSZ
    [17, relDynOffset], // DT_REL
    [18, relDynSize], // DT_RELSZ
    [19, 16], // DT_RELENT
    [0, 0], // DT_NULL
  ] as const
  dyn.forEach(([tag, value], i) => {
    o.setBigUint64(dynamicOffset + i * 16, BigInt(tag), true)
    o.setBigUint64(dynamicOffset + i * 16 + 8, BigInt(value), true)
  })

  // .dynsym entries: st_name u32, st_info u8, st_other u8, st_shndx u16, st_value u64, st_size u64.
  const sym = (i: number, name: number, info: number, shndx: number, value: bigint, size: bigint) => {
    const at = dynsymOffset + i * 24
    o.setUint32(at, name, true)
    out[at + 4] = info
    o.setUint16(at + 6, shndx, true)
    o.setBigUint64(at + 8, value, true)
    o.setBigUint64(at + 16, size, true)
  }
  sym(1, dynstrOffsets[1]!, 0x12, 1, BigInt(textOffset) + entry.value, entry.size) // GLOBAL FUNC in .text
  syscalls.forEach((_, i) => sym(2 + i, dynstrOffsets[2 + i]!, 0x10, 0, 0n, 0n)) // GLOBAL NOTYPE UND
  dynstrParts.forEach((s, i) => out.set(new TextEncoder().encode(s), dynstrOffset + dynstrOffsets[i]!))
  dynRelocations.forEach((r, i) => {
    o.setBigUint64(relDynOffset + i * 16, BigInt(r.offset), true)
    o.setBigUint64(
      relDynOffset + i * 16 + 8,
      (BigInt(2 + syscalls.indexOf(r.symbol)) << 32n) | BigInt(R_BPF_64_32),
      true,
    )
  })
  shstrNames.forEach((s, i) => out.set(new TextEncoder().encode(s), shstrtabOffset + shstrOffsets[i]!))

  const shdr = (
    i: number,
    type: number,
    flags: number,
    offset: number,
    size: number,
    link: number,
    alignment: number,
    entsize: number,
    info = 0,
  ) => {
    const at = sectionHeadersOffset + i * 64
    o.setUint32(at, shstrOffsets[i]!, true)
    o.setUint32(at + 4, type, true)
    o.setBigUint64(at + 8, BigInt(flags), true)
    o.setBigUint64(at + 16, BigInt(i === 7 ? 0 : offset), true)
    o.setBigUint64(at + 24, BigInt(offset), true)
    o.setBigUint64(at + 32, BigInt(size), true)
    o.setUint32(at + 40, link, true)
    o.setUint32(at + 44, info, true)
    o.setBigUint64(at + 48, BigInt(alignment), true)
    o.setBigUint64(at + 56, BigInt(entsize), true)
  }
  shdr(1, 1, 6, textOffset, text.length, 0, 8, 0) // .text PROGBITS AX
  shdr(2, 1, 2, rodataOffset, rodataSize, 0, 8, 0) // .rodata PROGBITS A
  shdr(3, 6, 3, dynamicOffset, dynamicEntries * 16, 5, 8, 16) // .dynamic DYNAMIC WA, link .dynstr
  shdr(4, 11, 2, dynsymOffset, dynsymSize, 5, 8, 24, 1) // .dynsym DYNSYM, link .dynstr
  shdr(5, 3, 2, dynstrOffset, dynstrSize, 0, 1, 0) // .dynstr STRTAB
  shdr(6, 9, 2, relDynOffset, relDynSize, 4, 8, 16) // .rel.dyn REL, link .dynsym
  shdr(7, 3, 0, shstrtabOffset, shstrSize, 0, 1, 0) // .shstrtab
  return out
}

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to
}
