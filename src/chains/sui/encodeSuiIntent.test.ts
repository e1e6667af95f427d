// The intent's BCS bytes: our hand-written encoder against @mysten/bcs structs declared from the
// Move definition, on known vectors; and a wallet signature over them checked with the digest the
// Move module computes (reproduced from the Sui documentation of personal-message signing).
// The Move code itself is not compiled or run here.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { bcs } from '@mysten/bcs'
import { parseSerializedSignature } from '@mysten/sui/cryptography'
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519'
import { verifyPersonalMessageSignature } from '@mysten/sui/verify'
import { ed25519 } from '@noble/curves/ed25519'
import { blake2b } from '@noble/hashes/blake2b'
import { keccak256 as keccakHex } from 'viem'
import type { Intent } from '../../ports/intent.ts'
import { encodeSuiIntent } from './encodeSuiIntent.ts'
import { suiRuntime } from './suiRuntime.ts'

// Declared field by field from `public struct Intent` in move/sources/intents.move.
const Address = bcs.fixedArray(32, bcs.u8())
const ID = bcs.struct('ID', { bytes: Address })
const MoveIntent = bcs.struct('Intent', {
  domain: bcs.vector(bcs.u8()),
  sender: Address,
  target: Address,
  value: bcs.u64(),
  nonce: bcs.u64(),
  valid_after: bcs.u64(),
  valid_before: bcs.u64(),
  policy_id: ID,
})

const bytes32 = (hex: string) => [...Buffer.from(hex.slice(2), 'hex')]

const vectors: Array<{ name: string; intent: Intent; hex: string }> = [
  {
    name: 'small values',
    intent: {
      sender: `0x${'11'.repeat(32)}`,
      target: `0x${'22'.repeat(32)}`,
      data: '0x',
      value: 1000n,
      nonce: 7n,
      validAfter: 0n,
      validBefore: 1_700_000_000n,
      policyId: `0x${'ab'.repeat(32)}`,
    },
    // Spelled out by hand: uleb128(21) || "intent-gateway/sui/v1" || sender || target ||
    // value, nonce, validAfter, validBefore as u64 little-endian || policy id.
    hex:
      '15' +
      Buffer.from('intent-gateway/sui/v1').toString('hex') +
      '11'.repeat(32) +
      '22'.repeat(32) +
      'e803000000000000' +
      '0700000000000000' +
      '0000000000000000' +
      '00f1536500000000' +
      'ab'.repeat(32),
  },
  {
    name: 'u64 maxima',
    intent: {
      sender: `0x${'00'.repeat(31)}01`,
      target: `0x${'ff'.repeat(32)}`,
      data: '0x',
      value: 2n ** 64n - 1n,
      nonce: 2n ** 64n - 1n,
      validAfter: 2n ** 64n - 1n,
      validBefore: 2n ** 64n - 1n,
      policyId: `0x${'00'.repeat(32)}`,
    },
    hex: `15${Buffer.from('intent-gateway/sui/v1').toString('hex')}${'00'.repeat(31)}01${'ff'.repeat(32)}${'ff'.repeat(32)}${'00'.repeat(32)}`,
  },
]

describe('Sui intent bytes (BCS of the Move struct Intent)', () => {
  for (const { name, intent, hex } of vectors) {
    it(`matches the hand-spelled vector and @mysten/bcs: ${name}`, () => {
      const ours = encodeSuiIntent(intent)
      assert.equal(Buffer.from(ours).toString('hex'), hex)
      const theirs = MoveIntent.serialize({
        domain: [...Buffer.from('intent-gateway/sui/v1')],
        sender: bytes32(intent.sender),
        target: bytes32(intent.target),
        value: intent.value,
        nonce: intent.nonce,
        valid_after: intent.validAfter,
        valid_before: intent.validBefore,
        policy_id: { bytes: bytes32(intent.policyId) },
      }).toBytes()
      assert.deepEqual(ours, theirs)
      const parsed = MoveIntent.parse(ours)
      assert.equal(parsed.value, intent.value.toString())
      assert.equal(parsed.valid_before, intent.validBefore.toString())
    })
  }

  it('X-Intent-Hash is keccak256 of those bytes (known vector)', () => {
    // keccak256 of the first vector's bytes, computed with viem's independent keccak.
    assert.equal(
      suiRuntime.hashIntent(vectors[0]!.intent),
      `0x${Buffer.from(viemKeccak(vectors[0]!.hex)).toString('hex')}`,
    )
    const other = { ...vectors[0]!.intent, nonce: 8n }
    assert.notEqual(suiRuntime.hashIntent(other), suiRuntime.hashIntent(vectors[0]!.intent))
  })
})

