// Reads what the packer needs from a relocatable BPF object (`clang -target bpf -c`): the
// sections, `.text`, the read-only sections merged into one `.rodata`, the symbols, the entry
// function and `.text`'s relocations. Refuses what no Solana program format can hold: writable
// data, code outside `.text`, relocations in data, an object without read-only data.

export type ObjectSection = {
  name: string
  type: number
  flags: bigint
  offset: number
  size: number
  link: number
  info: number
  entsize: number
}
export type ObjectSymbol = { name: string; value: bigint; size: bigint; info: number; shndx: number }
export type BpfObject = {
  /** A copy of `.text`, to relocate in place. */
  text: Uint8Array
  textIndex: number
  /** Every read-only allocated PROGBITS section, 8-aligned, in section order. */
  rodata: Uint8Array
  /** Object section index → offset in `rodata`. */
  rodataParts: Map<number, number>
  symbols: ObjectSymbol[]
  entry: ObjectSymbol
  /** `.rel.text` as (offset in .text, type, symbol). */
  relocations: { offset: number; type: number; symbol: ObjectSymbol }[]
}

const EM_BPF = 247
const SHF_WRITE = 1n
const SHF_ALLOC = 2n
const SHF_EXECINSTR = 4n

export function readBpfObject(object: Uint8Array, { entrypoint }: { entrypoint: string }): BpfObject {
  const view = new DataView(object.buffer, object.byteOffset, object.byteLength)
  if (view.getUint32(0) !== 0x7f454c46 || object[4] !== 2 || object[5] !== 1)
    throw new Error('not a little-endian ELF64 object')
  if (view.getUint16(18, true) !== EM_BPF) throw new Error('not a BPF object (e_machine is not 247)')
  const shoff = Number(view.getBigUint64(40, true))
  const shnum = view.getUint16(60, true)
  const shstrndx = view.getUint16(62, true)
  const raw: (Omit<ObjectSection, 'name'> & { nameOffset: number })[] = []
  const sections: ObjectSection[] = []
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

  for (const s of sections) {
    if ((s.flags & SHF_ALLOC) !== 0n && (s.flags & SHF_WRITE) !== 0n && s.size > 0) {
      throw new Error(
        `section ${s.name} is writable: sBPF programs have no writable globals (make it const or put it on the heap)`,
      )
    }
  }
  const textIndex = sections.findIndex((s) => s.name === '.text')
  if (textIndex < 0) throw new Error('the object has no .text')
  const textSection = sections[textIndex]!
  const text = new Uint8Array(object.subarray(textSection.offset, textSection.offset + textSection.size)) // a copy, also of a Buffer
  for (const s of sections) {
    if ((s.flags & SHF_EXECINSTR) !== 0n && s.name !== '.text' && s.size > 0)
      throw new Error(`code outside .text (${s.name}): build with -fno-function-sections`)
  }

  // One .rodata: every read-only allocated PROGBITS section, 8-aligned, in section order.
  const rodataParts = new Map<number, number>() // object section index -> offset in merged .rodata
  let rodataSize = 0
  sections.forEach((s, i) => {
    if (s.type === 1 && (s.flags & SHF_ALLOC) !== 0n && (s.flags & SHF_EXECINSTR) === 0n && s.size > 0) {
      rodataSize = align(rodataSize, 8)
      rodataParts.set(i, rodataSize)
      rodataSize += s.size
    }
  })

  if (rodataSize === 0)
    throw new Error('the program has no read-only data; the loader refuses an empty .rodata beside .dynamic')

  const symtab = sections.find((s) => s.type === 2)
  if (!symtab) throw new Error('the object has no symbol table')
  const symbols: ObjectSymbol[] = []
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

  const textRel = sections.find((s) => s.type === 9 && s.info === textIndex)
  for (const s of sections) {
    if (
      (s.type === 9 || s.type === 4) &&
      s !== textRel &&
      sections[s.info] &&
      (sections[s.info]!.flags & SHF_ALLOC) !== 0n
    ) {
      throw new Error(`relocations in ${sections[s.info]!.name} are not supported (no pointers in constant data)`)
    }
  }
  const relocations: BpfObject['relocations'] = []
  if (textRel) {
    for (let at = textRel.offset; at < textRel.offset + textRel.size; at += 16) {
      const info = view.getBigUint64(at + 8, true)
      relocations.push({
        offset: Number(view.getBigUint64(at, true)),
        type: Number(info & 0xffffffffn),
        symbol: symbols[Number(info >> 32n)]!,
      })
    }
  }
  const rodata = new Uint8Array(rodataSize)
  for (const [index, part] of rodataParts) {
    const s = sections[index]!
    rodata.set(object.subarray(s.offset, s.offset + s.size), part)
  }
  return { text, textIndex, rodata, rodataParts, symbols, entry, relocations }
}

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to
}
