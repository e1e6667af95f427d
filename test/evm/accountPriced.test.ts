// Priced account mode: the agent pays the gateway's x402 price in DemoDollar from its own EOA and
// its intent moves that same DemoDollar. The settlement is simulated together with the execution
// (eth_simulateV1, settlement first): an intent that only reverts once the payment is settled (it
// spends the balance the payment takes) is refused before anything is charged or sent; one that
// fits runs, the payer charged once. Balances of the agent, the recipient, the payee and the
// relayer are asserted.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Address, concatHex, encodeFunctionData } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { accountIntents, type TestBatch } from '../support/accountIntents.ts'
import { payingClient, price } from '../support/paymentsWorld.ts'
import { startTestGateway, startWorld, type TestGateway, type World } from '../support/testGateway.ts'

describe('priced account mode: the agent pays with the DemoDollar its intent moves', () => {
  let world: World
  let gateway: TestGateway
  const agent = privateKeyToAccount(devnetAccounts.agent)
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  const recipient = privateKeyToAccount(devnetAccounts.other).address
  const t = accountIntents(() => world, relayer)
  let nonce = 3_000n

  const transferAll = (amount: bigint): TestBatch => ({
    sender: agent.address,
    calls: [
      {
        target: world.devnet.contracts.dollar,
        value: 0n,
        data: encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'transfer', args: [recipient, amount] }),
      },
    ],
    nonce: nonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId: world.devnet.demo.account.policies.own,
  })
  /** Executes through the unmodified x402 client, the agent's key paying: the 402, then the paid request. */
  const paidExecute = async (body: unknown) => {
    const res = await payingClient(world.devnet, devnetAccounts.agent).fetch(`${gateway.baseUrl}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...t.headers() },
      body: JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, text, body: JSON.parse(text) as Record<string, string> }
  }
  const balances = async () => {
    const payTo = world.devnet.demo.payment.payTo as Address
    return {
      agentDollars: await t.dollarsOf(agent.address),
      agentEth: await t.ethOf(agent.address),
      recipientDollars: await t.dollarsOf(recipient),
      payToDollars: await t.dollarsOf(payTo),
      relayerEth: await t.ethOf(relayer),
    }
  }

  before(async () => {
    world = await startWorld()
    gateway = await startTestGateway({
      chains: [world.devnet.chain],
      payments: world.devnet.payments,
      receiptTimeoutMs: 15_000,
    })
  })
  after(async () => {
    await gateway?.close()
    await world?.stop()
  })

  it('refuses an intent that moves the whole balance the payment needs: it reverts only after the settlement (simulated together), so nothing is charged or sent', async () => {
    const before = await balances()
    const batch = transferAll(before.agentDollars)
    const res = await paidExecute(
      t.batchBody(batch, await t.signBatch(batch, agent), { authorization: await t.authorize(agent) }),
    )
    assert.equal(res.status, 422, res.text)
    assert.equal(res.body.erc1066Status, '0x50', res.text)
    // ERC20InsufficientBalance(agent, balance − price, balance): met after the settlement, in the same simulated block.
    assert.match(res.body.detail!, /reverted with data 0xe450d38c/, res.text)
    assert.deepEqual(await balances(), before, 'the agent was not charged, nothing moved, the relayer paid nothing')
    assert.equal(await t.codeOf(agent.address), '0x', 'not delegated: nothing was sent')
  })

  it('runs one that leaves the price: delegates and executes in one type-4, the agent charged the price once, its DemoDollar moved, its ETH untouched', async () => {
    const before = await balances()
    const amount = before.agentDollars - price
    const batch = transferAll(amount)
    const res = await paidExecute(
      t.batchBody(batch, await t.signBatch(batch, agent), { authorization: await t.authorize(agent) }),
    )
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.status, '0x11', res.text)
    const receipt = await world.clients.publicClient.getTransactionReceipt({
      hash: res.body.transactionHash as `0x${string}`,
    })
    assert.equal(receipt.type, 'eip7702')
    assert.equal(
      await t.codeOf(agent.address),
      concatHex(['0xef0100', world.devnet.contracts.accountDelegate]).toLowerCase(),
    )
    const after = await balances()
    assert.equal(after.agentDollars, 0n, 'the price and the transfer: all of it')
    assert.equal(after.payToDollars, before.payToDollars + price, 'charged once')
    assert.equal(after.recipientDollars, before.recipientDollars + amount)
    assert.equal(after.agentEth, before.agentEth, 'the agent paid no gas')
    assert.equal(
      after.relayerEth,
      before.relayerEth - receipt.gasUsed * receipt.effectiveGasPrice,
      'the relayer paid the execution’s gas',
    )
  })
})
