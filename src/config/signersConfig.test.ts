import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { signersConfig } from './signersConfig.ts'

describe('signersConfig', () => {
  it('has no KMS keys by default, and reads key ids, the region and an endpoint', () => {
    assert.deepEqual(signersConfig({}), { value: { kms: { keyIds: [], region: undefined, endpoint: undefined }, pkcs11: undefined, ed25519: {} }, problems: [] })
    assert.deepEqual(signersConfig({ RELAYER_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so', RELAYER_PKCS11_TOKEN: 'relayers', RELAYER_PKCS11_KEY_LABELS: 'relayer-1,relayer-2', RELAYER_PKCS11_PIN: '1234' }).value.pkcs11, { modulePath: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'relayers', keyLabels: ['relayer-1', 'relayer-2'], pin: '1234' })
    assert.deepEqual(signersConfig({ RELAYER_PKCS11_KEY_LABELS: 'relayer-1' }).problems.map((p) => p.split(':')[0]), ['RELAYER_PKCS11_MODULE', 'RELAYER_PKCS11_TOKEN', 'RELAYER_PKCS11_PIN'])
    const { value, problems } = signersConfig({ RELAYER_KMS_KEY_IDS: 'alias/relayer-1, arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab', AWS_REGION: 'eu-west-1', KMS_ENDPOINT: 'https://vpce-1.kms.eu-west-1.vpce.amazonaws.com' })
    assert.deepEqual(problems, [])
    assert.deepEqual(value.kms, { keyIds: ['alias/relayer-1', 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab'], region: 'eu-west-1', endpoint: 'https://vpce-1.kms.eu-west-1.vpce.amazonaws.com' })
  })

  it('names every problem at once', () => {
    assert.deepEqual(signersConfig({ RELAYER_KMS_KEY_IDS: 'a b,alias/x,alias/x', KMS_ENDPOINT: 'ftp://x' }).problems, [
      'RELAYER_KMS_KEY_IDS[0]: not a KMS key id, alias or ARN',
      'RELAYER_KMS_KEY_IDS: a key is named twice',
      'KMS_REGION: required with RELAYER_KMS_KEY_IDS (or set AWS_REGION)',
      'KMS_ENDPOINT: must be an http(s) URL',
    ])
  })
})
