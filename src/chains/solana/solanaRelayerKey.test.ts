import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { getBase58Decoder } from '@solana/kit'
import { ed25519Seed } from './ed25519Seed.ts'
import { solanaRelayerKey } from './solanaRelayerKey.ts'

const seed = Uint8Array.from(createHash('sha256').update('a test relayer').digest())
const keypair = Uint8Array.from([...seed, ...ed25519Seed.publicKey(seed)])
const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes)
const problemOf = (raw: string, production = false) => {
  const r = solanaRelayerKey(raw, { production })
  assert.equal(r.ok, false)
  return r.ok ? '' : r.problem
}

describe('solanaRelayerKey', () => {
  it('is optional: unset or blank means no relayer', () => {
    assert.deepEqual(solanaRelayerKey(undefined, { production: true }), { ok: true, key: undefined })
    assert.deepEqual(solanaRelayerKey('  ', { production: true }), { ok: true, key: undefined })
  })

  it('reads the Solana CLI keypair file, a 64-byte base58 keypair and a 32-byte base58 seed as the same seed', () => {
    for (const raw of [
      JSON.stringify([...keypair]),
      `  ${JSON.stringify([...keypair])}\n`,
      base58(keypair),
      base58(seed),
    ]) {
      const r = solanaRelayerKey(raw, { production: true })
      assert.ok(r.ok && r.key, raw)
      assert.deepEqual([...r.key], [...seed])
    }
  })

  it('names what is wrong without repeating the key', () => {
    const damaged = Uint8Array.from(keypair)
    damaged[63] = damaged[63]! ^ 1
    const cases: Array<[string, RegExp]> = [
      ['[1, 2, "x"]', /JSON array of byte values/],
      ['[1, 2', /JSON array of byte values/],
      [`0x${'ab'.repeat(32)}`, /base58/],
      [base58(new Uint8Array(40).fill(9)), /holds 40/],
      [JSON.stringify([...damaged]), /not the public key/],
    ]
    for (const [raw, message] of cases) {
      const problem = problemOf(raw)
      assert.match(problem, /^SOLANA_RELAYER_PRIVATE_KEY: /)
      assert.match(problem, message)
      assert.ok(!problem.includes(raw.slice(3, 20)), 'the key is not echoed')
    }
  })

  it('refuses the public devnet relayer key in production only', () => {
    const devnet = Uint8Array.from(createHash('sha256').update('intent-gateway solana devnet relayer').digest())
    assert.match(problemOf(base58(devnet), true), /public devnet relayer key/)
    assert.ok(solanaRelayerKey(base58(devnet), { production: false }).ok)
  })
})
