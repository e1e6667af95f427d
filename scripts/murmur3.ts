// MurmurHash3's 32-bit variant with seed 0: how the SBPF loader names a syscall (its
// `hash_symbol_name`). SBPF v3 programs call a syscall by this hash of its name (SIMD-0178).

export function murmur3(bytes: Uint8Array, seed = 0): number {
  const c1 = 0xcc9e2d51
  const c2 = 0x1b873593
  const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r))
  const mixK = (k: number) => Math.imul(rotl(Math.imul(k, c1), 15), c2)
  let h = seed >>> 0
  const blocks = bytes.length >>> 2
  for (let i = 0; i < blocks; i++) {
    const at = i * 4
    const k = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)
    h ^= mixK(k)
    h = (Math.imul(rotl(h, 13), 5) + 0xe6546b64) | 0
  }
  let k = 0
  const tail = blocks * 4
  // murmur3's tail mixes the last 3, 2 or 1 bytes in turn
  const rest = bytes.length & 3
  if (rest >= 3) k ^= bytes[tail + 2]! << 16
  if (rest >= 2) k ^= bytes[tail + 1]! << 8
  if (rest >= 1) {
    k ^= bytes[tail]!
    h ^= mixK(k)
  }
  h ^= bytes.length
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}
