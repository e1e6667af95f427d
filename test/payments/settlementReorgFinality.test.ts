// Each chain's finality rule, published where the operator's console and agents read it: GET /chains
// and GET /chains/{chainId} (EVM: CONFIRMATIONS blocks deep; Solana: the `confirmed` commitment; Sui:
// certified effects), the OpenAPI schema of both, and the console's /ops/state (the same object, not
// one it works out). Real parts: anvil, LiteSVM, the Sui stand-in.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { opsConfig } from '../../src/config/opsConfig.ts'
import { createGateway, type Gateway } from '../../src/createGateway.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { localKey } from '../support/relayerKeys.ts'
import {
  type SolanaGateway,
  solanaAdapterFor,
  startSolanaDevnet,
  startSolanaGateway,
} from '../support/solanaGateway.ts'
import { type SuiWorld, startSuiWorld } from '../support/suiGateway.ts'
import { testConfig } from '../support/testConfig.ts'
import { request } from '../support/testGateway.ts'

const opsKey = `ops-${randomBytes(12).toString('hex')}`

describe('finality rules in GET /chains', () => {
  describe('EVM (anvil, CONFIRMATIONS=3)', () => {
    let devnet: Devnet
    let gateway: Gateway
    let base: string
    before(async () => {
      devnet = await startDevnet()
      const ops = opsConfig({ OPS_API_KEYS: opsKey, OPS_POLL_MS: '100' }, { production: false }).value
      gateway = await createGateway({
        config: testConfig({
          production: false,
          chains: [devnet.chain],
          keys: { evm: [localKey(devnetAccounts.relayer, 'RELAYER_PRIVATE_KEY')] },
          execution: { receiptTimeoutMs: 10_000, confirmations: 3 },
          rpc: { timeoutMs: 2_000, pollMs: 20 },
          ops,
        } as Parameters<typeof testConfig>[0]),
        logger: createLogger({ level: 'silent' }),
      })
      base = await gateway.app.listen({ host: '127.0.0.1', port: 0 })
    })
    after(async () => {
      await gateway?.close()
      await devnet?.stop()
    })

    it('publishes the depth the reconciler uses, in the list and for one chain', async () => {
      const list = await request(base, '/chains')
      assert.equal(list.status, 200, list.text)
      const chain = list.body.chains.find((c: { chainId: string }) => c.chainId === devnet.chain.chainId)
      assert.equal(chain.finality.rule, 'depth')
      assert.equal(chain.finality.confirmations, 3)
      assert.match(chain.finality.description, /3 blocks deep/)
      const one = await request(base, `/chains/${encodeURIComponent(devnet.chain.chainId)}`)
      assert.equal(one.status, 200, one.text)
      assert.deepEqual(one.body.finality, chain.finality)
    })

    it('shows the console the same rule GET /chains publishes', async () => {
      const state = await request(base, '/ops/state', { headers: { authorization: `Bearer ${opsKey}` } })
      assert.equal(state.status, 200, state.text)
      const list = await request(base, '/chains')
      const chain = state.body.chains.find((c: { chainId: string }) => c.chainId === devnet.chain.chainId)
      assert.deepEqual(chain.finality, list.body.chains[0].finality)
    })

    it('documents the field in the OpenAPI schema of both routes', async () => {
      const doc = (await request(base, '/openapi.json')).body
      const schemaOf = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema
      const listItem = schemaOf('/chains').properties.chains.items
      for (const chainSchema of [listItem, schemaOf('/chains/{chainId}')]) {
        assert.ok(chainSchema.required.includes('finality'))
        assert.deepEqual(chainSchema.properties.finality.properties.rule.enum, ['depth', 'commitment', 'effects'])
      }
    })
  })

  describe('Solana (LiteSVM)', () => {
    let devnet: SolanaDevnet
    let gateway: SolanaGateway
    before(async () => {
      devnet = await startSolanaDevnet()
      gateway = await startSolanaGateway([solanaAdapterFor(devnet)])
    })
    after(async () => {
      await gateway?.close()
      await devnet?.stop()
    })

    it('publishes the commitment a signature status must reach', async () => {
      const one = await request(gateway.baseUrl, `/chains/${encodeURIComponent(devnet.chainId)}`)
      assert.equal(one.status, 200, one.text)
      assert.equal(one.body.finality.rule, 'commitment')
      assert.equal(one.body.finality.commitment, 'confirmed')
      assert.equal(one.body.finality.confirmations, undefined)
    })
  })

  describe('Sui (the stand-in)', () => {
    let world: SuiWorld
    before(async () => {
      world = await startSuiWorld()
    })
    after(async () => {
      await world?.stop()
    })

    it('publishes certified effects as final', async () => {
      const list = await world.get('/chains')
      assert.equal(list.status, 200, list.text)
      assert.equal(list.body.chains[0].finality.rule, 'effects')
      assert.match(list.body.chains[0].finality.description, /effects/)
    })
  })
})
