// A Solana node that keeps no transaction history (started without it, or a pruned RPC) answers
// getTransaction with -32011 "Transaction history is not available from this node". A settlement
// counts as landed once the node hands it back (settlementInLedger.ts); on such a node only its
// status can be asked, and the gateway believes the status, as it did before that check. This
// runs the whole paid path there: the agent pays once and the intent runs once. The gateway on
// the LiteSVM devnet, behind a front that passes every call on but getTransaction.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { startSolanaDevnet } from '../support/solanaGateway.ts'
import { paidSolanaIntent, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import { startHttpServer, type TestServer } from '../support/startHttpServer.ts'
import type { TestGateway } from '../support/testGateway.ts'

describe('x402 on Solana through a node without transaction history', () => {
  let devnet: SolanaDevnet
  let front: TestServer
  let gateway: TestGateway
  const refused: string[] = []

  before(async () => {
    devnet = await startSolanaDevnet()
    front = await startHttpServer()
    front.handle = (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString()
        const call = JSON.parse(body) as { id: unknown; method: string }
        if (call.method === 'getTransaction') {
          refused.push(call.method)
          const error = { code: -32011, message: 'Transaction history is not available from this node' }
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error }))
          return
        }
        const answer = await fetch(devnet.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
        res.writeHead(answer.status, { 'content-type': 'application/json' })
        res.end(await answer.text())
      })
    }
    gateway = await startSolanaPaidGateway(devnet, { rpcUrl: front.url, receiptTimeoutMs: 10_000 })
  })
  after(async () => {
    await gateway?.close()
    await front?.close()
    await devnet?.stop()
  })

  it('believes the confirmed status there: the agent pays once and the intent runs once', async () => {
    const { price, payerBalance, recipient, execute } = await paidSolanaIntent(devnet, gateway.baseUrl)
    const [payerBefore, recipientBefore] = [await payerBalance(), await recipient()]
    const res = await execute()
    const text = await res.text()
    assert.equal(res.status, 200, text)
    assert.equal(res.headers.get('x-erc1066-status'), '0x11', text)
    assert.ok(refused.length > 0, 'the gateway asked for the settlement and was told the node keeps no history')
    assert.equal((await recipient()) - recipientBefore, 1_000n, 'the intent ran once')
    assert.equal(payerBefore - (await payerBalance()), price, 'the payer paid the price once')
  })
})
