// The start-up check that no key of the in-process facilitator is a relayer's, by address: the
// settings may name one key twice where no configuration check can see it (a KMS alias and its id,
// two labels of one key), and a facilitator sending from a relayer's account would collide with
// the journal's transactions. Real parts: anvil, the gateway as createGateway builds it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { createGateway } from '../../src/createGateway.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { localKey } from '../support/relayerKeys.ts'
import { testConfig } from '../support/testConfig.ts'

describe("the facilitator's keys are never a relayer's", () => {
  let devnet: Devnet
  before(async () => {
    devnet = await startDevnet()
  })
  after(async () => {
    await devnet?.stop()
  })

  const start = (facilitatorKey: `0x${string}`) =>
    createGateway({
      config: testConfig({
        chains: [devnet.chain],
        keys: { evm: [localKey(devnetAccounts.relayer, 'RELAYER_PRIVATE_KEY')] },
        payments: {
          prices: {},
          priceApiKeyClients: false,
          // As a KMS key would come: the configuration cannot compare it with the relayer's.
          facilitator: { kind: 'local', evmKey: localKey(facilitatorKey, 'FACILITATOR_KMS_KEY_ID') },
        },
      } as Parameters<typeof testConfig>[0]),
      logger: createLogger({ level: 'silent' }),
    })

  it("refuses to start when the facilitator's EVM key is the relayer's, naming its setting and the chain", async () => {
    const relayer = privateKeyToAccount(devnetAccounts.relayer).address
    await assert.rejects(start(devnetAccounts.relayer), (err: Error) => {
      assert.match(
        err.message,
        new RegExp(
          `FACILITATOR_KMS_KEY_ID: its key ${relayer} is a relayer's key on ${devnet.chain.chainId}; give the facilitator its own funded account`,
        ),
      )
      return true
    })
  })

  it('starts with a facilitator key of its own', async () => {
    const gateway = await start(devnetAccounts.facilitator)
    await gateway.close()
  })
})
