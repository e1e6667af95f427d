// Issue 40, item 1: a paying stranger must not make the relayer send executions that can only
// revert once their own payment is settled (and so spoil a popular target's standing). On EVM the
// settlement and the execution are simulated together, in that order, before anything is settled:
// against real anvil, the real executor and the real EIP-3009 token, with the payer's, the
// relayer's and the facilitator's balances asserted.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import { type Address, encodeFunctionData, type Hex, parseSignature } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { limitsConfig } from '../../src/config/limitsConfig.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { writePolicy } from '../support/policies.ts'
import { post, signIntent, startTestGateway, startWorld, type TestGateway, type World } from '../support/testGateway.ts'

const eip3009Abi = [
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'validAfter', type: 'uint256' },
      { name: 'validBefore', type: 'uint256' },
      { name: 'nonce', type: 'bytes32' },
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
] as const
const erc20Abi = [
  {
    type: 'function',
    name: 'transferFrom',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ type: 'bool' }],
  },
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'spender', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ type: 'bool' }],
  },
] as const

const incrementOne = encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] })

describe('what a paying stranger cannot do (issue 40, items 1 and 6)', () => {
  let world: World
  let gateway: TestGateway
  let anyCall: Hex
  let nonce = 5_000
  const chain = { 'x-chain-id': '31337' }
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  const facilitator = privateKeyToAccount(devnetAccounts.facilitator).address
  const publicClient = () => world.clients.publicClient
  const dollars = (who: Address) => publicClient().readContract({ address: world.devnet.contracts.dollar, abi: demoDollarArtifact.abi, functionName: 'balanceOf', args: [who] })
  /** Everything the attack could have moved: the payer's and pay-to's dollars, the relayer's and facilitator's nonces and ETH, the block. */
  const snapshot = async () => ({
    payer: await dollars(payer),
    payTo: await dollars(world.devnet.demo.payment.payTo),
    relayerNonce: await publicClient().getTransactionCount({ address: relayer, blockTag: 'pending' }),
    relayerEth: await publicClient().getBalance({ address: relayer }),
    facilitatorNonce: await publicClient().getTransactionCount({ address: facilitator, blockTag: 'pending' }),
    facilitatorEth: await publicClient().getBalance({ address: facilitator }),
    block: await publicClient().getBlockNumber(),
  })

  /** A payment for execute on the devnet chain, made by the unmodified x402 client (its offer is the same for every intent). */
  async function payment(): Promise<PaymentPayload> {
    const offered = await post(gateway.baseUrl, '/intents/execute', await signIntent(world.devnet, { ...plainIntent(), nonce: String(nonce++) }), chain)
    assert.equal(offered.status, 402, offered.text)
    const required = decodePaymentRequiredHeader(offered.headers.get('payment-required')!)
    return payingClient(world.devnet).client.createPaymentPayload(required)
  }
  const plainIntent = () => ({ sender: world.devnet.demo.sender, target: world.devnet.contracts.dollar, data: '0x', value: '0', validAfter: '0', validBefore: '0', policyId: anyCall })
  const execute = (body: unknown, paid: PaymentPayload) => post(gateway.baseUrl, '/intents/execute', body, { ...chain, 'payment-signature': encodePaymentSignatureHeader(paid) })

  before(async () => {
    world = await startWorld()
    gateway = await startTestGateway({ chains: [world.devnet.chain], payments: world.devnet.payments })
    anyCall = await writePolicy(world, 'any call, paid attacks', {})
  })
  after(async () => {
    await gateway?.close()
    await world?.stop()
  })

  it("refuses an intent that spends its own payment's EIP-3009 nonce before settling: 422 (0x50), payer not charged, relayer and facilitator pay no gas, nothing mined (was: settled, sent, reverted on chain)", async () => {
    const paid = await payment()
    const { authorization: a, signature } = paid.payload as { authorization: Record<string, string>; signature: Hex }
    const { v, r, s } = parseSignature(signature)
    // The intent calls the payment token with the very authorization that pays for it: alone it would run; after the settlement the nonce is used.
    const data = encodeFunctionData({
      abi: eip3009Abi,
      functionName: 'transferWithAuthorization',
      args: [a.from as Address, a.to as Address, BigInt(a.value!), BigInt(a.validAfter!), BigInt(a.validBefore!), a.nonce as Hex, Number(v), r, s],
    })
    const body = await signIntent(world.devnet, { ...plainIntent(), data, nonce: String(nonce++) })
    const before = await snapshot()
    const res = await execute(body, paid)
    assert.equal(res.status, 422, res.text)
    assertCommonHeaders(res, { status: '0x50' })
    assert.match(res.body.detail, /^the target call reverted/)
    assert.equal(res.headers.get('payment-response'), null, 'nothing was settled')
    assert.deepEqual(await snapshot(), before, 'the payer was not charged, nobody paid gas, nothing was mined')
    // The payment was released, not spent: the payer may pay an honest execute with it.
    const honest = await execute(
      await signIntent(world.devnet, { ...plainIntent(), data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [relayer, 0n] }), nonce: String(nonce++) }),
      paid,
    )
    assert.equal(honest.status, 200, honest.text)
    assert.equal(await dollars(payer), before.payer - BigInt(a.value!), 'the same payment paid for the honest execute')
  })

  it('refuses an intent that takes, with transferFrom, the balance its settlement takes: nothing settled, sent or mined', async () => {
    // The sender holds an allowance over all the payer's dollars: alone the intent moves them; after the settlement they are short by the price.
    const all = await dollars(payer)
    const wallet = world.clients.walletFor(devnetAccounts.payer)
    const approved = await wallet.writeContract({
      address: world.devnet.contracts.dollar,
      abi: erc20Abi,
      functionName: 'approve',
      args: [world.devnet.contracts.executor, all],
      account: wallet.account!,
      chain: wallet.chain,
    })
    await publicClient().waitForTransactionReceipt({ hash: approved })
    const paid = await payment()
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [payer, world.devnet.demo.sender, all] })
    const body = await signIntent(world.devnet, { ...plainIntent(), data, nonce: String(nonce++) })
    const before = await snapshot()
    const res = await execute(body, paid)
    assert.equal(res.status, 422, res.text)
    assertCommonHeaders(res, { status: '0x50' })
    assert.equal(res.headers.get('payment-response'), null)
    assert.deepEqual(await snapshot(), before)
  })

  describe("paid traffic cannot trip the relayer's spend circuit breaker (issue 40, item 6)", () => {
    const apiKey = 'breaker-agent-key-0123456789abcdef'

    it('5 paid executes from 3 throwaway payers leave an API-key client served (was: 503 relayer-budget-spent for everyone); unpaid spend still trips it', async () => {
      const gateway = await startTestGateway({
        chains: [world.devnet.chain],
        payments: world.devnet.payments,
        auth: { keyHashes: [hashApiKey(apiKey)], requireForValidate: false },
        // One wei: any execution's fee that counts trips the breaker.
        limits: { ...limitsConfig({}).value, maxRevertsPerSender: 0, maxRevertsPerClient: 0, targetMaxRevertShare: 0, relayerSpendBudget: 1 },
      })
      try {
        // Three throwaway payers, each given a few DemoDollar by the devnet's payer.
        const throwaways = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()]
        const wallet = world.clients.walletFor(devnetAccounts.payer)
        for (const key of throwaways) {
          const hash = await wallet.writeContract({
            address: world.devnet.contracts.dollar,
            abi: demoDollarArtifact.abi,
            functionName: 'transfer',
            args: [privateKeyToAccount(key).address, 100_000n],
            account: wallet.account!,
            chain: wallet.chain,
          } as never)
          await world.clients.publicClient.waitForTransactionReceipt({ hash })
        }
        const intent = () =>
          signIntent(world.devnet, {
            sender: world.devnet.demo.sender,
            target: world.devnet.demo.counter,
            data: incrementOne,
            value: '0',
            nonce: String(nonce++),
            validAfter: '0',
            validBefore: '0',
            policyId: anyCall,
          })
        for (let i = 0; i < 5; i++) {
          const paid = await payingClient(world.devnet, throwaways[i % 3]!).fetch(`${gateway.baseUrl}/intents/execute`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...chain },
            body: JSON.stringify(await intent()),
          })
          assert.equal(paid.status, 200, await paid.text())
        }
        const keyed = await post(gateway.baseUrl, '/intents/execute', await intent(), { ...chain, authorization: `Bearer ${apiKey}` })
        assert.equal(keyed.status, 200, keyed.text)
        // That execute was unpaid (API-key clients are not priced): its spend counts, and the breaker trips for everyone.
        const broken = await post(gateway.baseUrl, '/intents/execute', await intent(), { ...chain, authorization: `Bearer ${apiKey}` })
        assert.equal(broken.status, 503, broken.text)
        assertCommonHeaders(broken, { status: '0x40' })
        assert.equal(broken.body.type, 'urn:intent-gateway:problem:relayer-budget-spent')
      } finally {
        await gateway.close()
      }
    })
  })
})
