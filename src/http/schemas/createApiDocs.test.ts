// The documentation's runtime terms come from the runtime modules: every runtime's example chain
// id is named, the worked examples are those of the first runtime that has them, and a list with
// none gives a document without worked examples rather than another runtime's.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { runtimes } from '../../runtimes.ts'
import { createApiDocs, type DocumentedRuntime } from './createApiDocs.ts'

const devnet = {
  chainId: 'tst:local',
  intent: { sender: 'alice' },
  signedIntent: { sender: 'alice', signature: 'sig' },
  signedIntentHash: '0xsigned',
  intentHash: '0xanswer',
  transactionHash: 'tx1',
  signing: { scheme: 'test' },
  fundingExtensions: { topUp: { account: 'alice' } },
  price: { scheme: 'exact', amount: '1', asset: 'coin', payTo: 'bob', maxTimeoutSeconds: 30 },
}
// The documentation reads only a runtime's chain type, name and examples.
const plain: DocumentedRuntime = { chainType: 'sui', name: 'Plain', examples: { chainId: 'plain:main' } }
const worked: DocumentedRuntime = { chainType: 'solana', name: 'Worked', examples: { chainId: 'tst:public', devnet } }

describe('createApiDocs', () => {
  it("names every runtime's example chain id, and shows the worked examples of the first runtime that has them", () => {
    const docs = createApiDocs([plain, worked])
    assert.equal(
      docs.chainIdHeader.description,
      'the chain: a CAIP-2 id (plain:main, tst:public). Absent: DEFAULT_CHAIN_ID, else the only configured chain. Not served: 421 (0xA2).',
    )
    assert.deepEqual(docs.chainIdHeader.examples, ['tst:local'])
    assert.equal(
      docs.chainIdAnswerHeader.description,
      'the CAIP-2 id of the chain (tst:public), or the requested value when no chain could be chosen',
    )
    assert.equal(docs.responseHeaders['X-Chain-Id'], docs.chainIdAnswerHeader)
    assert.deepEqual(docs.requestExamples, {
      bodies: {
        validateIntent: devnet.intent,
        executeIntent: devnet.signedIntent,
        mcp: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      },
      params: { intentHash: '0xsigned', chainId: 'tst:local' },
    })
    const answers = docs.responseExamples.executeIntent!
    assert.deepEqual(docs.intentExamples.answer, {
      status: '0x01',
      erc1066Status: '0x01',
      statusName: 'SUCCESS',
      description: 'Intent validated',
      intentHash: '0xanswer',
      chainType: 'solana',
      chainId: 'tst:local',
    })
    assert.equal((answers[202]![0] as { transactionHash: string }).transactionHash, 'tx1')
    const [unsigned] = answers[401] as Array<{ signing: unknown }>
    assert.deepEqual(unsigned!.signing, { scheme: 'test' })
    const [short, price] = answers[402] as Array<{ paymentRequired: Record<string, unknown> }>
    assert.deepEqual(short!.paymentRequired.extensions, { topUp: { account: 'alice' } })
    assert.deepEqual(price!.paymentRequired.accepts, [
      { scheme: 'exact', network: 'tst:public', amount: '1', asset: 'coin', payTo: 'bob', maxTimeoutSeconds: 30 },
    ])
  })

  it('shows no worked examples when no runtime has them', () => {
    const docs = createApiDocs([plain])
    assert.equal(docs.chainIdHeader.examples, undefined)
    assert.deepEqual(docs.responseExamples, { validateIntent: {}, executeIntent: {} })
    assert.deepEqual(docs.requestExamples, {
      bodies: { mcp: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
      params: {},
    })
    assert.deepEqual(docs.intentExamples, { validate: undefined, execute: undefined, answer: undefined })
  })

  it("describes X-Chain-Id with the gateway's runtimes as the document always has: the decimal form is the EVM's", () => {
    const docs = createApiDocs(runtimes)
    assert.equal(
      docs.chainIdHeader.description,
      'the chain: an EVM chain id in decimal (84532) or a CAIP-2 id (eip155:84532, solana:<genesis-hash-prefix>, sui:mainnet). Absent: DEFAULT_CHAIN_ID, else the only configured chain. Not served: 421 (0xA2).',
    )
    assert.deepEqual(docs.chainIdHeader.examples, ['eip155:31337'])
  })
})
