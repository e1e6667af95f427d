// Account mode's 0x54, against anvil: a single-call intent is paid from the account's own ETH, so
// a shortfall names the account's balance and never the executor's deposit (an agent told to
// deposit into the executor would move ETH that account mode never spends).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Address, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { accountIntents } from '../support/accountIntents.ts'
import { writePolicy } from '../support/policies.ts'
import { post, startWorld, type World } from '../support/testGateway.ts'

describe('account mode: a single call short of funds answers with the account’s balance', () => {
  let world: World
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  const a = accountIntents(() => world, relayer)
  const key = generatePrivateKey()
  const agent = privateKeyToAccount(key)
  const recipient = privateKeyToAccount(devnetAccounts.treasury).address

  before(async () => {
    world = await startWorld({ receiptTimeoutMs: 15_000 })
    // A fresh agent with a little ETH of its own and no deposit.
    const funder = world.clients.walletFor(devnetAccounts.treasury)
    const hash = await funder.sendTransaction({
      to: agent.address,
      value: parseEther('0.01'),
      account: funder.account!,
      chain: funder.chain,
    })
    await world.clients.publicClient.waitForTransactionReceipt({ hash })
  })
  after(async () => {
    await world?.stop()
  })

  it('402 0x54 naming the account’s balance, no deposit, no depositFor; nothing sent', async () => {
    const policyId = await writePolicy(
      world,
      'account-funding',
      { maxValuePerTx: parseEther('1'), maxAggregateValue: parseEther('10') },
      key,
    )
    const balance = await a.ethOf(agent.address)
    const value = parseEther('0.5')
    const intent = {
      sender: agent.address as Address,
      target: recipient,
      data: '0x' as const,
      value,
      nonce: 7n,
      validAfter: 0n,
      validBefore: 0n,
      policyId,
    }
    const body = a.intentBody(intent, await a.signIntent(intent, agent), { authorization: await a.authorize(agent) })
    const res = await a.untouched([agent.address], () =>
      post(world.gateway.baseUrl, '/intents/execute', body, a.headers()),
    )
    assert.equal(res.status, 402, res.text)
    assert.equal(res.body.erc1066Status ?? res.body.status, '0x54', res.text)
    const extension = res.body.paymentRequired.extensions.deposit
    assert.equal(extension.limit, 'balance', res.text)
    assert.equal(extension.balance, balance.toString(), res.text)
    assert.equal(extension.amount, (value - balance).toString(), res.text)
    assert.equal(extension.function, undefined, res.text)
    assert.equal(extension.executor, undefined, res.text)
    assert.match(
      extension.detail,
      new RegExp(`the account's own balance is ${balance} wei, ${value - balance} wei short`),
      res.text,
    )
    assert.doesNotMatch(res.text, /deposit(For)? |depositFor|the sender's deposit/i)
  })
})