describe('Sui personal-message signature over the intent bytes (Move verification not run here)', () => {
  // A fixed key so the vector is stable; signPersonalMessage is what Sui wallets call.
  const keypair = Ed25519Keypair.fromSecretKey(new Uint8Array(32).fill(7))
  const intent: Intent = { ...vectors[0]!.intent, sender: keypair.toSuiAddress() }
  const message = encodeSuiIntent(intent)

  /** From the Sui docs: blake2b-256 over intent [scope 3 = PersonalMessage, version 0, app 0 = Sui] || bcs(vector<u8> message). */
  function personalMessageDigest(msg: Uint8Array): Uint8Array {
    const uleb: number[] = []
    let n = msg.length
    do {
      let byte = n & 0x7f
      n >>>= 7
      if (n) byte |= 0x80
      uleb.push(byte)
    } while (n)
    return blake2b(new Uint8Array([3, 0, 0, ...uleb, ...msg]), { dkLen: 32 })
  }

  it('verifies with ed25519 over the documented digest, and the key hashes to the sender', async () => {
    const { signature } = await keypair.signPersonalMessage(message)
    const parsed = parseSerializedSignature(signature)
    assert.equal(parsed.signatureScheme, 'ED25519')
    const raw = Buffer.from(signature, 'base64')
    assert.equal(raw.length, 97, 'flag || 64-byte signature || 32-byte public key')
    assert.equal(raw[0], 0x00, 'Ed25519 flag')
    const sig = raw.subarray(1, 65)
    const publicKey = raw.subarray(65)
    // What the Move module does: sui::ed25519::ed25519_verify(sig, pk, digest) ...
    assert.equal(ed25519.verify(sig, personalMessageDigest(message), publicKey), true)
    // ... and blake2b256(0x00 || pk) == intent.sender.
    assert.equal(
      `0x${Buffer.from(blake2b(new Uint8Array([0, ...publicKey]), { dkLen: 32 })).toString('hex')}`,
      intent.sender,
    )
    // The SDK agrees.
    const verified = await verifyPersonalMessageSignature(message, signature)
    assert.equal(verified.toSuiAddress(), intent.sender)
  })

  it('gives the vector the Move unit tests use (move/tests/intents_tests.move): bytes, hash and signature', async () => {
    const sender = Ed25519Keypair.fromSecretKey(new Uint8Array(32).fill(9))
    const moveVector: Intent = {
      ...vectors[0]!.intent,
      sender: sender.toSuiAddress(),
      policyId: `0x${'9e'.repeat(32)}`,
    }
    assert.equal(moveVector.sender, '0x6c889013fb165a3a991a62d706af2435d3145a2655347074db6fc94b0eb97ad3')
    const bytes = encodeSuiIntent(moveVector)
    assert.equal(
      Buffer.from(bytes).toString('hex'),
      '15696e74656e742d676174657761792f7375692f76316c889013fb165a3a991a62d706af2435d3145a2655347074db6fc94b0eb97ad32222222222222222222222222222222222222222222222222222222222222222e8030000000000000700000000000000000000000000000000f15365000000009e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e',
    )
    assert.equal(
      suiRuntime.hashIntent(moveVector),
      '0x7a2767fc47701c2eb337593a6d551dda59e18a0326f796e5d03757a0000da970',
    )
    // Ed25519 signatures are deterministic: the wallet's signature is this exact vector.
    const { signature } = await sender.signPersonalMessage(bytes)
    assert.equal(
      Buffer.from(signature, 'base64').toString('hex'),
      '00c75144a0ff614bfd03aee81d91b55a0db447e6fee9ae467ef3080b348eeb5368b69befb2910514d876469dd7350424eab7255225be7c58b737144f18be3c4e01fd1724385aa0c75b64fb78cd602fa1d991fdebf76b13c58ed702eac835e9f618',
    )
  })

  it('does not verify over other bytes (a changed nonce)', async () => {
    const { signature } = await keypair.signPersonalMessage(message)
    const raw = Buffer.from(signature, 'base64')
    const changed = encodeSuiIntent({ ...intent, nonce: intent.nonce + 1n })
    assert.equal(ed25519.verify(raw.subarray(1, 65), personalMessageDigest(changed), raw.subarray(65)), false)
  })
})

function viemKeccak(hex: string): Uint8Array {
  return Buffer.from(keccakHex(`0x${hex}`).slice(2), 'hex')
}
