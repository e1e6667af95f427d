// Issue 40, item 1: a paying stranger must not make the relayer send executions that can only
// revert once their own payment is settled (and so spoil a popular target's standing). On EVM the
// settlement and the execution are simulated together, in that order, before anything is settled:
// against real anvil, the real executor and the real EIP-3009 token, with the payer's, the
// relayer's and the facilitator's balances asserted.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import solc from 'solc'
import { type Address, encodeFunctionData, type Hex, parseSignature } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { hashApiKey } from '../../src/auth/createApiKeyCheck.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { limitsConfig } from '../../src/config/limitsConfig.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { writePolicy } from '../support/policies.ts'
import {
  post,
  rpc,
  signIntent,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

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

/** Runs until a time, then reverts: a target whose executions pass simulation and revert in a later block. */
const timeBomb = (() => {
  const source =
    'pragma solidity ^0.8.24; contract TimeBomb { uint256 public calls; function poke(uint256 until) external { if (block.timestamp > until) revert("the time ran out"); calls++; } }'
  const input = {
    language: 'Solidity',
    sources: { 'T.sol': { content: source } },
    settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input)))
  return { bytecode: `0x${out.contracts['T.sol'].TimeBomb.evm.bytecode.object}` as Hex }
})()
const timeBombAbi = [
  {
    type: 'function',
    name: 'poke',
    stateMutability: 'nonpayable',
    inputs: [{ name: 'until', type: 'uint256' }],
    outputs: [],
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
  const dollars = (who: Address) =>
    publicClient().readContract({
      address: world.devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
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
    const offered = await post(
      gateway.baseUrl,
      '/intents/execute',
      await signIntent(world.devnet, { ...plainIntent(), nonce: String(nonce++) }),
      chain,
    )
    assert.equal(offered.status, 402, offered.text)
    const required = decodePaymentRequiredHeader(offered.headers.get('payment-required')!)
    return payingClient(world.devnet).client.createPaymentPayload(required)
  }
  const plainIntent = () => ({
    sender: world.devnet.demo.sender,
    target: world.devnet.contracts.dollar,
    data: '0x',
    value: '0',
    validAfter: '0',
    validBefore: '0',
    policyId: anyCall,
  })
  const intentFor = (target: Address, data: Hex) =>
    signIntent(world.devnet, { ...plainIntent(), target, data, nonce: String(nonce++) })
  async function deployTimeBomb(): Promise<Address> {
    const wallet = world.clients.walletFor(devnetAccounts.deployer)
    const hash = await wallet.deployContract({
      abi: timeBombAbi,
      bytecode: timeBomb.bytecode,
      account: wallet.account!,
      chain: wallet.chain,
    })
    return (await publicClient().waitForTransactionReceipt({ hash })).contractAddress!
  }
  const execute = (body: unknown, paid: PaymentPayload) =>
    post(gateway.baseUrl, '/intents/execute', body, {
      ...chain,
      'payment-signature': encodePaymentSignatureHeader(paid),
    })

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
      args: [
        a.from as Address,
        a.to as Address,
        BigInt(a.value!),
        BigInt(a.validAfter!),
        BigInt(a.validBefore!),
        a.nonce as Hex,
        Number(v),
        r,
        s,
      ],
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
      await signIntent(world.devnet, {
        ...plainIntent(),
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [relayer, 0n] }),
        nonce: String(nonce++),
      }),
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
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transferFrom',
      args: [payer, world.devnet.demo.sender, all],
    })
    const body = await signIntent(world.devnet, { ...plainIntent(), data, nonce: String(nonce++) })
    const before = await snapshot()
    const res = await execute(body, paid)
    assert.equal(res.status, 422, res.text)
    assertCommonHeaders(res, { status: '0x50' })
    assert.equal(res.headers.get('payment-response'), null)
    assert.deepEqual(await snapshot(), before)
  })

  it('behind a node without eth_simulateV1, simulates again once the settlement is mined: refused with its code and payment.status "credited", nothing sent', async () => {
    // A JSON-RPC proxy that answers eth_simulateV1 as a node without it does; everything else goes to anvil.
    const server = createServer((req, res) => {
      let text = ''
      req.on('data', (d) => (text += d))
      req.on('end', async () => {
        const call = JSON.parse(text) as { id?: unknown; method?: string }
        const answer =
          call.method === 'eth_simulateV1'
            ? JSON.stringify({
                jsonrpc: '2.0',
                id: call.id,
                error: { code: -32601, message: 'the method eth_simulateV1 does not exist/is not available' },
              })
            : await (
                await fetch(world.devnet.anvil.rpcUrl, {
                  method: 'POST',
                  headers: { 'content-type': 'application/json' },
                  body: text,
                })
              ).text()
        res.writeHead(200, { 'content-type': 'application/json' }).end(answer)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const proxied = await startTestGateway({
      chains: [{ ...world.devnet.chain, rpcUrls: [`http://127.0.0.1:${(server.address() as { port: number }).port}`] }],
      payments: world.devnet.payments,
    })
    try {
      const paid = await payment()
      const { authorization: a, signature } = paid.payload as { authorization: Record<string, string>; signature: Hex }
      const { v, r, s } = parseSignature(signature)
      const data = encodeFunctionData({
        abi: eip3009Abi,
        functionName: 'transferWithAuthorization',
        args: [
          a.from as Address,
          a.to as Address,
          BigInt(a.value!),
          BigInt(a.validAfter!),
          BigInt(a.validBefore!),
          a.nonce as Hex,
          Number(v),
          r,
          s,
        ],
      })
      const body = await signIntent(world.devnet, { ...plainIntent(), data, nonce: String(nonce++) })
      const before = await snapshot()
      const res = await post(proxied.baseUrl, '/intents/execute', body, {
        ...chain,
        'payment-signature': encodePaymentSignatureHeader(paid),
      })
      assert.equal(res.status, 422, res.text)
      assertCommonHeaders(res, { status: '0x50' })
      assert.equal(res.body.payment?.status, 'credited', res.text)
      assert.ok(res.headers.get('payment-response'), 'the payment was settled')
      assert.equal(await dollars(payer), before.payer - BigInt(a.value!), 'charged once, kept as the credit')
      assert.equal(
        await publicClient().getTransactionCount({ address: relayer, blockTag: 'pending' }),
        before.relayerNonce,
        'the relayer sent nothing',
      )
      assert.equal(await publicClient().getBalance({ address: relayer }), before.relayerEth)
    } finally {
      await proxied.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  describe("paid traffic cannot trip the relayer's spend circuit breaker (issue 40, item 6)", () => {
    const apiKey = 'breaker-agent-key-0123456789abcdef'

    it('5 paid executes from 3 throwaway payers leave an API-key client served (was: 503 relayer-budget-spent for everyone); unpaid spend still trips it', async () => {
      const gateway = await startTestGateway({
        chains: [world.devnet.chain],
        payments: world.devnet.payments,
        auth: { keyHashes: [hashApiKey(apiKey)], requireForValidate: false },
        // One wei: any execution's fee that counts trips the breaker.
        limits: {
          ...limitsConfig({}).value,
          maxRevertsPerSender: 0,
          maxRevertsPerClient: 0,
          targetMaxRevertShare: 0,
          relayerSpendBudget: 1,
        },
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
          const paid = await payingClient(world.devnet, throwaways[i % 3]!).fetch(
            `${gateway.baseUrl}/intents/execute`,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...chain },
              body: JSON.stringify(await intent()),
            },
          )
          assert.equal(paid.status, 200, await paid.text())
        }
        const keyed = await post(gateway.baseUrl, '/intents/execute', await intent(), {
          ...chain,
          authorization: `Bearer ${apiKey}`,
        })
        assert.equal(keyed.status, 200, keyed.text)
        // That execute was unpaid (API-key clients are not priced): its spend counts, and the breaker trips for everyone.
        const broken = await post(gateway.baseUrl, '/intents/execute', await intent(), {
          ...chain,
          authorization: `Bearer ${apiKey}`,
        })
        assert.equal(broken.status, 503, broken.text)
        assertCommonHeaders(broken, { status: '0x40' })
        assert.equal(broken.body.type, 'urn:intent-gateway:problem:relayer-budget-spent')
      } finally {
        await gateway.close()
      }
    })
  })

  describe("a target's standing against crafted reverts (issue 40, item 1c)", () => {
    const honestKey = 'honest-agent-key-0123456789abcdef'

    it("leaves an honest client's execute on a target answered 200 after 18 paid crafted reverts from 6 senders and 2 payers (was: 429 0xF6 reverts-throttled)", async () => {
      // The defaults: 3 reverts a sender, 10 a client, a target judged from 20 attempts at half of them reverted.
      const guarded = await startTestGateway({
        chains: [world.devnet.chain],
        payments: world.devnet.payments,
        auth: { keyHashes: [hashApiKey(honestKey)], requireForValidate: false },
        limits: limitsConfig({}).value,
      })
      try {
        const bomb = await deployTimeBomb()
        const url = world.devnet.anvil.rpcUrl
        // Six throwaway senders, each with ETH for its policy's transaction and an any-call policy.
        const senders: { key: Hex; policyId: Hex }[] = []
        const deployer = world.clients.walletFor(devnetAccounts.deployer)
        for (let i = 0; i < 6; i++) {
          const key = generatePrivateKey()
          const hash = await deployer.sendTransaction({
            to: privateKeyToAccount(key).address,
            value: 10n ** 17n,
            account: deployer.account!,
            chain: deployer.chain,
          })
          await publicClient().waitForTransactionReceipt({ hash })
          senders.push({ key, policyId: await writePolicy(world, `crafted sender ${i}`, {}, key) })
        }
        // Two payers: the devnet's, and a throwaway it funds.
        const second = generatePrivateKey()
        const payerWallet = world.clients.walletFor(devnetAccounts.payer)
        const funded = await payerWallet.writeContract({
          address: world.devnet.contracts.dollar,
          abi: demoDollarArtifact.abi,
          functionName: 'transfer',
          args: [privateKeyToAccount(second).address, 1_000_000n],
          account: payerWallet.account!,
          chain: payerWallet.chain,
        } as never)
        await publicClient().waitForTransactionReceipt({ hash: funded })
        const payers = [devnetAccounts.payer, second]
        const poke = (until: bigint) => encodeFunctionData({ abi: timeBombAbi, functionName: 'poke', args: [until] })

        const relayerBefore = await publicClient().getTransactionCount({ address: relayer })
        for (let i = 0; i < 18; i++) {
          const sender = senders[i % 6]!
          // A few seconds ahead, and the revert's block just past it: the chain's clock stays within the payments' validity (wall clock + 300 s).
          const until = (await publicClient().getBlock({ blockTag: 'latest' })).timestamp + 6n
          const body = await signIntent(
            world.devnet,
            {
              sender: privateKeyToAccount(sender.key).address,
              target: bomb,
              data: poke(until),
              value: '0',
              nonce: String(nonce++),
              validAfter: '0',
              validBefore: '0',
              policyId: sender.policyId,
            },
            sender.key,
          )
          // Passes simulation on the pending block; mined in a block stamped past `until`, where it reverts.
          await rpc(url, 'evm_setAutomine', [false])
          try {
            const answer = payingClient(world.devnet, payers[i % 2]!).fetch(`${guarded.baseUrl}/intents/execute`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...chain },
              body: JSON.stringify(body),
            })
            for (let tries = 0; tries < 500; tries++) {
              const pending = Object.keys(
                (await rpc(url, 'txpool_content', [])).pending as Record<string, unknown>,
              ).map((a) => a.toLowerCase())
              if (pending.includes(relayer.toLowerCase())) break
              if (pending.length > 0) await rpc(url, 'evm_mine', [])
              await new Promise((r) => setTimeout(r, 20))
            }
            await rpc(url, 'evm_setNextBlockTimestamp', [Number(until + 1n)])
            await rpc(url, 'evm_mine', [])
            const res = await answer
            assert.equal(res.status, 422, await res.text())
          } finally {
            await rpc(url, 'evm_setAutomine', [true])
          }
        }
        assert.equal(
          await publicClient().getTransactionCount({ address: relayer }),
          relayerBefore + 18,
          '18 crafted reverts were mined',
        )

        // The honest client calls the same target three times: its 20th attempt is judged, and passes.
        for (let i = 0; i < 3; i++) {
          const honest = await post(guarded.baseUrl, '/intents/execute', await intentFor(bomb, poke(2n ** 64n)), {
            ...chain,
            authorization: `Bearer ${honestKey}`,
          })
          assert.equal(honest.status, 200, honest.text)
          assertCommonHeaders(honest, { status: '0x11' })
        }
      } finally {
        await guarded.close()
      }
    })
  })
})
