// Packs a relocatable BPF object from `clang -target bpf -mcpu=v1 -c` into a Solana program, in
// one of two formats from the same object:
// - SBPF v0 (`e_flags` 0), the oldest loadable format: an ELF64 ET_DYN for e_machine 247 with
//   `.text` and one merged `.rodata` mapped at their file offsets, and a dynamic section whose
//   relocations name the syscalls (the loader patches them at load time);
// - SBPF v3 (`e_flags` 3; SIMD-0189, SIMD-0178, SIMD-0377), what Loader V3 deploys once SIMD-0500
//   is active: exactly two PT_LOAD program headers in a fixed order (read-only data at virtual
//   address 0, then the bytecode at 1 << 32), right after the ELF header; no dynamic section and
//   no relocations: a syscall is `call` with src 0 and the murmur3 hash of its name, a call to
//   one of our functions is `call` with src 1 and an offset relative to the next instruction.
// Neither ld.lld nor binutils links BPF objects this way, hence this packer.
//
// The instruction set: solana-sbpf 0.23 (the version LiteSVM 1.5 and current validators run)
// gives SBPF v3 the eBPF encodings and semantics of v0 (SIMD-0173/0174's changes are SBPF v2's
// alone, and v3 has fixed stack frames again), so every instruction passes through unchanged but
// calls, `lddw` addresses and `callx`, which this packer refuses. Any instruction outside the set
// checked here stops the build with its name and offset.
//
// What it does with the object's relocations (.rel.text):
// - R_BPF_64_64 on `lddw` (a pointer into .rodata): resolved here to the absolute address the
//   loader maps it at (v0: 0x1_0000_0000 + the section's file offset; v3: its offset in the
//   read-only segment, which starts at 0 with 8 bytes of padding so no object sits at NULL);
// - R_BPF_64_32 on `call` to an undefined symbol (a syscall): v0 keeps imm -1 and gets a dynamic
//   R_BPF_64_32 relocation naming the symbol; v3 gets the hash;
// - R_BPF_64_32 on `call` to a function of the object: resolved here to a relative call.
// Anything else (writable data, other relocation kinds) is refused with a message.

import { murmur3 } from './murmur3.ts'

const EM_BPF = 247
const R_BPF_64_64 = 1
const R_BPF_64_32 = 10
const MM_PROGRAM_START = 0x1_0000_0000n
/** SBPF v3's read-only data padding: the first object must not have address 0. */
const V3_RODATA_PAD = 8

export type SbpfVersion = 'v0' | 'v3'

type Section = { name: string; type: number; flags: bigint; offset: number; size: number; link: number; info: number; entsize: number }
type ObjSymbol = { name: string; value: bigint; size: bigint; info: number; shndx: number }

