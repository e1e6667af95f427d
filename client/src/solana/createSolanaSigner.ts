// An Ed25519 intent signer from a Solana secret key: the 64 bytes of a keypair file (seed then
// public key) or the 32-byte seed, as bytes, a JSON array or 0x hex.
import { ed25519 } from '@noble/curves/ed25519'
import { base58 } from '@scure/base'
import { hexToBytes } from 'viem'
import { GatewayClientError } from '../gatewayClientError.ts'
import type { SolanaIntentSigner } from '../intentSigner.ts'

export function createSolanaSigner(secretKey: Uint8Array | readonly number[] | string): SolanaIntentSigner {
  let bytes: Uint8Array
  try {
    bytes =
      typeof secretKey === 'string'
        ? secretKey.trim().startsWith('[')
          ? Uint8Array.from(JSON.parse(secretKey) as number[])
          : hexToBytes(secretKey.trim() as `0x${string}`)
        : Uint8Array.from(secretKey)
  } catch (err) {
    throw new GatewayClientError('The Solana secret key is not a JSON byte array or 0x hex', {
      code: 'INVALID_ARGUMENT',
      cause: err,
    })
  }
  if (bytes.length !== 64 && bytes.length !== 32)
    throw new GatewayClientError('A Solana secret key has 64 bytes (keypair) or 32 (seed)', {
      code: 'INVALID_ARGUMENT',
    })
  const seed = bytes.slice(0, 32)
  const publicKey = ed25519.getPublicKey(seed)
  if (bytes.length === 64 && !bytes.slice(32).every((b, i) => b === publicKey[i])) {
    throw new GatewayClientError("The Solana keypair's second half is not the public key of its seed", {
      code: 'INVALID_ARGUMENT',
    })
  }
  return {
    chainType: 'solana',
    address: base58.encode(publicKey),
    async signMessage(message) {
      return ed25519.sign(message, seed)
    },
  }
}
