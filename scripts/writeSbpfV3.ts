// Writes SBPF v3 (`e_flags` 3), what Loader V3 deploys once SIMD-0500 is active: SIMD-0189's
// strict layout, no dynamic section and no relocations. A syscall is `call` with src 0 and the
// murmur3 hash of its name (SIMD-0178); a call to one of our functions is `call` with src 1 and
// an offset relative to the next instruction.
import { murmur3 } from './murmur3.ts'
import type { LinkedProgram } from './sbpfProgram.ts'

const EM_BPF = 247
const MM_PROGRAM_START = 0x1_0000_0000n
/** The read-only segment starts at address 0: padding, so that no object has the address NULL. */
const RODATA_PAD = 8

/**
 * SBPF v3 under SIMD-0189's strict parser: the ELF header, then exactly two program headers
 * (PT_LOAD PF_R for the read-only data at 0, PT_LOAD PF_X for the bytecode at 1 << 32), each
 * segment starting where the previous one ends, offsets and sizes multiples of 8, and the entry
 * inside the bytecode. Section headers follow for tools (objdump); the loader does not read them.
 */
export function writeSbpfV3({
  text: linked,
  rodata,
  entry: { value: entry },
  pointers,
  syscalls,
  internalCalls,
}: LinkedProgram): Uint8Array {
  const text = new Uint8Array(linked) // a copy: the same linked program may be written in both formats
  const textView = new DataView(text.buffer)
  for (const { at, offset } of pointers) {
    const address = BigInt(RODATA_PAD) + offset
    textView.setUint32(at + 4, Number(address & 0xffffffffn), true)
    textView.setUint32(at + 12, Number(address >> 32n), true)
  }
  for (const { at, name } of syscalls) {
    text[at + 1] = text[at + 1]! & 0x0f // src 0: a syscall
    textView.setUint32(at + 4, murmur3(new TextEncoder().encode(name)), true)
  }
  for (const at of internalCalls) text[at + 1] = (text[at + 1]! & 0x0f) | 0x10 // src 1: an internal call
  const phnum = 2
  const rodataOffset = 64 + phnum * 56
  const rodataSize = align(RODATA_PAD + rodata.length, 8)
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
  out.set(rodata, rodataOffset + RODATA_PAD)
  out.set(text, textOffset)
  shstrNames.forEach((s, i) => out.set(new TextEncoder().encode(s), shstrtabOffset + shstrOffsets[i]!))
  const shdr = (
    i: number,
    type: number,
    flags: number,
    addr: bigint,
    offset: number,
    size: number,
    alignment: number,
  ) => {
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

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to
}