export function packSbf(object: Uint8Array, { entrypoint = 'entrypoint', version = 'v0' }: { entrypoint?: string; version?: SbpfVersion } = {}): Uint8Array {
  const view = new DataView(object.buffer, object.byteOffset, object.byteLength)
  if (view.getUint32(0) !== 0x7f454c46 || object[4] !== 2 || object[5] !== 1) throw new Error('not a little-endian ELF64 object')
  if (view.getUint16(18, true) !== EM_BPF) throw new Error('not a BPF object (e_machine is not 247)')
  const shoff = Number(view.getBigUint64(40, true))
  const shnum = view.getUint16(60, true)
  const shstrndx = view.getUint16(62, true)
  const raw: (Omit<Section, 'name'> & { nameOffset: number })[] = []
  const sections: Section[] = []
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * 64
    raw.push({
      nameOffset: view.getUint32(at, true),
      type: view.getUint32(at + 4, true),
      flags: view.getBigUint64(at + 8, true),
      offset: Number(view.getBigUint64(at + 24, true)),
      size: Number(view.getBigUint64(at + 32, true)),
      link: view.getUint32(at + 40, true),
      info: view.getUint32(at + 44, true),
      entsize: Number(view.getBigUint64(at + 56, true)),
    })
  }
  const cString = (offset: number) => {
    let end = offset
    while (object[end] !== 0) end++
    return new TextDecoder().decode(object.subarray(offset, end))
  }
  const shstr = raw[shstrndx]!
  for (const { nameOffset, ...s } of raw) sections.push({ ...s, name: cString(shstr.offset + nameOffset) })

  const SHF_WRITE = 1n
  const SHF_ALLOC = 2n
  for (const s of sections) {
    if ((s.flags & SHF_ALLOC) !== 0n && (s.flags & SHF_WRITE) !== 0n && s.size > 0) {
      throw new Error(`section ${s.name} is writable: sBPF programs have no writable globals (make it const or put it on the heap)`)
    }
  }
  const textIndex = sections.findIndex((s) => s.name === '.text')
  if (textIndex < 0) throw new Error('the object has no .text')
  const textSection = sections[textIndex]!
  const text = object.slice(textSection.offset, textSection.offset + textSection.size)
  for (const s of sections) {
    if ((s.flags & 4n) !== 0n && s.name !== '.text' && s.size > 0) throw new Error(`code outside .text (${s.name}): build with -fno-function-sections`)
  }

  // One .rodata: every read-only allocated PROGBITS section, 8-aligned, in section order.
  const rodataParts = new Map<number, number>() // object section index -> offset in merged .rodata
  let rodataSize = 0
  sections.forEach((s, i) => {
    if (s.type === 1 && (s.flags & SHF_ALLOC) !== 0n && (s.flags & 4n) === 0n && s.size > 0) {
      rodataSize = align(rodataSize, 8)
      rodataParts.set(i, rodataSize)
      rodataSize += s.size
    }
  })

  if (rodataSize === 0) throw new Error('the program has no read-only data; the loader refuses an empty .rodata beside .dynamic')

  const symtab = sections.find((s) => s.type === 2)
  if (!symtab) throw new Error('the object has no symbol table')
  const symbols: ObjSymbol[] = []
  const strtab = sections[symtab.link]!
  for (let at = symtab.offset; at < symtab.offset + symtab.size; at += 24) {
    symbols.push({
      name: cString(strtab.offset + view.getUint32(at, true)),
      info: object[at + 4]!,
      shndx: view.getUint16(at + 6, true),
      value: view.getBigUint64(at + 8, true),
      size: view.getBigUint64(at + 16, true),
    })
  }
  const entry = symbols.find((s) => s.name === entrypoint && s.shndx === textIndex)
  if (!entry) throw new Error(`no function named ${entrypoint} in .text`)

  // File layout: header, 3 program headers, .text, .rodata, .dynamic, .dynsym, .dynstr,
  // .rel.dyn, .shstrtab, section headers. Addresses equal file offsets.
  const phnum = 3
  const textOffset = align(64 + phnum * 56, 8)
  const rodataOffset = align(textOffset + text.length, 8)
  const textRel = sections.find((s) => s.type === 9 && s.info === textIndex)
  const syscalls: string[] = []
  const dynRelocations: { offset: number; symbol: string }[] = []
  const textView = new DataView(text.buffer, text.byteOffset, text.byteLength)
  for (const s of sections) {
    if (s.type === 9 || s.type === 4) {
      if (s !== textRel && sections[s.info] && (sections[s.info]!.flags & SHF_ALLOC) !== 0n) {
        throw new Error(`relocations in ${sections[s.info]!.name} are not supported (no pointers in constant data)`)
      }
    }
  }
  const calls = new Set<number>()
  if (textRel) {
    for (let at = textRel.offset; at < textRel.offset + textRel.size; at += 16) {
      const offset = Number(view.getBigUint64(at, true))
      const info = view.getBigUint64(at + 8, true)
      const type = Number(info & 0xffffffffn)
      const symbol = symbols[Number(info >> 32n)]!
      if (type === R_BPF_64_64) {
        const part = rodataParts.get(symbol.shndx)
        if (part === undefined) throw new Error(`lddw at .text+${offset} points into section ${symbol.shndx}, which is not read-only data`)
        const addend = BigInt(textView.getUint32(offset + 4, true)) | (BigInt(textView.getUint32(offset + 12, true)) << 32n)
        const base = version === 'v3' ? BigInt(V3_RODATA_PAD) : MM_PROGRAM_START + BigInt(rodataOffset)
        const address = base + BigInt(part) + symbol.value + addend
        textView.setUint32(offset + 4, Number(address & 0xffffffffn), true)
        textView.setUint32(offset + 12, Number(address >> 32n), true)
      } else if (type === R_BPF_64_32) {
        if (text[offset] !== 0x85) throw new Error(`R_BPF_64_32 at .text+${offset} is not on a call`)
        calls.add(offset)
        if (symbol.shndx === 0) {
          if (version === 'v3') {
            text[offset + 1] = text[offset + 1]! & 0x0f // src 0: a syscall
            textView.setUint32(offset + 4, murmur3(new TextEncoder().encode(symbol.name)), true)
          } else {
            textView.setInt32(offset + 4, -1, true)
            if (!syscalls.includes(symbol.name)) syscalls.push(symbol.name)
            dynRelocations.push({ offset: textOffset + offset, symbol: symbol.name })
          }
        } else if (symbol.shndx === textIndex) {
          // A call to a function of ours: relative, in instructions, from the next one.
          const target = Number(symbol.value) + ((symbol.info & 0xf) === 3 ? (textView.getInt32(offset + 4, true) + 1) * 8 : 0)
          textView.setInt32(offset + 4, (target - (offset + 8)) / 8, true)
          if (version === 'v3') text[offset + 1] = (text[offset + 1]! & 0x0f) | 0x10 // src 1: an internal call
        } else {
          throw new Error(`call at .text+${offset} to ${symbol.name} outside .text`)
        }
      } else {
        throw new Error(`relocation type ${type} at .text+${offset} is not supported`)
      }
    }
  }

  checkInstructions(text, calls, version)
  if (version === 'v3') return writeV3({ text, rodata: mergedRodata(object, sections, rodataParts, rodataSize), entry: entry.value })

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
  for (const [index, part] of rodataParts) {
    const s = sections[index]!
    out.set(object.subarray(s.offset, s.offset + s.size), rodataOffset + part)
  }

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
    o.setBigUint64(relDynOffset + i * 16 + 8, (BigInt(2 + syscalls.indexOf(r.symbol)) << 32n) | BigInt(R_BPF_64_32), true)
  })
  shstrNames.forEach((s, i) => out.set(new TextEncoder().encode(s), shstrtabOffset + shstrOffsets[i]!))

  const shdr = (i: number, type: number, flags: number, offset: number, size: number, link: number, alignment: number, entsize: number, info = 0) => {
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

/** The read-only sections, each at its offset in the merged .rodata. */
function mergedRodata(object: Uint8Array, sections: Section[], parts: Map<number, number>, size: number): Uint8Array {
  const out = new Uint8Array(size)
  for (const [index, part] of parts) {
    const s = sections[index]!
    out.set(object.subarray(s.offset, s.offset + s.size), part)
  }
  return out
}

/**
 * SBPF v3 under SIMD-0189's strict parser: the ELF header, then exactly two program headers
 * (PT_LOAD PF_R for the read-only data at 0, PT_LOAD PF_X for the bytecode at 1 << 32), each
 * segment starting where the previous one ends, offsets and sizes multiples of 8, and the entry
 * inside the bytecode. Section headers follow for tools (objdump); the loader does not read them.
 */
function writeV3({ text, rodata, entry }: { text: Uint8Array; rodata: Uint8Array; entry: bigint }): Uint8Array {
  const phnum = 2
  const rodataOffset = 64 + phnum * 56
  const rodataSize = align(V3_RODATA_PAD + rodata.length, 8)
  const textOffset = rodataOffset + rodataSize
  if (text.length % 8 !== 0) throw new Error('.text is not a whole number of instructions')
  const shstrNames = ['', '.rodata', '.text', '.shstrtab']
  const shstrOffsets: number[] = []
  let shstrSize = 0
  for (const s of shstrNames) {
    shstrOffsets.push(shstrSize)
    shstrSize += s.length + 1
  }
  const shstrtabOffset = textOffset + text.length
  const sectionHeadersOffset = align(shstrtabOffset + shstrSize, 8)
  const out = new Uint8Array(sectionHeadersOffset + shstrNames.length * 64)
  const o = new DataView(out.buffer)

  out.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0) // ELFCLASS64, little-endian, EV_CURRENT, ELFOSABI_NONE; ABI version and padding 0
  o.setUint16(16, 3, true) // ET_DYN
  o.setUint16(18, EM_BPF, true)
  o.setUint32(20, 1, true)
  o.setBigUint64(24, MM_PROGRAM_START + entry, true)
  o.setBigUint64(32, 64n, true)
  o.setBigUint64(40, BigInt(sectionHeadersOffset), true)
  o.setUint32(48, 3, true) // e_flags 3: SBPF v3
  o.setUint16(52, 64, true)
  o.setUint16(54, 56, true)
  o.setUint16(56, phnum, true)
  o.setUint16(58, 64, true)
  o.setUint16(60, shstrNames.length, true)
  o.setUint16(62, shstrNames.length - 1, true)

  const phdr = (i: number, flags: number, offset: number, vaddr: bigint, size: number) => {
    const at = 64 + i * 56
    o.setUint32(at, 1, true) // PT_LOAD
    o.setUint32(at + 4, flags, true)
    o.setBigUint64(at + 8, BigInt(offset), true)
    o.setBigUint64(at + 16, vaddr, true)
    o.setBigUint64(at + 24, vaddr, true)
    o.setBigUint64(at + 32, BigInt(size), true)
    o.setBigUint64(at + 40, BigInt(size), true)
    o.setBigUint64(at + 48, 8n, true)
  }
  phdr(0, 4, rodataOffset, 0n, rodataSize) // PF_R
  phdr(1, 1, textOffset, MM_PROGRAM_START, text.length) // PF_X
  out.set(rodata, rodataOffset + V3_RODATA_PAD)
  out.set(text, textOffset)
  shstrNames.forEach((s, i) => out.set(new TextEncoder().encode(s), shstrtabOffset + shstrOffsets[i]!))
  const shdr = (i: number, type: number, flags: number, addr: bigint, offset: number, size: number, alignment: number) => {
    const at = sectionHeadersOffset + i * 64
    o.setUint32(at, shstrOffsets[i]!, true)
    o.setUint32(at + 4, type, true)
    o.setBigUint64(at + 8, BigInt(flags), true)
    o.setBigUint64(at + 16, addr, true)
    o.setBigUint64(at + 24, BigInt(offset), true)
    o.setBigUint64(at + 32, BigInt(size), true)
    o.setBigUint64(at + 48, BigInt(alignment), true)
  }
  shdr(1, 1, 2, 0n, rodataOffset, rodataSize, 8) // .rodata PROGBITS A
  shdr(2, 1, 6, MM_PROGRAM_START, textOffset, text.length, 8) // .text PROGBITS AX
  shdr(3, 3, 0, 0n, shstrtabOffset, shstrSize, 1) // .shstrtab
  return out
}

