// Packs a relocatable BPF object from `clang -target bpf -mcpu=v1 -c` into a Solana program in
// the oldest loadable format (sBPF v0): an ELF64 ET_DYN for e_machine 247 with `.text` and one
// merged `.rodata` mapped at their file offsets, and a dynamic section whose relocations name
// the syscalls. Neither ld.lld nor binutils links BPF objects this way, hence this packer.
//
// What it does with the object's relocations (.rel.text):
// - R_BPF_64_64 on `lddw` (a pointer into .rodata): resolved here to the absolute address the
//   loader maps it at, 0x1_0000_0000 + the section's offset in the file;
// - R_BPF_64_32 on `call` to an undefined symbol (a syscall): the call keeps imm -1 and gets a
//   dynamic R_BPF_64_32 relocation naming the symbol, which the loader turns into the murmur3
//   hash of the name;
// - R_BPF_64_32 on `call` to a function of the object: resolved here to a relative call.
// Anything else (writable data, other relocation kinds) is refused with a message.

const EM_BPF = 247
const R_BPF_64_64 = 1
const R_BPF_64_32 = 10
const MM_PROGRAM_START = 0x1_0000_0000n

type Section = { name: string; type: number; flags: bigint; offset: number; size: number; link: number; info: number; entsize: number }
type ObjSymbol = { name: string; value: bigint; size: bigint; info: number; shndx: number }

export function packSbf(object: Uint8Array, { entrypoint = 'entrypoint' }: { entrypoint?: string } = {}): Uint8Array {
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
        const address = MM_PROGRAM_START + BigInt(rodataOffset + part) + symbol.value + addend
        textView.setUint32(offset + 4, Number(address & 0xffffffffn), true)
        textView.setUint32(offset + 12, Number(address >> 32n), true)
      } else if (type === R_BPF_64_32) {
        if (symbol.shndx === 0) {
          textView.setInt32(offset + 4, -1, true)
          if (!syscalls.includes(symbol.name)) syscalls.push(symbol.name)
          dynRelocations.push({ offset: textOffset + offset, symbol: symbol.name })
        } else if (symbol.shndx === textIndex) {
          // A call to a function of ours: relative, in instructions, from the next one.
          const target = Number(symbol.value) + ((symbol.info & 0xf) === 3 ? (textView.getInt32(offset + 4, true) + 1) * 8 : 0)
          textView.setInt32(offset + 4, (target - (offset + 8)) / 8, true)
        } else {
          throw new Error(`call at .text+${offset} to ${symbol.name} outside .text`)
        }
      } else {
        throw new Error(`relocation type ${type} at .text+${offset} is not supported`)
      }
    }
  }

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

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to
}
