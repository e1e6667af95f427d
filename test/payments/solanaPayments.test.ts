// x402 on Solana through the whole gateway: execute on the LiteSVM devnet priced in DemoDollar (an
// SPL mint), paid by the unmodified @x402/fetch with @x402/svm's exact scheme (a partially signed
// TransferChecked with the facilitator as fee payer), verified, co-signed and settled by the
// in-process facilitator. The payer pays exactly the price, once; the intent runs once.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import { x402Client } from '@x402/fetch'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import { solanaDemoCommands } from '../../src/chains/solana/devnet/solanaDemoCommands.ts'
import { type SolanaDevnet, startSolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { solanaClusterNetworks } from '../../src/chains/solana/solanaClusters.ts'
import { signedSolanaIntent, solanaPayingClient, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import { post, request, type TestGateway } from '../support/testGateway.ts'

describe('x402 payments for Solana executes, end to end', () => {
  let devnet: SolanaDevnet
  let gateway: TestGateway
  const price = 10_000n
  const balances = async () => ({
    payer: await devnet.payment.balanceOf(devnet.payment.payer),
    treasury: await devnet.payment.balanceOf(devnet.payment.payTo),
  })
  const execute = (body: unknown, headers: Record<string, string> = {}) =>
    post(gateway.baseUrl, '/intents/execute', body, { 'x-chain-id': devnet.chainId, ...headers })
  /** How many times the intent's transaction ran on the chain: the recipient got 1000 lamports per run. */
  const recipientLamports = async () => (await devnet.rpc.getBalance(devnet.demo.recipient).send()).value

  before(async () => {
    devnet = await startSolanaDevnet()
    gateway = await startSolanaPaidGateway(devnet)
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  /** The 402's offer, and a payment for it made by the unmodified client. */
  async function paymentFor(
    body: unknown,
  ): Promise<{ required: PaymentRequired; payload: PaymentPayload; header: string }> {
    const unpaid = await execute(body)
    assert.equal(unpaid.status, 402, unpaid.text)
    const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!)
    const { client } = await solanaPayingClient(devnet)
    const payload = await client.createPaymentPayload(required)
    return { required, payload, header: encodePaymentSignatureHeader(payload) }
  }

  it("offers execute on Solana devnet's cluster id in DemoDollar, with the facilitator as fee payer; nothing runs unpaid", async () => {
    const { body, intentHash } = signedSolanaIntent(devnet)
    const res = await execute(body)
    assert.equal(res.status, 402)
    assert.equal(res.headers.get('x-erc1066-status'), '0x55')
    const offer = decodePaymentRequiredHeader(res.headers.get('payment-required')!)
    assert.deepEqual(res.body.paymentRequired, offer)
    assert.equal(offer.accepts.length, 1)
    assert.deepEqual(offer.accepts[0], {
      scheme: 'exact',
      network: solanaClusterNetworks.devnet,
      asset: devnet.payment.mint,
      amount: price.toString(),
      payTo: devnet.payment.payTo,
      maxTimeoutSeconds: 300,
      extra: { feePayer: devnet.payment.facilitator },
    })
    assert.equal(
      (await request(gateway.baseUrl, `/intents/${intentHash}`, { headers: { 'x-chain-id': devnet.chainId } })).status,
      404,
    )
  })

  it('runs a paid execute once: the unmodified @x402/fetch pays exactly the price to pay-to, PAYMENT-RESPONSE names the settlement, GET /intents shows it consumed', async () => {
    const before = await balances()
    const lamportsBefore = await recipientLamports()
    const { body, intentHash } = signedSolanaIntent(devnet)
    const { fetch: pay } = await solanaPayingClient(devnet)
    const res = await pay(`${gateway.baseUrl}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-chain-id': devnet.chainId },
      body: JSON.stringify(body),
    })
    const answer = (await res.json()) as Record<string, any>
    assert.equal(res.status, 200, JSON.stringify(answer))
    assert.equal(answer.status, '0x11')
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    assert.equal(settlement.success, true)
    assert.equal(settlement.network, solanaClusterNetworks.devnet)
    assert.match(settlement.transaction, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
    assert.equal(settlement.payer, devnet.payment.payer)
    const after = await balances()
    assert.equal(after.payer, before.payer - price, 'the payer paid exactly the price')
    assert.equal(after.treasury, before.treasury + price)
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'the intent ran once')
    const state = await request(gateway.baseUrl, `/intents/${intentHash}`, {
      headers: { 'x-chain-id': devnet.chainId },
    })
    assert.deepEqual(
      state.body.payments.map((p: Record<string, unknown>) => ({
        state: p.state,
        amount: p.amount,
        transaction: p.transaction,
        payer: p.payer,
      })),
      [
        {
          state: 'consumed',
          amount: price.toString(),
          transaction: settlement.transaction,
          payer: devnet.payment.payer,
        },
      ],
    )
  })

  it('takes one payment for one request: the same payment again is a replay (nothing charged, nothing sent), and for another intent it is refused (duplicate_settlement)', async () => {
    const first = signedSolanaIntent(devnet)
    const { header } = await paymentFor(first.body)
    const before = await balances()
    const lamportsBefore = await recipientLamports()
    const paid = await execute(first.body, { 'payment-signature': header })
    assert.equal(paid.status, 200, paid.text)
    const again = await execute(first.body, { 'payment-signature': header })
    assert.equal(again.status, 200)
    assert.equal(again.body.replayed, true)
    const other = signedSolanaIntent(devnet)
    const reused = await execute(other.body, { 'payment-signature': header })
    assert.equal(reused.status, 402, reused.text)
    assert.equal(reused.body.paymentRequired.error, 'duplicate_settlement')
    assert.equal((await balances()).payer, before.payer - price, 'charged once')
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'one intent ran, once')
  })

  it('lets one of many concurrent copies of a payment through: the ledger, not a per-process cache, refuses the others', async () => {
    const { body } = signedSolanaIntent(devnet)
    const other = signedSolanaIntent(devnet)
    const { header } = await paymentFor(body)
    const before = await balances()
    const lamportsBefore = await recipientLamports()
    // The same transaction for two intents at once: one reservation wins.
    const answers = await Promise.all([
      execute(body, { 'payment-signature': header }),
      execute(other.body, { 'payment-signature': header }),
      execute(other.body, { 'payment-signature': header }),
    ])
    const statuses = answers.map((a) => a.status).sort()
    assert.equal(
      statuses.filter((s) => s === 200).length,
      1,
      JSON.stringify(answers.map((a) => [a.status, a.body.paymentRequired?.error])),
    )
    assert.equal((await balances()).payer, before.payer - price, 'charged once')
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'one execution')
  })

  it("refuses a payment for other terms, a transfer of another amount, and a stranger's transaction using the facilitator as fee payer: nothing charged, nothing sent", async () => {
    const { body } = signedSolanaIntent(devnet)
    const { payload, required } = await paymentFor(body)
    const before = await balances()
    const lamportsBefore = await recipientLamports()
    const facilitatorLamports = async () => (await devnet.rpc.getBalance(devnet.payment.facilitator).send()).value
    const facilitatorBefore = await facilitatorLamports()
    // Other terms: a different amount in `accepted`.
    const otherTerms = { ...payload, accepted: { ...payload.accepted, amount: '1' } }
    const refused1 = await execute(body, { 'payment-signature': encodePaymentSignatureHeader(otherTerms) })
    assert.equal(refused1.status, 402)
    assert.equal(refused1.body.paymentRequired.error, 'No matching payment requirements')
    // A transfer of less than the price, signed by the payer, under the offer's terms.
    const { client } = await solanaPayingClient(devnet)
    const cheap = await client.createPaymentPayload({
      ...required,
      accepts: [{ ...required.accepts[0]!, amount: '1' }],
    })
    const refused2 = await execute(body, {
      'payment-signature': encodePaymentSignatureHeader({ ...cheap, accepted: required.accepts[0]! }),
    })
    assert.equal(refused2.status, 402)
    assert.equal(refused2.body.paymentRequired.error, 'invalid_exact_svm_payload_amount_mismatch')
    // Garbage where the transaction goes.
    const refused3 = await execute(body, {
      'payment-signature': encodePaymentSignatureHeader({ ...payload, payload: { transaction: 'AAAA' } }),
    })
    assert.equal(refused3.status, 402)
    assert.match(refused3.body.paymentRequired.error, /^invalid_exact_svm_payload_transaction/)
    // A stranger's transfer whose authority is the facilitator itself: its co-signature as fee payer would move its own funds.
    const facilitatorAsPayer = {
      address: devnet.payment.facilitator,
      signTransactions: async (txs: readonly unknown[]) => txs.map(() => ({})),
    }
    const stranger = new x402Client()
    stranger.register(
      required.accepts[0]!.network,
      new ExactSvmScheme(facilitatorAsPayer as never, { rpcUrl: devnet.rpcUrl }),
    )
    stranger.setSpendControls(false)
    const theft = await stranger.createPaymentPayload(required)
    const refused4 = await execute(body, { 'payment-signature': encodePaymentSignatureHeader(theft) })
    assert.equal(refused4.status, 402, refused4.text)
    assert.equal(
      refused4.body.paymentRequired.error,
      'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
    )
    assert.deepEqual(await balances(), before)
    assert.equal(await recipientLamports(), lamportsBefore)
    assert.equal(await facilitatorLamports(), facilitatorBefore, 'the facilitator paid no fee for any of them')
  })

  it('runs the printed paid Solana execute as printed: the unmodified @x402/fetch with @x402/svm pays once and the intent runs', async () => {
    const printed = solanaDemoCommands({ baseUrl: gateway.baseUrl, devnet })
    const command = /^npx tsx scripts\/payForSolanaExecute\.ts (\S+) (\S+) (\S+) (\S+) (\S+) '(.*)'$/m.exec(printed)
    assert.ok(command, printed)
    const before = await balances()
    const lamportsBefore = await recipientLamports()
    // Not execFileSync: the gateway answering it runs in this process.
    const { stdout: out } = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      'scripts/payForSolanaExecute.ts',
      ...command.slice(1, 7),
    ])
    assert.match(out, /^HTTP 200 0x11$/m)
    assert.match(out, /"success": true/)
    assert.equal((await balances()).payer, before.payer - price)
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n)
  })

  it('takes the same price over MCP: PaymentRequired in the tool result (with the tool\'s bazaar declaration), the payment in _meta["x402/payment"]', async () => {
    const mcp = new Client({ name: 'solana-paid-mcp-test', version: '1.0.0' })
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${gateway.baseUrl}/mcp`)))
    try {
      const { body } = signedSolanaIntent(devnet)
      const unpaid = (await mcp.callTool({
        name: 'execute_intent',
        arguments: { intent: body, chainId: devnet.chainId },
      })) as { isError?: boolean; structuredContent?: any }
      assert.equal(unpaid.structuredContent.httpStatus, 402)
      assert.equal(unpaid.structuredContent.accepts[0].network, solanaClusterNetworks.devnet)
      assert.equal(unpaid.structuredContent.extensions.bazaar.info.input.toolName, 'execute_intent')
      const before = await balances()
      const lamportsBefore = await recipientLamports()
      const { client } = await solanaPayingClient(devnet)
      const payment = await client.createPaymentPayload(unpaid.structuredContent)
      const paid = (await mcp.callTool({
        name: 'execute_intent',
        arguments: { intent: body, chainId: devnet.chainId },
        _meta: { 'x402/payment': payment },
      })) as {
        isError?: boolean
        structuredContent?: any
        _meta?: any
      }
      assert.ok(!paid.isError, JSON.stringify(paid.structuredContent))
      assert.equal(paid.structuredContent.erc1066Status, '0x11')
      assert.equal(paid._meta['x402/payment-response'].success, true)
      assert.equal((await balances()).payer, before.payer - price)
      assert.equal(await recipientLamports(), lamportsBefore + 1_000n)
    } finally {
      await mcp.close()
    }
  })
})