const aluNames = ['add', 'sub', 'mul', 'div', 'or', 'and', 'lsh', 'rsh', 'neg', 'mod', 'xor', 'mov', 'arsh', 'end']
const jmpNames = ['ja', 'jeq', 'jgt', 'jge', 'jset', 'jne', 'jsgt', 'jsge', 'call', 'exit', 'jlt', 'jle', 'jslt', 'jsle']
const sizeNames = ['w', 'h', 'b', 'dw']

/** An instruction's mnemonic from its opcode, for error messages. */
function mnemonic(opcode: number): string {
  const cls = opcode & 7
  const op = opcode >> 4
  const source = opcode & 8 ? 'reg' : 'imm'
  if (cls === 4 || cls === 7) return `${aluNames[op] ?? `alu op ${op}`}${cls === 4 ? '32' : '64'} ${source}`
  if (opcode === 0x8d) return 'callx'
  if (cls === 5 || cls === 6) return `${jmpNames[op] ?? `jmp op ${op}`}${cls === 6 ? '32' : ''} ${source}`
  const mode = opcode >> 5
  const size = sizeNames[(opcode >> 3) & 3]
  if (cls === 0) return mode === 0 && size === 'dw' ? 'lddw' : `ld mode ${mode} ${size}`
  if (cls === 1) return mode === 3 ? `ldx${size}` : `ldx mode ${mode} ${size}`
  if (cls === 2) return mode === 3 ? `st${size}` : `st mode ${mode} ${size}`
  return mode === 3 ? `stx${size}` : mode === 6 ? `atomic ${size}` : `stx mode ${mode} ${size}`
}

