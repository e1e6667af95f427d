import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography'
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519'
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1'
import { readSuiRelayerKey } from './suiRelayerKey.ts'

const problem =
  'SUI_RELAYER_PRIVATE_KEY: must be an Ed25519 key in the form `sui keytool export` prints (suiprivkey1...)'

describe('readSuiRelayerKey', () => {
  it('takes the Ed25519 keys the Sui SDK exports, as the SDK reads them', () => {
    for (let i = 0; i < 20; i++) {
      const key = new Ed25519Keypair().getSecretKey()
      const problems: string[] = []
      assert.equal(readSuiRelayerKey({ SUI_RELAYER_PRIVATE_KEY: key }, problems), key)
      assert.deepEqual(problems, [])
      assert.equal(decodeSuiPrivateKey(key).scheme, 'ED25519')
    }
  })

  it('refuses other schemes, other prefixes, damaged keys, without echoing them', () => {
    const ed = new Ed25519Keypair().getSecretKey()
    const damaged = `${ed.slice(0, 20)}${ed[20] === 'q' ? 'p' : 'q'}${ed.slice(21)}`
    for (const value of [
      new Secp256k1Keypair().getSecretKey(),
      damaged,
      'suiprivkey1notakey',
      `0x${'11'.repeat(32)}`,
    ]) {
      const problems: string[] = []
      assert.equal(readSuiRelayerKey({ SUI_RELAYER_PRIVATE_KEY: value }, problems), undefined)
      assert.deepEqual(problems, [problem])
    }
    assert.equal(readSuiRelayerKey({}, []), undefined)
  })
})
