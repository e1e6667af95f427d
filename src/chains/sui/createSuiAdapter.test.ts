// What createSuiAdapter refuses at start-up, all at once, without ever printing the key.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError } from '../../errors/configError.ts'
import { createLogger } from '../../logging/createLogger.ts'
import { createSuiAdapter } from './createSuiAdapter.ts'

const logger = createLogger({ level: 'silent' })
const id = `0x${'ab'.repeat(32)}`

describe('createSuiAdapter configuration', () => {
  it('refuses an unknown Sui network, short object ids and a key that is not Ed25519, in one error', () => {
    const secret = 'suiprivkey1notakeyatall'
    assert.throws(
      () =>
        createSuiAdapter({
          chain: { chainId: 'sui:moonnet', rpcUrl: 'http://127.0.0.1:1', packageId: '0x2', hubId: id },
          relayerSecretKey: secret,
          rpcTimeoutMs: 100,
          logger,
        }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError)
        assert.deepEqual(err.problems, [
          'sui:moonnet: a Sui chain id is one of sui:mainnet, sui:testnet, sui:devnet, sui:localnet',
          'sui:moonnet: the package id must be 0x followed by 64 hex digits',
          'sui:moonnet: the Sui relayer key is not an Ed25519 key (expected suiprivkey1… or 32 bytes)',
        ])
        assert.ok(!err.message.includes(secret))
        return true
      },
    )
  })

  it('builds a chain without a relayer that cannot execute', () => {
    const adapter = createSuiAdapter({
      chain: { chainId: 'sui:testnet', rpcUrl: 'http://127.0.0.1:1', packageId: id, hubId: id },
      relayerSecretKey: undefined,
      rpcTimeoutMs: 100,
      logger,
    })
    assert.equal(adapter.canExecute, false)
    assert.equal(adapter.describe().relayer, undefined)
    assert.equal(adapter.describe().name, 'Sui testnet')
  })
})
