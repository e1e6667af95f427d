// A signer backend is one file and one line (issue 47, item 3): a backend written here, a vault
// holding keys by path, handed to the configuration with the others, has its settings read for
// every role (a pool, one key, the facilitator's), its own problems reported, the shared rules
// applied to it, and its keys reach the relayers; no other file names it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { loadConfig } from '../config/loadConfig.ts'
import { signersConfig } from '../config/signersConfig.ts'
import { paymentFamilies } from '../payments/mechanisms/paymentFamilies.ts'
import type { EvmKeySource } from '../ports/keySource.ts'
import { runtimes } from '../runtimes.ts'
import { storageEngines } from '../storageEngines.ts'
import type { KeyBackend } from './keyBackend.ts'
import { keyBackends } from './keyBackends.ts'

declare module '../ports/keySource.ts' {
  interface HeldKeyFields {
    /** A key in the vault at `address`, by its path. */
    vault: { address: string; path: string }
  }
}

/** What the vault holds, by path (a vault's own keys never leave it; these stand for them). */
const vaultKeys: Record<string, Hex> = {
  'relayers/1': `0x${'31'.repeat(32)}`,
  'relayers/2': `0x${'32'.repeat(32)}`,
}

/** The backend, as its own file under signers/ would export it. */
const vaultKeyBackend: KeyBackend = {
  backend: 'vault',
  opensTogether: true,
  settings: {
    setting: (prefix, many) => `${prefix}_VAULT_KEY_PATH${many ? 'S' : ''}`,
    read(env) {
      const address = env.VAULT_ADDR?.trim()
      return {
        check: (paths, { setting, many }) =>
          paths.flatMap((path, i) =>
            path.startsWith('/') ? [`${many ? `${setting}[${i}]` : setting}: a vault path is relative`] : [],
          ),
        keys: (paths, setting) =>
          address
            ? paths.map((path) => ({ backend: 'vault', address, path, setting }))
            : { problem: `VAULT_ADDR: required with ${setting}` },
        finish: () => [],
      }
    },
  },
  async openEvm(source) {
    if (source.backend !== 'vault') throw new Error(`not a vault key: ${source.backend}`)
    const key = vaultKeys[source.path]
    if (!key) throw new Error(`the vault holds no key at ${source.path}`)
    return { ...privateKeyToAccount(key), backend: 'vault' }
  },
  async openEd25519() {
    throw new Error('this vault holds no Ed25519 keys')
  },
}

/** The list as src/signers/keyBackends.ts would have it with the vault's line. */
const withVault = [...keyBackends, vaultKeyBackend]
const readSigners = (env: Record<string, string | undefined>) =>
  signersConfig(
    env,
    runtimes,
    withVault,
    paymentFamilies.map((f) => f.facilitatorKey),
  )

const vault = (path: string, setting: string) => ({ backend: 'vault', address: 'https://vault.test', path, setting })

