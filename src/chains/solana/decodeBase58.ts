// Base58 (Bitcoin alphabet) to bytes, without @solana/kit: parsing and hashing Solana intents
// must not load the Solana client on a gateway that serves no Solana chain.
const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const values = new Map([...alphabet].map((c, i) => [c, BigInt(i)]))

/** The bytes of a base58 string, or undefined when it has a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | undefined {
  let n = 0n
  for (const c of text) {
    const v = values.get(c)
    if (v === undefined) return undefined
    n = n * 58n + v
  }
  const body: number[] = []
  while (n > 0n) {
    body.push(Number(n & 0xffn))
    n >>= 8n
  }
  let zeros = 0
  while (zeros < text.length && text[zeros] === '1') zeros++
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...body.reverse()])
}
