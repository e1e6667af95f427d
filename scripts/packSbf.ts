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
// The instruction set: solana-sbpf 0.23 (the version LiteSVM 1.5 runs) gives SBPF v3 the eBPF
// encodings and semantics of v0 (SIMD-0173/0174's changes are SBPF v2's alone, and v3 has fixed
// stack frames again), so every instruction passes through unchanged but calls and `lddw`
// addresses. Any instruction outside the set checkSbpfInstructions knows to mean the same in
// both stops the build with its name and offset (`callx` among them).
//
// What it does with the object's relocations (.rel.text):
// - R_BPF_64_64 on `lddw` (a pointer into .rodata): the writer puts the absolute address the
//   loader maps it at (v0: 0x1_0000_0000 + the section's file offset; v3: its offset in the
//   read-only segment, which starts at 0 with 8 bytes of padding so no object sits at NULL);
// - R_BPF_64_32 on `call` to an undefined symbol (a syscall): v0 keeps imm -1 and gets a dynamic
//   R_BPF_64_32 relocation naming the symbol; v3 gets the hash;
// - R_BPF_64_32 on `call` to a function of the object: resolved here to a relative call.
// Anything else (writable data, other relocation kinds) is refused with a message.

import { checkSbpfInstructions } from './checkSbpfInstructions.ts'
import { readBpfObject } from './readBpfObject.ts'
import type { LinkedProgram, SbpfVersion } from './sbpfProgram.ts'
import { writeSbpfV0 } from './writeSbpfV0.ts'
import { writeSbpfV3 } from './writeSbpfV3.ts'

const R_BPF_64_64 = 1
const R_BPF_64_32 = 10

export function packSbf(
  object: Uint8Array,
  { entrypoint = 'entrypoint', version = 'v0' }: { entrypoint?: string; version?: SbpfVersion } = {},
): Uint8Array {
  const { text, textIndex, rodata, rodataParts, entry, relocations } = readBpfObject(object, { entrypoint })
  const textView = new DataView(text.buffer, text.byteOffset, text.byteLength)
  const program: LinkedProgram = {
    text,
    rodata,
    entry: { name: entrypoint, value: entry.value, size: entry.size },
    pointers: [],
    syscalls: [],
    internalCalls: [],
  }
  const calls = new Set<number>()
  for (const { offset, type, symbol } of relocations) {
    if (type === R_BPF_64_64) {
      const part = rodataParts.get(symbol.shndx)
      if (part === undefined)
        throw new Error(`lddw at .text+${offset} points into section ${symbol.shndx}, which is not read-only data`)
      const addend =
        BigInt(textView.getUint32(offset + 4, true)) | (BigInt(textView.getUint32(offset + 12, true)) << 32n)
      program.pointers.push({ at: offset, offset: BigInt(part) + symbol.value + addend })
    } else if (type === R_BPF_64_32) {
      if (text[offset] !== 0x85) throw new Error(`R_BPF_64_32 at .text+${offset} is not on a call`)
      calls.add(offset)
      if (symbol.shndx === 0) {
        program.syscalls.push({ at: offset, name: symbol.name })
      } else if (symbol.shndx === textIndex) {
        // A call to a function of ours: relative, in instructions, from the next one.
        const target =
          Number(symbol.value) + ((symbol.info & 0xf) === 3 ? (textView.getInt32(offset + 4, true) + 1) * 8 : 0)
        textView.setInt32(offset + 4, (target - (offset + 8)) / 8, true)
        program.internalCalls.push(offset)
      } else {
        throw new Error(`call at .text+${offset} to ${symbol.name} outside .text`)
      }
    } else {
      throw new Error(`relocation type ${type} at .text+${offset} is not supported`)
    }
  }
  checkSbpfInstructions(text, calls, version)
  return version === 'v3' ? writeSbpfV3(program) : writeSbpfV0(program)
}