describe('a signer backend is one file and one line', () => {
  it("reads its settings for every role: a pool's (its keys among those opened together), one key's, the facilitator's", () => {
    const { value, relayers, problems } = readSigners({
      VAULT_ADDR: 'https://vault.test',
      RELAYER_VAULT_KEY_PATHS: 'relayers/1, relayers/2',
      RELAYER_KMS_KEY_IDS: 'alias/relayer',
      RELAYER_PKCS11_KEY_LABELS: 'relayer-1',
      RELAYER_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so',
      RELAYER_PKCS11_TOKEN: 'relayers',
      RELAYER_PKCS11_PIN: '1234',
      KMS_REGION: 'eu-west-1',
      SUI_RELAYER_VAULT_KEY_PATH: 'sui/relayer',
      FACILITATOR_VAULT_KEY_PATH: 'facilitator',
    })
    assert.deepEqual(problems, [])
    // A pool: the keys opened together (KMS's, the vault's) in the list's order, then the token's.
    assert.deepEqual(
      relayers.evm?.map((k) => [k.backend, k.setting]),
      [
        ['kms', 'RELAYER_KMS_KEY_IDS'],
        ['vault', 'RELAYER_VAULT_KEY_PATHS'],
        ['vault', 'RELAYER_VAULT_KEY_PATHS'],
        ['pkcs11', 'RELAYER_PKCS11_KEY_LABELS'],
      ],
    )
    assert.deepEqual(relayers.evm?.slice(1, 3), [
      vault('relayers/1', 'RELAYER_VAULT_KEY_PATHS'),
      vault('relayers/2', 'RELAYER_VAULT_KEY_PATHS'),
    ])
    assert.deepEqual(relayers.sui, [vault('sui/relayer', 'SUI_RELAYER_VAULT_KEY_PATH')])
    assert.deepEqual(value.facilitator, { evm: vault('facilitator', 'FACILITATOR_VAULT_KEY_PATH') })
  })

  it('reports its own problems, and the shared rules hold for it: one key named once, a facilitator key not a relayer’s', () => {
    assert.deepEqual(
      readSigners({ RELAYER_VAULT_KEY_PATHS: '/abs,relayers/1', SUI_RELAYER_VAULT_KEY_PATH: 'x' }).problems,
      [
        'RELAYER_VAULT_KEY_PATHS[0]: a vault path is relative',
        'VAULT_ADDR: required with RELAYER_VAULT_KEY_PATHS',
        'VAULT_ADDR: required with SUI_RELAYER_VAULT_KEY_PATH',
      ],
    )
    assert.deepEqual(
      readSigners({
        VAULT_ADDR: 'https://vault.test',
        RELAYER_VAULT_KEY_PATHS: 'relayers/1',
        SOLANA_RELAYER_PRIVATE_KEY: 'not read here',
        SOLANA_RELAYER_VAULT_KEY_PATH: 'solana/relayer',
        FACILITATOR_VAULT_KEY_PATH: 'relayers/1',
        FACILITATOR_SOLANA_VAULT_KEY_PATH: 'solana/relayer',
      }).problems,
      [
        'SOLANA_RELAYER_VAULT_KEY_PATH: the Solana relayer is one key: set only one of SOLANA_RELAYER_PRIVATE_KEY, SOLANA_RELAYER_VAULT_KEY_PATH',
        'FACILITATOR_VAULT_KEY_PATH: "relayers/1" is a relayer\'s key (RELAYER_VAULT_KEY_PATHS); give the facilitator its own key',
        'FACILITATOR_SOLANA_VAULT_KEY_PATH: "solana/relayer" is a relayer\'s key (SOLANA_RELAYER_VAULT_KEY_PATH); give the facilitator its own key',
      ],
    )
    // Each backend's closing problems name its own settings only: the token's, not the vault's.
    assert.deepEqual(
      readSigners({ RELAYER_PKCS11_MODULE: '/lib.so', RELAYER_PKCS11_TOKEN: 't', RELAYER_PKCS11_PIN: '1' }).problems,
      [
        'RELAYER_PKCS11_KEY_LABELS: required with RELAYER_PKCS11_MODULE: the labels of the relayer keys in the token (or SOLANA_RELAYER_PKCS11_KEY_LABEL, SUI_RELAYER_PKCS11_KEY_LABEL, FACILITATOR_PKCS11_KEY_LABEL, FACILITATOR_SOLANA_PKCS11_KEY_LABEL)',
      ],
    )
  })

  it("holds the facilitator's key for payments: prices are taken with it alone, and the messages name its setting", () => {
    const prices = JSON.stringify({
      'eip155:31337': { execute: { price: '$0.01', payTo: '0x976EA74026E726554dB657fA54763abd0C3a0aa9' } },
    })
    const read = (env: Record<string, string>) =>
      loadConfig(
        { RELAYER_PRIVATE_KEY: `0x${'11'.repeat(32)}`, X402_PRICES: prices, ...env },
        runtimes,
        storageEngines,
        paymentFamilies,
        withVault,
      )
    const config = read({ VAULT_ADDR: 'https://vault.test', FACILITATOR_VAULT_KEY_PATH: 'facilitator' })
    assert.deepEqual(config.payments?.facilitator, {
      kind: 'local',
      evmKey: vault('facilitator', 'FACILITATOR_VAULT_KEY_PATH'),
    })
    assert.throws(
      () => read({}),
      (err: Error) =>
        err.message.includes(
          'or their keys in a token or KMS: FACILITATOR_PKCS11_KEY_LABEL, FACILITATOR_KMS_KEY_ID, FACILITATOR_VAULT_KEY_PATH, FACILITATOR_SOLANA_PKCS11_KEY_LABEL',
        ),
    )
  })

  it('reaches the relayer keys through loadConfig, after the keys in the process, and opens them', async () => {
    const local = `0x${'11'.repeat(32)}` as const
    const config = loadConfig(
      {
        RELAYER_PRIVATE_KEY: local,
        VAULT_ADDR: 'https://vault.test',
        RELAYER_VAULT_KEY_PATHS: 'relayers/1,relayers/2',
      },
      runtimes,
      storageEngines,
      paymentFamilies,
      withVault,
    )
    assert.deepEqual(config.keys.evm, [
      { backend: 'local', secret: local, setting: 'RELAYER_PRIVATE_KEY' },
      vault('relayers/1', 'RELAYER_VAULT_KEY_PATHS'),
      vault('relayers/2', 'RELAYER_VAULT_KEY_PATHS'),
    ])
    const held = (config.keys.evm ?? []).slice(1) as EvmKeySource[]
    const accounts = await Promise.all(held.map((source) => vaultKeyBackend.openEvm(source, {})))
    assert.deepEqual(
      accounts.map((a) => [a.address, a.backend]),
      Object.values(vaultKeys).map((key) => [privateKeyToAccount(key).address, 'vault']),
    )
  })
})
