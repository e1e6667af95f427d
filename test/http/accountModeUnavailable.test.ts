// A chain with no account mode here answers a request for it with a 400 on `mode` in its runtime's
// words (ChainAdapter.accountModeUnavailable): EVM, no account delegate configured; Sui, no relayer
// key to sponsor it; a runtime that says nothing, the shared words (the EVM ones). Nothing is read
// from a node: the refusal comes while the request is read.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
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

const evmBody = {
  sender: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  target: '0xCE3478A9E0167a6Bc5716DC39DbbbfAc38F27623',
  data: '0x',
  value: '0',
  nonce: '1',
  validAfter: '0',
  validBefore: '0',
  policyId: `0x${'11'.repeat(32)}`,
  mode: 'account',
}
const suiBody = {
  sender: `0x${'33'.repeat(32)}`,
  target: `0x${'22'.repeat(32)}`,
  data: '0x',
  value: '1000',
  nonce: '1',
  policyId: `0x${'44'.repeat(32)}`,
  mode: 'account',
}

describe('a chain without account mode here refuses `mode: "account"` in its runtime\'s words', () => {
  let app: FastifyInstance
  after(async () => {
    await app?.close()
    await Promise.all([evm.close(), sui.close()])
  })

  const refusal = async (chainId: string, body: Record<string, string>) => {
    app ??= testApp({}, { registry: createChainRegistry({ adapters: [evm, sui, silent], defaultChainId: undefined }) })
    const res = await app.inject({
      method: 'POST',
      url: '/intents/validate',
      headers: { 'x-chain-id': chainId },
      payload: body,
    })
    assert.equal(res.statusCode, 400, res.body)
    return (res.json() as { errors: { field: string; message: string }[] }).errors
  }

  it('EVM: no account delegate configured (ACCOUNT_DELEGATE_ADDRESSES)', async () => {
    assert.equal(evm.accountMode, false)
    assert.deepEqual(await refusal('eip155:31337', evmBody), [
      {
        field: 'mode',
        message:
          'chain eip155:31337 has no account delegate configured here (ACCOUNT_DELEGATE_ADDRESSES): only executor mode',
      },
    ])
  })

  it('Sui: no relayer key to sponsor it (SUI_RELAYER_PRIVATE_KEY)', async () => {
    assert.equal(sui.accountMode, false)
    assert.deepEqual(await refusal('sui:localnet', suiBody), [
      {
        field: 'mode',
        message:
          'chain sui:localnet has no relayer key here (SUI_RELAYER_PRIVATE_KEY): account mode is sponsored by the relayer',
      },
    ])
  })

  it('a runtime that gives no words: the shared ones', async () => {
    assert.deepEqual(await refusal('eip155:1', evmBody), [
      {
        field: 'mode',
        message:
          'chain eip155:1 has no account delegate configured here (ACCOUNT_DELEGATE_ADDRESSES): only executor mode',
      },
    ])
  })
})
