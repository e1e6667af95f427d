// The Ed25519 signers of the Solana and Sui relayer keys, one backend at a time: a key in a real
// PKCS#11 token (SoftHSM2) and a key in KMS (the local stand-in speaking KMS's JSON protocol as
// @aws-sdk/client-kms sends it) sign exactly what the same key signs in the process (Ed25519 is
// deterministic), answer 503 0x40 when the backend refuses or hangs, and refuse at start a key of
// another kind. Real AWS is not verified (IAM, SigV4 checked by the server, quotas).
import assert from 'node:assert/strict'
import { createPublicKey, randomBytes, verify } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { generatePrivateKey } from 'viem/accounts'
import type { GatewayError } from '../../src/errors/gatewayError.ts'
import { createEd25519Signer } from '../../src/signers/createEd25519Signer.ts'
import { createKmsEd25519Signer } from '../../src/signers/createKmsEd25519Signer.ts'
import { createLocalEd25519Signer } from '../../src/signers/createLocalEd25519Signer.ts'
import { createPkcs11EdDsaSigner } from '../../src/signers/createPkcs11EdDsaSigner.ts'
import { type KmsStandIn, startKmsStandIn } from '../support/kmsStandIn.ts'
import { createSoftHsmToken, pkcs11Binding, type SoftHsmToken, softHsmModule } from '../support/softHsm.ts'

const credentials = { accessKeyId: 'AKIASTANDIN', secretAccessKey: 'stand-in-secret' }
const verifies = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) =>
  verify(
    null,
    message,
    createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]),
      format: 'der',
      type: 'spki',
    }),
    signature,
  )

describe('Ed25519 relayer keys in KMS (against the KMS stand-in)', () => {
  const seed = randomBytes(32)
  let kms: KmsStandIn

  before(async () => {
    kms = await startKmsStandIn({ 'alias/evm': generatePrivateKey() }, { 'alias/solana': { ed25519: seed } })
  })
  after(async () => {
    await kms?.close()
  })

  it("has the key's public key and signs exactly what the key signs in the process", async () => {
    const signer = await createKmsEd25519Signer({
      keyId: 'alias/solana',
      region: 'us-east-1',
      endpoint: kms.endpoint,
      credentials,
    })
    const local = createLocalEd25519Signer(seed)
    assert.equal(signer.backend, 'kms')
    assert.deepEqual(signer.publicKey, local.publicKey)
    const message = randomBytes(1232)
    assert.deepEqual(await signer.sign(message), await local.sign(message))
  })

  it('answers 503 (0x40) with Retry-After when KMS refuses, and when it does not answer in time', async () => {
    const signer = await createKmsEd25519Signer({
      keyId: 'alias/solana',
      region: 'us-east-1',
      endpoint: kms.endpoint,
      credentials,
      timeoutMs: 300,
    })
    for (const mode of ['refuse', 'hang'] as const) {
      kms.mode = mode
      try {
        await assert.rejects(signer.sign(new Uint8Array([1, 2, 3])), (err: GatewayError) => {
          assert.equal(err.code, 'SIGNER_UNAVAILABLE')
          assert.equal(err.status, 0x40)
          assert.equal(err.headers['retry-after'], '5')
          assert.match(
            err.details!,
            mode === 'refuse'
              ? /^KMS Sign failed: KMSInvalidStateException/
              : /^KMS Sign failed: (TimeoutError|AbortError)/,
          )
          return true
        })
      } finally {
        kms.mode = 'normal'
      }
    }
  })

  it('refuses at start a key that is not Ed25519, or that KMS does not have, naming the setting', async () => {
    const source = {
      backend: 'kms' as const,
      region: 'us-east-1',
      endpoint: kms.endpoint,
      setting: 'SOLANA_RELAYER_KMS_KEY_ID',
    }
    process.env.AWS_ACCESS_KEY_ID = credentials.accessKeyId
    process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey
    await assert.rejects(
      createEd25519Signer({ ...source, keyId: 'alias/evm' }),
      (err: Error & { problems?: string[] }) => {
        assert.deepEqual(err.problems, [
          'SOLANA_RELAYER_KMS_KEY_ID: key spec ECC_SECG_P256K1 is not ECC_NIST_EDWARDS25519',
        ])
        return true
      },
    )
    await assert.rejects(
      createEd25519Signer({ ...source, keyId: 'alias/missing' }),
      (err: Error & { problems?: string[] }) => {
        assert.deepEqual(err.problems, [
          "SOLANA_RELAYER_KMS_KEY_ID: The relayer's signer is unavailable (KMS GetPublicKey for key alias/missing failed: NotFoundException)",
        ])
        return true
      },
    )
  })
})

describe('Ed25519 relayer keys in a PKCS#11 token (SoftHSM2)', {
  skip: !softHsmModule
    ? 'SoftHSM2 is not installed'
    : !pkcs11Binding
      ? 'the optional pkcs11js binding did not build'
      : false,
}, () => {
  let token: SoftHsmToken
  before(() => {
    token = createSoftHsmToken(['evm-relayer'], 'relayers', '1234', { ed25519Labels: ['ed-relayer'] })
  })
  after(() => token?.remove())

  it("signs inside the token what verifies for the key's public key, concurrent signatures one at a time on its session", async () => {
    const signer = createPkcs11EdDsaSigner({ ...token, keyLabel: 'ed-relayer' })
    assert.equal(signer.backend, 'pkcs11')
    assert.equal(signer.publicKey.length, 32)
    const messages = Array.from({ length: 20 }, () => randomBytes(200))
    const signatures = await Promise.all(messages.map((m) => signer.sign(m)))
    messages.forEach((m, i) => assert.equal(verifies(signer.publicKey, m, signatures[i]!), true))
  })

  it('refuses at start a secp256k1 key where an Ed25519 key is needed, naming the setting', async () => {
    await assert.rejects(
      createEd25519Signer({
        backend: 'pkcs11',
        ...token,
        keyLabel: 'evm-relayer',
        setting: 'SUI_RELAYER_PKCS11_KEY_LABEL',
      }),
      (err: Error & { problems?: string[] }) => {
        assert.deepEqual(err.problems, [
          'SUI_RELAYER_PKCS11_KEY_LABEL: the key "evm-relayer" is not an Ed25519 key (its CKA_EC_POINT holds 67 bytes)',
        ])
        return true
      },
    )
  })
})
