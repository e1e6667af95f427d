// A chain with no account mode here answers a request for it with a 400 on `mode` in its runtime's
// words (ChainAdapter.accountModeUnavailable): EVM, no account delegate configured; Sui, no relayer
// key to sponsor it; a runtime that says nothing, the shared words (the EVM ones). Nothing is read
// from a node: the refusal comes while the request is read.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { createEvmAdapter } from '../../src/chains/evm/createEvmAdapter.ts'
import { createSuiAdapter } from '../../src/chains/sui/createSuiAdapter.ts'
import { createChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { ChainAdapter } from '../../src/ports/chainAdapter.ts'
import { testApp } from '../support/testApp.ts'

const logger = createLogger({ level: 'silent' })
const evm = createEvmAdapter({
  chain: {
    chainId: 'eip155:31337',
    chainType: 'evm',
    reference: '31337',
    rpcUrls: ['http://127.0.0.1:1'],
    executor: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    validator: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    registry: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
    endpoints: [{ url: 'http://127.0.0.1:1', source: 'config' }],
    name: 'Anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    readOnly: false,
  },
  relayerPrivateKey: undefined,
  rpcTimeoutMs: 100,
  pollingIntervalMs: 1_000,
  logger,
})
const id = `0x${'ab'.repeat(32)}`
const sui = createSuiAdapter({
  chain: { chainId: 'sui:localnet', rpcUrl: 'http://127.0.0.1:1', packageId: id, hubId: id },
  relayerSecretKey: undefined,
  rpcTimeoutMs: 100,
  logger,
})
// A runtime that says nothing of why (EVM's adapter, less its words): the shared words.
const silent: ChainAdapter = { ...evm, chainId: 'eip155:1', accountModeUnavailable: undefined }

// An intent of each runtime's form, asking for account mode.
const intent = { data: '0x', nonce: '1', policyId: `0x${'11'.repeat(32)}`, mode: 'account' }
const evmBody = {
  ...intent,
  sender: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  target: '0xCE3478A9E0167a6Bc5716DC39DbbbfAc38F27623',
  value: '0',
  validAfter: '0',
  validBefore: '0',
}
const suiBody = { ...intent, sender: `0x${'33'.repeat(32)}`, target: `0x${'22'.repeat(32)}`, value: '1000' }

const cases: Array<[string, ChainAdapter, Record<string, string>, string]> = [
  [
    'EVM: no account delegate configured (ACCOUNT_DELEGATE_ADDRESSES)',
    evm,
    evmBody,
    'chain eip155:31337 has no account delegate configured here (ACCOUNT_DELEGATE_ADDRESSES): only executor mode',
  ],
  [
    'Sui: no relayer key to sponsor it (SUI_RELAYER_PRIVATE_KEY)',
    sui,
    suiBody,
    'chain sui:localnet has no relayer key here (SUI_RELAYER_PRIVATE_KEY): account mode is sponsored by the relayer',
  ],
  [
    'a runtime that gives no words: the shared ones',
    silent,
    evmBody,
    'chain eip155:1 has no account delegate configured here (ACCOUNT_DELEGATE_ADDRESSES): only executor mode',
  ],
]

describe('a chain without account mode here refuses `mode: "account"` in its runtime\'s words', () => {
  const app = testApp(
    {},
    { registry: createChainRegistry({ adapters: [evm, sui, silent], defaultChainId: undefined }) },
  )
  after(async () => {
    await app.close()
    await Promise.all([evm.close(), sui.close()])
  })

  for (const [name, adapter, body, message] of cases)
    it(name, async () => {
      assert.equal(adapter.accountMode, false)
      const res = await app.inject({
        method: 'POST',
        url: '/intents/validate',
        headers: { 'x-chain-id': adapter.chainId },
        payload: body,
      })
      assert.equal(res.statusCode, 400, res.body)
      assert.deepEqual((res.json() as { errors: unknown }).errors, [{ field: 'mode', message }])
    })
})
