// An endpoint that calls an x402 settlement confirmed before the node has it, and the node then
// refuses it (its blockhash expired meanwhile): the fault campaign's solanapaid phase found a payer
// charged for 17 of 18 intents that ran. Taken at the status's word, the gateway ran the intent
// and the relayer paid for an execution nobody paid for. A settlement now counts only once the
// node hands the transaction back (settlementInLedger.ts): the intent waits (202 0xF3), the
// reservation is released when the settlement can no longer land, and the agent's retry pays and
// runs it, once. The whole gateway on the LiteSVM devnet, through the campaign's confirmation liar.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type ConfirmationLiar, startConfirmationLiar } from '../../bench/chaos/confirmationLiar.ts'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { eventually } from '../support/eventually.ts'
import { startSolanaDevnet } from '../support/solanaGateway.ts'
import { paidSolanaIntent, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import type { TestGateway } from '../support/testGateway.ts'

describe('x402 on Solana behind an endpoint that calls a settlement confirmed before the node has it', () => {
  let devnet: SolanaDevnet
  let liar: ConfirmationLiar
  let gateway: TestGateway

  before(async () => {
    devnet = await startSolanaDevnet()
    liar = await startConfirmationLiar({ target: devnet.rpcUrl, random: () => 0, delayMs: 2_000 })
    gateway = await startSolanaPaidGateway(devnet, { rpcUrl: liar.url, receiptTimeoutMs: 4_000 })
  })
  after(async () => {
    await gateway?.close()
    await liar?.close()
    await devnet?.stop()
  })

  it('runs the intent only on a settlement the node holds: none for the refused one, once for the paid retry (was: ran unpaid)', async () => {
    const { price, payerBalance, recipient, execute } = await paidSolanaIntent(devnet, gateway.baseUrl)
    const [payerBefore, recipientBefore] = [await payerBalance(), await recipient()]

    // The settlement is the gateway's first send: answered at once, called confirmed, and sent on
    // to the node only after the devnet's blockhash (the one the payer's transaction names) expired.
    liar.early = 1
    const first = execute()
    await eventually('the settlement answered before the node had it', 10_000, async () =>
      liar.lies.earlyConfirmed > 0 ? true : undefined,
    )
    liar.early = 0
    await devnet.control('litesvm_expireBlockhash', [])
    const answer = await first
    const text = await answer.text()
    await eventually('the node refused the settlement', 10_000, async () =>
      liar.refusedLate.length > 0 ? true : undefined,
    )
    assert.match(liar.refusedLate[0]!, /BlockhashNotFound/, liar.refusedLate[0])
    assert.notEqual(answer.status, 200, `not run on a refused settlement: ${text}`)
    assert.equal(answer.headers.get('x-erc1066-status'), '0xF3', text)
    assert.equal((await recipient()) - recipientBefore, 0n, 'the intent did not run')
    assert.equal(payerBefore - (await payerBalance()), 0n, 'the payer paid nothing')
    assert.ok(
      gateway.logs.some((l) => l.includes('the node does not hold the transaction: not believed yet')),
      'the gateway said it did not believe the endpoint',
    )

    // The agent retries, as agents do: the reservation is released once the settlement can no
    // longer land, the retry is asked to pay (402) and pays, and the intent runs once.
    let last = { status: 0, erc1066: '' as string | null, text: '' }
    await eventually('the retry ran the intent', 30_000, async () => {
      const res = await execute()
      last = { status: res.status, erc1066: res.headers.get('x-erc1066-status'), text: await res.text() }
      return res.status === 200 ? true : undefined
    }).catch((err: Error) => assert.fail(`${err.message}; last answer ${JSON.stringify(last)}`))
    assert.equal(last.erc1066, '0x11', last.text)
    assert.equal((await recipient()) - recipientBefore, 1_000n, 'the intent ran once')
    assert.equal(payerBefore - (await payerBalance()), price, 'the payer paid the price once')
  })
})
