// What the SBPF packer's steps hand each other: the format version, and the linked program a format's writer places.

export type SbpfVersion = 'v0' | 'v3'

/** `.text` with its internal calls resolved, and what each format's writer must still place. */
export type LinkedProgram = {
  text: Uint8Array
  rodata: Uint8Array
  entry: { name: string; value: bigint; size: bigint }
  /** `lddw` at .text+at loads the address of this offset in .rodata. */
  pointers: { at: number; offset: bigint }[]
  /** `call` at .text+at is the syscall of this name. */
  syscalls: { at: number; name: string }[]
  /** Calls to our own functions the relocations named (clang's own relative calls aside). */
  internalCalls: number[]
}
