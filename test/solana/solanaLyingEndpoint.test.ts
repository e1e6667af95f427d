// An endpoint that says "confirmed" for a transaction the node does not have yet (the fault
// campaign's `solana` phase found executes answered 200 0x11 that never ran behind one): the
// gateway takes a success only once the intent's nonce record is on chain (landedStatus.ts), so
// its 200 comes when the intent has run. The whole gateway on the LiteSVM devnet, through the
// campaign's confirmation liar (every send answered at once, reaching the node 3 s later).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type ConfirmationLiar, startConfirmationLiar } from '../../bench/chaos/confirmationLiar.ts'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { startSolanaDevnet } from '../support/solanaGateway.ts'
import { signedSolanaIntent, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import { post, type TestGateway } from '../support/testGateway.ts'

describe('Solana behind an endpoint that calls transactions confirmed before the node has them', () => {
  let devnet: SolanaDevnet
  let liar: ConfirmationLiar
  let gateway: TestGateway

  before(async () => {
    devnet = await startSolanaDevnet()
    liar = await startConfirmationLiar({ target: devnet.rpcUrl, random: () => 0, delayMs: 3_000 })
    gateway = await startSolanaPaidGateway(devnet, {
      rpcUrl: liar.url,
      payments: { ...devnet.payments, prices: {} },
      receiptTimeoutMs: 20_000,
    })
  })
  after(async () => {
    await gateway?.close()
    await liar?.close()
    await devnet?.stop()
  })

  it('answers 200 0x11 only once the intent ran on chain (was: at the lie, before the node had the transaction)', async () => {
    const recipient = async () => (await devnet.rpc.getBalance(devnet.demo.recipient).send()).value
    const before = await recipient()
    liar.early = 1
    const { body } = signedSolanaIntent(devnet)
    const res = await post(gateway.baseUrl, '/intents/execute', body, { 'x-chain-id': devnet.chainId })
    const ranWhenAnswered = (await recipient()) - before
    liar.early = 0
    assert.equal(res.status, 200, res.text)
    assert.equal(res.headers.get('x-erc1066-status'), '0x11')
    assert.ok(liar.lies.earlyConfirmed > 0, 'the endpoint lied')
    assert.equal(ranWhenAnswered, 1_000n, 'the intent had run (its 1000 lamports arrived) when the gateway said so')
    assert.ok(
      gateway.logs.some((l) => l.includes('not believed yet')),
      'the gateway said it did not believe the endpoint',
    )
  })
})
