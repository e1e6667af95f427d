// Account mode (EIP-7702) over MCP: execute_intent takes `mode: "account"` and the agent's
// `authorization` exactly as POST /intents/execute does (the tools' schema is the route's), so an
// agent whose EOA holds DemoDollar and no deposit delegates and moves its own tokens through the
// MCP SDK's client; a missing or foreign authorization is refused naming the field, nothing sent.
// Signed with the typed client's helpers, as an MCP agent built on it would.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type Address, concatHex, encodeFunctionData, getAddress, keccak256, parseUnits, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  hashIntent,
  type IntentInput,
  signAccountAuthorization,
  signIntent,
  toIntentBody,
} from '../../client/src/index.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { request, startWorld, type World } from '../support/testGateway.ts'

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> }

const agent = privateKeyToAccount(devnetAccounts.agent)
const stranger = privateKeyToAccount(devnetAccounts.sessionKey)
const relayer = privateKeyToAccount(devnetAccounts.relayer).address
const recipient = privateKeyToAccount(devnetAccounts.treasury).address
const transferTopic = keccak256(toHex('Transfer(address,address,uint256)'))

describe('MCP execute_intent in account mode (EIP-7702) against the devnet', () => {
  let world: World
  let mcp: Client
  let nonce = 9_000n
  const pc = () => world.clients.publicClient
  const ethOf = (who: Address) => pc().getBalance({ address: who })
  const dollarsOf = (who: Address) =>
    pc().readContract({
      address: world.devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    }) as Promise<bigint>
  const relayerTxs = () => pc().getTransactionCount({ address: relayer, blockTag: 'pending' })
  const codeOf = async (who: Address) => ((await pc().getCode({ address: who })) ?? '0x').toLowerCase()
  const chain = async () => (await request(world.gateway.baseUrl, `/chains/${world.devnet.chain.chainId}`)).body

  const transfer = (amount: bigint): IntentInput => ({
    sender: agent.address,
    target: world.devnet.contracts.dollar,
    data: encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'transfer', args: [recipient, amount] }),
    nonce: nonce++,
    policyId: world.devnet.demo.account.policies.own,
    mode: 'account',
  })
  /** The intent as the tool takes it: the wire body, signed by the agent. */
  const signed = async (intent: IntentInput, extra: Partial<IntentInput> = {}) =>
    toIntentBody({ ...intent, ...extra, signature: await signIntent({ intent, chain: await chain(), signer: agent }) })
  const authorize = async (signer = agent) =>
    signAccountAuthorization({
      signer,
      chainId: world.devnet.anvil.chainId,
      delegate: world.devnet.contracts.accountDelegate,
      nonce: await pc().getTransactionCount({ address: agent.address }),
    })
  const execute = (intent: unknown) =>
    mcp.callTool({
      name: 'execute_intent',
      arguments: { intent, chainId: world.devnet.chain.chainId },
    }) as Promise<ToolResult>

  before(async () => {
    world = await startWorld({ receiptTimeoutMs: 15_000 })
    mcp = new Client({ name: 'intent-gateway-account-test', version: '1.0.0' })
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${world.gateway.baseUrl}/mcp`)))
  })
  after(async () => {
    await mcp?.close()
    await world?.stop()
  })

  it('execute_intent and validate_intent take mode and authorization (the route’s schema)', async () => {
    const { tools } = await mcp.listTools()
    for (const name of ['execute_intent', 'validate_intent']) {
      const intent = (tools.find((t) => t.name === name)!.inputSchema.properties as any).intent
      assert.deepEqual(intent.properties.mode.enum, ['executor', 'account'], name)
      assert.deepEqual(
        [...intent.properties.authorization.required].sort(),
        ['address', 'chainId', 'nonce', 'r', 's', 'yParity'],
        name,
      )
    }
  })

  it('an undelegated agent without an authorization, or with one a stranger signed: refused naming the field, nothing sent', async () => {
    assert.equal(await codeOf(agent.address), '0x')
    const before = {
      txs: await relayerTxs(),
      dollars: await dollarsOf(agent.address),
      relayerEth: await ethOf(relayer),
    }
    const bare = await execute(await signed(transfer(1n)))
    assert.equal(bare.isError, true)
    assert.equal(bare.structuredContent.httpStatus, 403, JSON.stringify(bare.structuredContent))
    assert.equal(bare.structuredContent.erc1066Status, '0x10')
    assert.equal(bare.structuredContent.body.type, 'urn:intent-gateway:problem:account-not-delegated')

    const foreign = await execute(await signed(transfer(1n), { authorization: await authorize(stranger) }))
    assert.equal(foreign.isError, true)
    assert.equal(foreign.structuredContent.httpStatus, 403, JSON.stringify(foreign.structuredContent))
    assert.ok(
      foreign.structuredContent.body.errors?.some((e: { field: string }) => e.field === 'authorization.r'),
      JSON.stringify(foreign.structuredContent.body),
    )
    assert.equal(await relayerTxs(), before.txs, 'nothing was sent')
    assert.equal(await ethOf(relayer), before.relayerEth)
    assert.equal(await dollarsOf(agent.address), before.dollars)
    assert.equal(await codeOf(agent.address), '0x')
  })

  it("delegates and executes in one: the agent's own DemoDollar moves from its address, the relayer pays the gas; the same intent again is replayed", async () => {
    const amount = parseUnits('2', 6)
    const intent = transfer(amount)
    const body = await signed(intent, { authorization: await authorize() })
    const before = {
      agentEth: await ethOf(agent.address),
      dollars: await dollarsOf(agent.address),
      relayerEth: await ethOf(relayer),
    }
    const result = await execute(body)
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent))
    assert.equal(result.structuredContent.httpStatus, 200)
    assert.equal(result.structuredContent.erc1066Status, '0x11')
    assert.equal(result.structuredContent.headers['x-intent-hash'], hashIntent(intent))
    assert.equal(
      await codeOf(agent.address),
      concatHex(['0xef0100', world.devnet.contracts.accountDelegate]).toLowerCase(),
    )
    const receipt = await pc().getTransactionReceipt({ hash: result.structuredContent.body.transactionHash })
    assert.equal(receipt.type, 'eip7702')
    const log = receipt.logs.find((l) => l.topics[0] === transferTopic)!
    assert.equal(getAddress(`0x${log.topics[1]!.slice(26)}`), agent.address, 'msg.sender at the token is the agent')
    assert.equal(await dollarsOf(agent.address), before.dollars - amount)
    assert.equal(await ethOf(agent.address), before.agentEth, 'the agent paid no gas')
    assert.equal(await ethOf(relayer), before.relayerEth - receipt.gasUsed * receipt.effectiveGasPrice)

    const txs = await relayerTxs()
    const again = await execute(body)
    assert.equal(again.structuredContent.httpStatus, 200)
    assert.equal(again.structuredContent.body.replayed, true)
    assert.equal(await relayerTxs(), txs)
    assert.equal(await dollarsOf(agent.address), before.dollars - amount)
  })
})
