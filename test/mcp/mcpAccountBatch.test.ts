// A batch (`calls`) over MCP execute_intent in account mode, against the devnet: approve + swap as
// one intent from the agent's own address (msg.sender at the token and the pool is the agent, the
// relayer pays the gas), and a batch of 17 calls refused as a 400 tool result naming `calls`,
// nothing sent. The tool's schema is the route's, so a batch arrives exactly as POST /intents/execute takes it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type Address, encodeFunctionData, getAddress, keccak256, parseUnits, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { demoSwapArtifact } from '../../src/contracts/demoSwapArtifact.ts'
import { accountIntents, type TestBatch, type TestCall } from '../support/accountIntents.ts'
import { startWorld, type World } from '../support/testGateway.ts'

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> }

const agent = privateKeyToAccount(devnetAccounts.agent)
const relayer = privateKeyToAccount(devnetAccounts.relayer).address
const transferTopic = keccak256(toHex('Transfer(address,address,uint256)'))
const approvalTopic = keccak256(toHex('Approval(address,address,uint256)'))
const swappedTopic = keccak256(toHex('Swapped(address,uint256,uint256,uint256,uint256)'))
/** DemoSwap's fixed rate: wei per DemoDollar unit (1 ETH = 2000 DemoDollar). */
const weiPerDollarUnit = 10n ** 18n / 2000_000000n
const topicAddress = (topic: string | undefined) => getAddress(`0x${topic!.slice(26)}`)

describe('MCP execute_intent: a batch in account mode against the devnet', () => {
  let world: World
  let mcp: Client
  let nonce = 12_000n
  const t = accountIntents(() => world, relayer)
  const contracts = () => world.devnet.contracts
  const call = (target: Address, data: `0x${string}`, value = 0n): TestCall => ({ target, data, value })
  const approve = (amount: bigint) =>
    call(
      contracts().dollar,
      encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'approve', args: [contracts().swap, amount] }),
    )
  const sell = (amount: bigint) =>
    call(
      contracts().swap,
      encodeFunctionData({ abi: demoSwapArtifact.abi, functionName: 'sellDollars', args: [amount] }),
    )
  const increment = () =>
    call(
      contracts().counter,
      encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
    )
  const batchOf = (calls: TestCall[]): TestBatch => ({
    sender: agent.address,
    calls,
    nonce: nonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId: world.devnet.demo.account.policies.own,
  })
  const execute = (intent: unknown) =>
    mcp.callTool({
      name: 'execute_intent',
      arguments: { intent, chainId: world.devnet.chain.chainId },
    }) as Promise<ToolResult>

  before(async () => {
    world = await startWorld({ receiptTimeoutMs: 15_000 })
    mcp = new Client({ name: 'intent-gateway-account-batch-test', version: '1.0.0' })
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${world.gateway.baseUrl}/mcp`)))
  })
  after(async () => {
    await mcp?.close()
    await world?.stop()
  })

  it('a batch of 17 calls: a 400 tool result naming calls, nothing sent', async () => {
    const batch = batchOf(Array.from({ length: 17 }, () => increment()))
    const body = t.batchBody(batch, await t.signBatch(batch, agent), { authorization: await t.authorize(agent) })
    const result = await t.untouched([agent.address], () => execute(body))
    assert.equal(result.isError, true, JSON.stringify(result))
    assert.equal(result.structuredContent?.httpStatus, 400, JSON.stringify(result))
    const fields = (result.structuredContent.body.errors ?? []).map((e: { field: string }) => e.field)
    assert.deepEqual(fields, ['calls'], JSON.stringify(result.structuredContent.body))
    assert.equal(await t.codeOf(agent.address), '0x', 'not delegated either')
  })

  it('approve + swap as one intent, delegating in the same call: executed, msg.sender at the token and the pool is the agent, the relayer pays the gas', async () => {
    const amount = parseUnits('5', 6)
    const batch = batchOf([approve(amount), sell(amount)])
    const before = {
      agentEth: await t.ethOf(agent.address),
      agentDollars: await t.dollarsOf(agent.address),
      relayerEth: await t.ethOf(relayer),
    }
    const result = await execute(
      t.batchBody(batch, await t.signBatch(batch, agent), { authorization: await t.authorize(agent) }),
    )
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent))
    assert.equal(result.structuredContent.httpStatus, 200, JSON.stringify(result.structuredContent))
    assert.equal(result.structuredContent.erc1066Status, '0x11')
    assert.equal(
      result.structuredContent.headers['x-intent-hash'],
      t.batchHash(batch),
      "the chain's keccak256(abi.encode(BatchIntent))",
    )
    const receipt = await world.clients.publicClient.getTransactionReceipt({
      hash: result.structuredContent.body.transactionHash,
    })
    assert.equal(receipt.type, 'eip7702')
    assert.equal(getAddress(receipt.to!), agent.address, 'sent to the agent’s own address')
    const approval = receipt.logs.find((l) => l.topics[0] === approvalTopic)!
    assert.equal(topicAddress(approval.topics[1]), agent.address, 'msg.sender at the token (approve) is the agent')
    const swapped = receipt.logs.find((l) => l.topics[0] === swappedTopic)!
    assert.equal(topicAddress(swapped.topics[1]), agent.address, 'msg.sender at the pool is the agent')
    const transfer = receipt.logs.find((l) => l.topics[0] === transferTopic)!
    assert.equal(topicAddress(transfer.topics[1]), agent.address, 'the DemoDollar left the agent’s own balance')
    assert.equal(await t.dollarsOf(agent.address), before.agentDollars - amount)
    assert.equal(
      await t.ethOf(agent.address),
      before.agentEth + amount * weiPerDollarUnit,
      'the agent received the swap’s ETH and paid no gas',
    )
    assert.equal(await t.ethOf(relayer), before.relayerEth - receipt.gasUsed * receipt.effectiveGasPrice)
  })
})
