// Issue 40, item 1b: no Solana RPC simulates two transactions in order, so a paid Solana execute
// is simulated again once its settlement is confirmed. An execution refused there sends nothing;
// the settled payment stays the intent's credit, the answer carries the refusal's code and
// `payment.status: "credited"`, and a repeat of the intent runs on the credit without paying again.
// Against the LiteSVM devnet, with the whole gateway and the unmodified x402 client; the state the
// settlement leaves is made by a JSON-RPC proxy that empties the sender's vault as soon as the
// facilitator's settlement is sent (as a settlement an intent depends on would).
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import {
  type Address,
  createKeyPairSignerFromPrivateKeyBytes,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
} from '@solana/kit'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { type SolanaDevnet, startSolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { accountSizes } from '../../src/chains/solana/intentGatewayProgram.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { signedSolanaIntent, solanaPayingClient, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import { post, request, type TestGateway } from '../support/testGateway.ts'

/** Forwards every call to the devnet; after forwarding a transaction whose fee payer is `settler`, runs `afterSettlement` once. */
async function startSettlementProxy(target: string, settler: Address) {
  let afterSettlement: (() => Promise<void>) | undefined
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', async () => {
      const answer = await (
        await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      ).text()
      const call = JSON.parse(body) as { method?: string; params?: unknown[] }
      if (call.method === 'sendTransaction' && afterSettlement) {
        const tx = getTransactionDecoder().decode(getBase64Encoder().encode(call.params![0] as string))
        const feePayer = getCompiledTransactionMessageDecoder().decode(tx.messageBytes).staticAccounts[0]
        if (feePayer === settler) {
          const hook = afterSettlement
          afterSettlement = undefined
          await hook()
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    onSettlement(hook: () => Promise<void>) {
      afterSettlement = hook
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('a paid Solana execute refused after its settlement (issue 40, item 1b)', () => {
  let devnet: SolanaDevnet
  let gateway: TestGateway
  let proxy: Awaited<ReturnType<typeof startSettlementProxy>>
  const lamportsOf = async (address: Address) => (await devnet.rpc.getBalance(address).send()).value

  before(async () => {
    devnet = await startSolanaDevnet()
    proxy = await startSettlementProxy(devnet.rpcUrl, devnet.payment.facilitator)
    gateway = await startSolanaPaidGateway(devnet, { rpcUrl: proxy.url })
  })
  after(async () => {
    await gateway?.close()
    await proxy?.close()
    await devnet?.stop()
  })

  it('simulates again once the settlement is confirmed: refused with its code and payment.status "credited", nothing sent; a repeat runs on the credit (was: sent after the settlement)', async () => {
    const { body, intentHash } = signedSolanaIntent(devnet)
    const execute = (headers: Record<string, string> = {}) =>
      post(gateway.baseUrl, '/intents/execute', body, { 'x-chain-id': devnet.chainId, ...headers })
    const unpaid = await execute()
    assert.equal(unpaid.status, 402, unpaid.text)
    const { client } = await solanaPayingClient(devnet)
    const payload = await client.createPaymentPayload(
      decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!),
    )

    // The sender's vault, emptied down to its rent the moment the settlement is sent.
    const vault = await devnet.program.vaultAddress(devnet.demo.sender as Address)
    const account = (await devnet.rpc.getAccountInfo(vault, { encoding: 'base64' }).send()).value!
    const asAccount = (lamports: bigint) => [
      vault,
      { lamports: lamports.toString(), data: account.data[0], owner: account.owner, executable: account.executable },
    ]
    const rent = await devnet.rpc.getMinimumBalanceForRentExemption(BigInt(accountSizes.vault)).send()
    proxy.onSettlement(() => devnet.control('litesvm_setAccount', asAccount(rent)).then(() => undefined))

    const relayer = (await createKeyPairSignerFromPrivateKeyBytes(devnet.relayerSecretKey)).address
    const before = {
      payer: await devnet.payment.balanceOf(devnet.payment.payer),
      relayer: await lamportsOf(relayer),
      recipient: await lamportsOf(devnet.demo.recipient),
    }
    const res = await execute({ 'payment-signature': encodePaymentSignatureHeader(payload) })
    assert.equal(res.body.erc1066Status, '0x54', res.text)
    assertCommonHeaders(res, { status: '0x54', chainId: devnet.chainId, chainType: 'solana', intentHash })
    assert.equal(res.body.payment?.status, 'credited', res.text)
    assert.match(res.body.payment.detail, /stays this intent's credit/)
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    assert.equal(settlement.success, true, 'the payment was settled')
    assert.equal(
      await devnet.payment.balanceOf(devnet.payment.payer),
      before.payer - devnet.payment.amount,
      'charged once',
    )
    assert.equal(await lamportsOf(relayer), before.relayer, 'the relayer sent and paid nothing')
    assert.equal(await lamportsOf(devnet.demo.recipient), before.recipient, 'the intent did not run')
    const state = await request(gateway.baseUrl, `/intents/${intentHash}`, {
      headers: { 'x-chain-id': devnet.chainId },
    })
    assert.deepEqual(
      state.body.payments.map((p: { state: string }) => p.state),
      ['settled'],
      "the payment is the intent's credit",
    )

    // The vault refilled: the same intent, without paying, runs on the credit.
    await devnet.control('litesvm_setAccount', asAccount(BigInt(account.lamports)))
    const again = await execute()
    assert.equal(again.status, 200, again.text)
    assertCommonHeaders(again, { status: '0x11', chainId: devnet.chainId, chainType: 'solana', intentHash })
    assert.equal(
      await devnet.payment.balanceOf(devnet.payment.payer),
      before.payer - devnet.payment.amount,
      'not charged again',
    )
    assert.equal(await lamportsOf(devnet.demo.recipient), before.recipient + 1_000n)
  })
})
