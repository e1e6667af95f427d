// The client's account-mode signing on Solana (agent as signer, relayer as fee payer) against the
// gateway on the LiteSVM devnet: the demo agent signs the message of the 401 0xE5 after reading it,
// and the transfer of its own DemoDollar runs; a message with anything more in it is refused
// before it is signed.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { getCompiledTransactionMessageDecoder, getCompiledTransactionMessageEncoder } from '@solana/kit'
import { agentTransferBody } from '../../src/chains/solana/devnet/agentTransferBody.ts'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import {
  type SolanaGateway,
  solanaAdapterFor,
  startSolanaDevnet,
  startSolanaGateway,
} from '../../test/support/solanaGateway.ts'
import { solanaPayingClient, startSolanaPaidGateway } from '../../test/support/solanaPayments.ts'
import { post } from '../../test/support/testGateway.ts'
import { createGatewayClient, createSolanaSigner, GatewayClientError } from '../src/index.ts'
import { signAccountMessage } from '../src/solana/signAccountMessage.ts'

describe('client: Solana account-mode signing', () => {
  let devnet: SolanaDevnet
  let gateway: SolanaGateway

  before(async () => {
    devnet = await startSolanaDevnet()
    gateway = await startSolanaGateway([solanaAdapterFor(devnet, { relayer: true })])
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  /** The demo agent's transfer of 1 DemoDollar from its own token account (the mode is added where it is sent). */
  const transfer = (nonce: number) => {
    const { mode: _mode, ...intent } = agentTransferBody(devnet.demo.agent, { nonce })
    return intent
  }
  const execute = (body: unknown) => post(gateway.baseUrl, '/intents/execute', body, { 'x-chain-id': devnet.chainId })

  it('signs the issued message after checking it, and the gateway executes the transfer', async () => {
    const intent = transfer(100)
    const asked = await execute({ ...intent, mode: 'account' })
    assert.equal(asked.status, 401, asked.text)
    const signer = createSolanaSigner(devnet.demo.agent.secretKey)
    const signature = await signAccountMessage({
      message: asked.body.signing.message,
      intent,
      deployment: { programId: devnet.programId, config: devnet.config },
      signer,
    })
    const res = await execute({ ...intent, mode: 'account', signature })
    assert.equal(res.status, 200, res.text)
  })

  it("the typed client's execute does it in one call: asks, reads and signs the message, sends the signature", async () => {
    const client = createGatewayClient({
      url: gateway.baseUrl,
      account: createSolanaSigner(devnet.demo.agent.secretKey),
      mode: 'account',
    })
    const result = await client.execute(transfer(102), { chainId: devnet.chainId })
    assert.equal(result.httpStatus, 200, `${result.status} ${result.detail}`)
    assert.equal(result.status, '0x11')
    const replay = await client.execute(transfer(102), { chainId: devnet.chainId })
    assert.equal(replay.replayed, true, 'the same intent again is its outcome, not a second transfer')
  })

  it('refuses to sign a message with an instruction slipped in, another intent, the agent as fee payer, or another signer', async () => {
    const intent = transfer(101)
    const asked = await execute({ ...intent, mode: 'account' })
    assert.equal(asked.status, 401, asked.text)
    const deployment = { programId: devnet.programId, config: devnet.config }
    const signer = createSolanaSigner(devnet.demo.agent.secretKey)
    const issued = getCompiledTransactionMessageDecoder().decode(
      Buffer.from(asked.body.signing.message, 'base64'),
    ) as unknown as {
      staticAccounts: string[]
      instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[]
    }
    const reencode = (m: unknown) =>
      Buffer.from(getCompiledTransactionMessageEncoder().encode(m as never)).toString('base64')
    // A second copy of the execute (with the token program's index as its program), and an echo of the fee payer's key as program.
    const extra = reencode({
      ...issued,
      instructions: [
        ...issued.instructions,
        {
          programAddressIndex: issued.staticAccounts.indexOf(intent.target),
          accountIndices: [2, 3, 1],
          data: Uint8Array.of(3, 1, 0, 0, 0, 0, 0, 0, 0),
        },
      ],
    })
    const cases: Array<[string, Parameters<typeof signAccountMessage>[0]]> = [
      ['an instruction slipped in', { message: extra, intent, deployment, signer }],
      [
        'another intent',
        {
          message: asked.body.signing.message,
          intent: { ...intent, data: '0x0300e1f50500000000' },
          deployment,
          signer,
        },
      ],
      [
        'the agent as fee payer',
        {
          message: reencode({
            ...issued,
            staticAccounts: [issued.staticAccounts[1], issued.staticAccounts[0], ...issued.staticAccounts.slice(2)],
          }),
          intent,
          deployment,
          signer,
        },
      ],
      [
        'a signer that is not the sender',
        {
          message: asked.body.signing.message,
          intent,
          deployment,
          signer: createSolanaSigner(new Uint8Array(32).fill(9)),
        },
      ],
    ]
    for (const [what, args] of cases) {
      await assert.rejects(signAccountMessage(args), (err: unknown) => err instanceof GatewayClientError, what)
    }
    // Nothing signed: the intent is still unexecuted.
    const again = await execute({ ...intent, mode: 'account' })
    assert.equal(again.status, 401)
  })

  it('pays a priced gateway too: the price first (the x402 payer), then the message to sign, then the signature with a payment; the payer is charged once and the transfer runs once', async () => {
    const paid = await startSolanaPaidGateway(devnet)
    try {
      const { client: x402 } = await solanaPayingClient(devnet)
      const client = createGatewayClient({
        url: paid.baseUrl,
        account: createSolanaSigner(devnet.demo.agent.secretKey),
        mode: 'account',
        payment: { x402Client: x402 },
      })
      const payerBefore = await devnet.payment.balanceOf(devnet.payment.payer)
      const agentTokensBefore = await devnet.payment.balanceOf(devnet.demo.agent.address)
      const result = await client.execute(transfer(103), { chainId: devnet.chainId })
      assert.equal(result.httpStatus, 200, `${result.status} ${result.detail}`)
      assert.equal(result.status, '0x11')
      assert.equal(result.payment?.success, true)
      assert.equal(
        await devnet.payment.balanceOf(devnet.payment.payer),
        payerBefore - devnet.payment.amount,
        'charged once, though the client made two payments (the first only verified, never settled)',
      )
      assert.equal(
        await devnet.payment.balanceOf(devnet.demo.agent.address),
        agentTokensBefore - 1_000_000n,
        "the agent's own DemoDollar moved once",
      )
    } finally {
      await paid.close()
    }
  })
})
