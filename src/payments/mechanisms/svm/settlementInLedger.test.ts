import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { getSolanaErrorFromJsonRpcError } from '@solana/kit'
import { settlementInLedger } from './settlementInLedger.ts'
import { solanaErrorText } from './solanaErrorText.ts'
import { toSolanaRpc } from './toSolanaRpc.ts'

const signature = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'

/** An RPC whose getTransaction answers as `answer` says; its errors thrown as the chain's lent endpoints throw a node's error. */
const rpcAnswering = (answer: () => unknown) =>
  toSolanaRpc({
    request: async ({ method }) => {
      assert.equal(method, 'getTransaction')
      return answer()
    },
  })
const nodeError = (code: number, message: string) => () => {
  throw getSolanaErrorFromJsonRpcError({ code, message })
}

describe('settlementInLedger', () => {
  it('is found with its outcome and fee when the node hands the transaction back', async () => {
    const meta = { err: null, fee: 5000, preBalances: [], postBalances: [] }
    assert.deepEqual(
      await settlementInLedger(
        rpcAnswering(() => ({ slot: 9, meta })),
        signature,
      ),
      {
        found: true,
        err: null,
        fee: 5000n,
      },
    )
    const failed = { ...meta, err: { InstructionError: [0, { Custom: 1 }] } }
    const answer = await settlementInLedger(
      rpcAnswering(() => ({ slot: 9, meta: failed })),
      signature,
    )
    // kit hands the node's numbers back as bigints: the reason's text says them all the same.
    assert.deepEqual(answer, { found: true, err: { InstructionError: [0n, { Custom: 1n }] }, fee: 5000n })
    assert.equal(solanaErrorText(answer.found === true && answer.err), '{"InstructionError":["0",{"Custom":"1"}]}')
  })

  it('is not found while the node does not hold it, whatever a status said', async () => {
    assert.deepEqual(
      await settlementInLedger(
        rpcAnswering(() => null),
        signature,
      ),
      { found: false },
    )
  })

  it('says the node keeps no history for "method not found" and -32011, so the status decides there', async () => {
    for (const [code, message] of [
      [-32601, 'Method not found'],
      [-32011, 'Transaction history is not available from this node'],
    ] as const)
      assert.deepEqual(await settlementInLedger(rpcAnswering(nodeError(code, message)), signature), {
        found: 'no history',
      })
  })

  it("throws any other error of the node's: not taken for a lack of history", async () => {
    await assert.rejects(settlementInLedger(rpcAnswering(nodeError(-32005, 'Node is unhealthy')), signature))
    await assert.rejects(
      settlementInLedger(
        rpcAnswering(() => {
          throw new Error('fetch failed')
        }),
        signature,
      ),
      /fetch failed/,
    )
  })
})
