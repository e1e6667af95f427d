// Checks every instruction clang emitted against the set whose meaning the packer keeps in both
// SBPF v0 and v3, and names any other one (mnemonic, opcode, offset) in the error that stops
// the build.
import type { SbpfVersion } from './sbpfProgram.ts'

const aluNames = ['add', 'sub', 'mul', 'div', 'or', 'and', 'lsh', 'rsh', 'neg', 'mod', 'xor', 'mov', 'arsh', 'end']
const jmpNames = [
  'ja',
  'jeq',
  'jgt',
  'jge',
  'jset',
  'jne',
  'jsgt',
  'jsge',
  'call',
  'exit',
  'jlt',
  'jle',
  'jslt',
  'jsle',
]
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
  0x84,
  0x87,
  0xd4,
  0xdc,
  0x18,
  0x61,
  0x69,
  0x71,
  0x79,
  0x62,
  0x6a,
  0x72,
  0x7a,
  0x63,
  0x6b,
  0x73,
  0x7b,
  0x05,
  ...[1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13].flatMap((op) => [(op << 4) | 0x05, (op << 4) | 0x0d]),
  0x95,
])

/**
 * Every instruction clang emitted must be one whose meaning this packer keeps in both versions.
 * Refused with its name: `callx` (its register moves from imm to dst in v3), the 32-bit jump
 * class (v0 has none), a `call` neither relocated nor local, atomics, the packet loads, anything else.
 */
export function checkSbpfInstructions(text: Uint8Array, calls: Set<number>, version: SbpfVersion): void {
  for (let at = 0; at < text.length; at += 8) {
    const opcode = text[at]!
    const ok = opcode === 0x85 ? calls.has(at) || isLocalCall(text, at) : portableOpcodes.has(opcode)
    if (!ok)
      throw new Error(
        `instruction ${mnemonic(opcode)} (opcode 0x${opcode.toString(16).padStart(2, '0')}) at .text+${at} is not supported in SBPF ${version} by this packer`,
      )
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