/**
 * The opcodes that mean the same in SBPF v0 and v3 (solana-sbpf 0.23's verifier and interpreter):
 * the 32- and 64-bit ALU (neg by immediate only; le/be in the 32-bit class), `lddw`, loads and
 * stores of the memory mode, the 64-bit jumps (ja by immediate), `exit`. `call` is rewritten per
 * version above, or is clang's own relative call inside .text.
 */
const portableOpcodes = new Set<number>([
  ...[0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12].flatMap((op) => [0x04, 0x0c, 0x07, 0x0f].map((cls) => (op << 4) | cls)),
  0x84, 0x87, 0xd4, 0xdc,
  0x18,
  0x61, 0x69, 0x71, 0x79, 0x62, 0x6a, 0x72, 0x7a, 0x63, 0x6b, 0x73, 0x7b,
  0x05, ...[1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13].flatMap((op) => [(op << 4) | 0x05, (op << 4) | 0x0d]),
  0x95,
])

/**
 * Every instruction clang emitted must be one whose meaning this packer keeps in both versions.
 * Refused with its name: `callx` (its register moves from imm to dst in v3), the 32-bit jump
 * class (v0 has none), a `call` neither relocated nor local, atomics, the packet loads, anything else.
 */
function checkInstructions(text: Uint8Array, calls: Set<number>, version: SbpfVersion): void {
  for (let at = 0; at < text.length; at += 8) {
    const opcode = text[at]!
    const ok = opcode === 0x85 ? calls.has(at) || isLocalCall(text, at) : portableOpcodes.has(opcode)
    if (!ok) throw new Error(`instruction ${mnemonic(opcode)} (opcode 0x${opcode.toString(16).padStart(2, '0')}) at .text+${at} is not supported in SBPF ${version} by this packer`)
    if (opcode === 0x18) at += 8 // lddw's second half
  }
}

/**
 * clang resolves a call within .text itself: src 1 (a BPF-to-BPF call) and imm relative to the
 * next instruction, already SBPF v3's internal call (v0's loader turns it into a hash).
 */
function isLocalCall(text: Uint8Array, at: number): boolean {
  const target = at / 8 + 1 + new DataView(text.buffer, text.byteOffset).getInt32(at + 4, true)
  return text[at + 1]! >> 4 === 1 && target >= 0 && target < text.length / 8
}

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to
}
