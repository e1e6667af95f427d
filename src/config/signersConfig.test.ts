import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { paymentFamilies } from '../payments/mechanisms/paymentFamilies.ts'
import { runtimes } from '../runtimes.ts'
import { keyBackends } from '../signers/keyBackends.ts'
import { signersConfig as readSigners } from './signersConfig.ts'

/** As loadConfig reads them: every runtime's held keys and every payment family's facilitator key, in every backend. */
const signersConfig = (env: Record<string, string | undefined>) =>
  readSigners(
    env,
    runtimes,
    keyBackends,
    paymentFamilies.map((f) => f.facilitatorKey),
  )

describe('signersConfig', () => {
  it('has no KMS keys by default, and reads key ids, the region and an endpoint', () => {
    assert.deepEqual(signersConfig({}), { value: {}, relayers: {}, problems: [] })
    assert.deepEqual(
      signersConfig({
        RELAYER_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so',
        RELAYER_PKCS11_TOKEN: 'relayers',
        RELAYER_PKCS11_KEY_LABELS: 'relayer-1,relayer-2',
        RELAYER_PKCS11_PIN: '1234',
      }).relayers.evm,
      ['relayer-1', 'relayer-2'].map((keyLabel) => ({
        backend: 'pkcs11',
        modulePath: '/usr/lib/softhsm/libsofthsm2.so',
        tokenLabel: 'relayers',
        pin: '1234',
        keyLabel,
        setting: 'RELAYER_PKCS11_KEY_LABELS',
      })),
    )
    assert.deepEqual(
      signersConfig({ RELAYER_PKCS11_KEY_LABELS: 'relayer-1' }).problems.map((p) => p.split(':')[0]),
      ['RELAYER_PKCS11_MODULE', 'RELAYER_PKCS11_TOKEN', 'RELAYER_PKCS11_PIN'],
    )
    const { relayers, problems } = signersConfig({
      RELAYER_KMS_KEY_IDS:
        'alias/relayer-1, arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      AWS_REGION: 'eu-west-1',
      KMS_ENDPOINT: 'https://vpce-1.kms.eu-west-1.vpce.amazonaws.com',
    })
    assert.deepEqual(problems, [])
    assert.deepEqual(
      relayers.evm,
      ['alias/relayer-1', 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab'].map(
        (keyId) => ({
          backend: 'kms',
          keyId,
          region: 'eu-west-1',
          endpoint: 'https://vpce-1.kms.eu-west-1.vpce.amazonaws.com',
          setting: 'RELAYER_KMS_KEY_IDS',
        }),
      ),
    )
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
    const token = {
      RELAYER_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so',
      RELAYER_PKCS11_TOKEN: 'relayers',
      RELAYER_PKCS11_PIN: '1234',
    }
    const { relayers, problems } = signersConfig({
      ...token,
      SOLANA_RELAYER_PKCS11_KEY_LABEL: 'solana-relayer',
      SUI_RELAYER_KMS_KEY_ID: 'alias/sui-relayer',
      KMS_REGION: 'eu-west-1',
    })
    assert.deepEqual(problems, [])
    assert.equal(relayers.evm, undefined, 'no EVM key in the token')
    assert.deepEqual(relayers, {
      solana: [
        {
          backend: 'pkcs11',
          modulePath: '/usr/lib/softhsm/libsofthsm2.so',
          tokenLabel: 'relayers',
          pin: '1234',
          keyLabel: 'solana-relayer',
          setting: 'SOLANA_RELAYER_PKCS11_KEY_LABEL',
        },
      ],
      sui: [
        {
          backend: 'kms',
          keyId: 'alias/sui-relayer',
          region: 'eu-west-1',
          endpoint: undefined,
          setting: 'SUI_RELAYER_KMS_KEY_ID',
        },
      ],
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
      'RELAYER_PKCS11_KEY_LABELS: required with RELAYER_PKCS11_MODULE: the labels of the relayer keys in the token (or SOLANA_RELAYER_PKCS11_KEY_LABEL, SUI_RELAYER_PKCS11_KEY_LABEL, FACILITATOR_PKCS11_KEY_LABEL, FACILITATOR_SOLANA_PKCS11_KEY_LABEL)',
    ])
    assert.ok(!problems.join('\n').includes(secret) && !problems.join('\n').includes('secret-pin'))
    assert.deepEqual(signersConfig({ SUI_RELAYER_KMS_KEY_ID: 'alias/sui' }).problems, [
      'KMS_REGION: required with SUI_RELAYER_KMS_KEY_ID (or set AWS_REGION)',
    ])
  })

  it("reads the x402 facilitator's keys held in the token or in KMS, the token and region shared with the relayers'", () => {
    const token = {
      RELAYER_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so',
      RELAYER_PKCS11_TOKEN: 'relayers',
      RELAYER_PKCS11_PIN: '1234',
    }
    const inToken = signersConfig({
      ...token,
      FACILITATOR_PKCS11_KEY_LABEL: 'facilitator',
      FACILITATOR_SOLANA_PKCS11_KEY_LABEL: 'facilitator-solana',
    })
    assert.deepEqual(inToken.problems, [])
    assert.deepEqual(inToken.value.facilitator, {
      evm: {
        backend: 'pkcs11',
        modulePath: '/usr/lib/softhsm/libsofthsm2.so',
        tokenLabel: 'relayers',
        pin: '1234',
        keyLabel: 'facilitator',
        setting: 'FACILITATOR_PKCS11_KEY_LABEL',
      },
      solana: {
        backend: 'pkcs11',
        modulePath: '/usr/lib/softhsm/libsofthsm2.so',
        tokenLabel: 'relayers',
        pin: '1234',
        keyLabel: 'facilitator-solana',
        setting: 'FACILITATOR_SOLANA_PKCS11_KEY_LABEL',
      },
    })
    // The facilitator's label alone is enough for the token to be opened: no relayer key has to live there.
    assert.deepEqual(inToken.relayers, {})
    const inKms = signersConfig({
      FACILITATOR_KMS_KEY_ID: 'alias/facilitator',
      FACILITATOR_SOLANA_KMS_KEY_ID: 'alias/facilitator-solana',
      KMS_REGION: 'eu-west-1',
      KMS_ENDPOINT: 'http://127.0.0.1:4599',
    })
    assert.deepEqual(inKms.problems, [])
    assert.deepEqual(inKms.value.facilitator, {
      evm: {
        backend: 'kms',
        keyId: 'alias/facilitator',
        region: 'eu-west-1',
        endpoint: 'http://127.0.0.1:4599',
        setting: 'FACILITATOR_KMS_KEY_ID',
      },
      solana: {
        backend: 'kms',
        keyId: 'alias/facilitator-solana',
        region: 'eu-west-1',
        endpoint: 'http://127.0.0.1:4599',
        setting: 'FACILITATOR_SOLANA_KMS_KEY_ID',
      },
    })
    assert.equal(signersConfig({}).value.facilitator, undefined)
  })

  it("refuses a facilitator key given two ways, a relayer's key by name, and a label or KMS key without the token's or KMS's settings; never the PIN or a key", () => {
    const token = { RELAYER_PKCS11_MODULE: '/lib.so', RELAYER_PKCS11_TOKEN: 't', RELAYER_PKCS11_PIN: 'secret-pin' }
    const key = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba'
    const { problems } = signersConfig({
      ...token,
      FACILITATOR_PRIVATE_KEY: key,
      FACILITATOR_PKCS11_KEY_LABEL: 'facilitator',
      RELAYER_PKCS11_KEY_LABELS: 'relayer-1',
      SOLANA_RELAYER_PKCS11_KEY_LABEL: 'solana-relayer',
      FACILITATOR_SOLANA_PKCS11_KEY_LABEL: 'solana-relayer',
    })
    assert.deepEqual(problems, [
      "FACILITATOR_PKCS11_KEY_LABEL: the facilitator's EVM key is one key: set only one of FACILITATOR_PRIVATE_KEY, FACILITATOR_PKCS11_KEY_LABEL",
      'FACILITATOR_SOLANA_PKCS11_KEY_LABEL: "solana-relayer" is a relayer\'s key (SOLANA_RELAYER_PKCS11_KEY_LABEL); give the facilitator its own key',
    ])
    assert.ok(!problems.join('\n').includes(key) && !problems.join('\n').includes('secret-pin'))
    assert.deepEqual(
      signersConfig({ ...token, RELAYER_PKCS11_KEY_LABELS: 'relayer-1', FACILITATOR_PKCS11_KEY_LABEL: 'relayer-1' })
        .problems,
      [
        'FACILITATOR_PKCS11_KEY_LABEL: "relayer-1" is a relayer\'s key (RELAYER_PKCS11_KEY_LABELS); give the facilitator its own key',
      ],
    )
    assert.deepEqual(
      signersConfig({ RELAYER_KMS_KEY_IDS: 'alias/r', KMS_REGION: 'eu-west-1', FACILITATOR_KMS_KEY_ID: 'alias/r' })
        .problems,
      ['FACILITATOR_KMS_KEY_ID: "alias/r" is a relayer\'s key (RELAYER_KMS_KEY_IDS); give the facilitator its own key'],
    )
    assert.deepEqual(
      signersConfig({ FACILITATOR_SOLANA_PKCS11_KEY_LABEL: 'f', FACILITATOR_KMS_KEY_ID: 'alias/f' }).problems,
      [
        'KMS_REGION: required with FACILITATOR_KMS_KEY_ID (or set AWS_REGION)',
        "RELAYER_PKCS11_MODULE: required with FACILITATOR_SOLANA_PKCS11_KEY_LABEL: the path of the token's PKCS#11 library",
        "RELAYER_PKCS11_TOKEN: required with FACILITATOR_SOLANA_PKCS11_KEY_LABEL: the token's label",
        "RELAYER_PKCS11_PIN: required with FACILITATOR_SOLANA_PKCS11_KEY_LABEL: the token's user PIN",
      ],
    )
  })
})
