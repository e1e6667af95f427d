import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { signersConfig } from './signersConfig.ts'

describe('signersConfig', () => {
  it('has no KMS keys by default, and reads key ids, the region and an endpoint', () => {
    assert.deepEqual(signersConfig({}), { value: { kms: { keyIds: [], region: undefined, endpoint: undefined }, pkcs11: undefined, ed25519: {} }, problems: [] })
    assert.deepEqual(
      signersConfig({ RELAYER_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so', RELAYER_PKCS11_TOKEN: 'relayers', RELAYER_PKCS11_KEY_LABELS: 'relayer-1,relayer-2', RELAYER_PKCS11_PIN: '1234' }).value
        .pkcs11,
      { modulePath: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'relayers', keyLabels: ['relayer-1', 'relayer-2'], pin: '1234' },
    )
    assert.deepEqual(
      signersConfig({ RELAYER_PKCS11_KEY_LABELS: 'relayer-1' }).problems.map((p) => p.split(':')[0]),
      ['RELAYER_PKCS11_MODULE', 'RELAYER_PKCS11_TOKEN', 'RELAYER_PKCS11_PIN'],
    )
    const { value, problems } = signersConfig({
      RELAYER_KMS_KEY_IDS: 'alias/relayer-1, arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      AWS_REGION: 'eu-west-1',
      KMS_ENDPOINT: 'https://vpce-1.kms.eu-west-1.vpce.amazonaws.com',
    })
    assert.deepEqual(problems, [])
    assert.deepEqual(value.kms, {
      keyIds: ['alias/relayer-1', 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab'],
      region: 'eu-west-1',
      endpoint: 'https://vpce-1.kms.eu-west-1.vpce.amazonaws.com',
    })
  })

  it('names every problem at once', () => {
    assert.deepEqual(signersConfig({ RELAYER_KMS_KEY_IDS: 'a b,alias/x,alias/x', KMS_ENDPOINT: 'ftp://x' }).problems, [
      'RELAYER_KMS_KEY_IDS[0]: not a KMS key id, alias or ARN',
      'RELAYER_KMS_KEY_IDS: a key is named twice',
      'KMS_REGION: required with RELAYER_KMS_KEY_IDS (or set AWS_REGION)',
      'KMS_ENDPOINT: must be an http(s) URL',
    ])
  })

  it('reads the Solana and Sui relayer keys held in the token or in KMS, the token shared with the EVM keys', () => {
    const token = { RELAYER_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so', RELAYER_PKCS11_TOKEN: 'relayers', RELAYER_PKCS11_PIN: '1234' }
    const { value, problems } = signersConfig({ ...token, SOLANA_RELAYER_PKCS11_KEY_LABEL: 'solana-relayer', SUI_RELAYER_KMS_KEY_ID: 'alias/sui-relayer', KMS_REGION: 'eu-west-1' })
    assert.deepEqual(problems, [])
    assert.equal(value.pkcs11, undefined, 'no EVM key in the token')
    assert.deepEqual(value.ed25519, {
      solana: { backend: 'pkcs11', modulePath: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'relayers', pin: '1234', keyLabel: 'solana-relayer', setting: 'SOLANA_RELAYER_PKCS11_KEY_LABEL' },
      sui: { backend: 'kms', keyId: 'alias/sui-relayer', region: 'eu-west-1', endpoint: undefined, setting: 'SUI_RELAYER_KMS_KEY_ID' },
    })
  })

  it('names the token settings a Solana or Sui key label needs, a relayer given two ways, and a KMS key with no region; never the PIN or a key', () => {
    assert.deepEqual(signersConfig({ SUI_RELAYER_PKCS11_KEY_LABEL: 'sui-relayer' }).problems, [
      "RELAYER_PKCS11_MODULE: required with SUI_RELAYER_PKCS11_KEY_LABEL: the path of the token's PKCS#11 library",
      "RELAYER_PKCS11_TOKEN: required with SUI_RELAYER_PKCS11_KEY_LABEL: the token's label",
      "RELAYER_PKCS11_PIN: required with SUI_RELAYER_PKCS11_KEY_LABEL: the token's user PIN",
    ])
    const secret = '4wBqpZM9xaSheZzJSMawUKKwhdpChKbZ5eu5ky4Vigw9tGVfNdNhHH2xRzBDc2mbkyhvbhTsdS9dFn8KdBBXX6Em'
    const { problems } = signersConfig({
      SOLANA_RELAYER_PRIVATE_KEY: secret,
      SOLANA_RELAYER_KMS_KEY_ID: 'alias/solana',
      RELAYER_PKCS11_MODULE: '/lib.so',
      RELAYER_PKCS11_TOKEN: 't',
      RELAYER_PKCS11_PIN: 'secret-pin',
    })
    assert.deepEqual(problems, [
      'SOLANA_RELAYER_KMS_KEY_ID: the Solana relayer is one key: set only one of SOLANA_RELAYER_PRIVATE_KEY, SOLANA_RELAYER_KMS_KEY_ID',
      'RELAYER_PKCS11_KEY_LABELS: required with RELAYER_PKCS11_MODULE: the labels of the relayer keys in the token (or SOLANA_RELAYER_PKCS11_KEY_LABEL, SUI_RELAYER_PKCS11_KEY_LABEL)',
    ])
    assert.ok(!problems.join('\n').includes(secret) && !problems.join('\n').includes('secret-pin'))
    assert.deepEqual(signersConfig({ SUI_RELAYER_KMS_KEY_ID: 'alias/sui' }).problems, ['KMS_REGION: required with SUI_RELAYER_KMS_KEY_ID (or set AWS_REGION)'])
  })
})
