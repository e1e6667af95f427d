// Solana account mode over MCP (issue 46, item 3): execute_intent takes `mode: "account"` as POST
// /intents/execute does; without a signature the tool's result carries the 401 0xE5 with the
// transaction message, the agent signs it (the typed client's signAccountMessage, which reads it
// first) and calls the tool again with the signature: the agent's own SPL DemoDollar moves, the
// relayer pays only the fee. A signature of another message is refused 0xE4, nothing sent.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type Address, getBase58Decoder } from '@solana/kit'
import { createSolanaSigner } from '../../client/src/index.ts'
import { signAccountMessage } from '../../client/src/solana/signAccountMessage.ts'
import { agentTransferBody } from '../../src/chains/solana/devnet/agentTransferBody.ts'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { ed25519Seed } from '../../src/chains/solana/ed25519Seed.ts'
import { accountModeFeeOf, startSolanaDevnet } from '../support/solanaGateway.ts'
import { startSolanaPaidGateway } from '../support/solanaPayments.ts'
import type { TestGateway } from '../support/testGateway.ts'

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> }

describe('MCP execute_intent in Solana account mode against the LiteSVM devnet', () => {
  let devnet: SolanaDevnet
  let gateway: TestGateway
  let mcp: Client
  let relayer: Address

  before(async () => {
    devnet = await startSolanaDevnet()
    gateway = await startSolanaPaidGateway(devnet, { payments: { ...devnet.payments, prices: {} } })
    relayer = getBase58Decoder().decode(ed25519Seed.publicKey(devnet.relayerSecretKey)) as Address
    mcp = new Client({ name: 'intent-gateway-solana-account-test', version: '1.0.0' })
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${gateway.baseUrl}/mcp`)))
  })
  after(async () => {
    await mcp?.close()
    await gateway?.close()
    await devnet?.stop()
  })

  /** The demo agent's transfer of 1 DemoDollar (1,000,000 units) from its own token account, signed by itself. */
  const transfer = (nonce: number) => agentTransferBody(devnet.demo.agent, { nonce })
  const execute = (intent: unknown) =>
    mcp.callTool({ name: 'execute_intent', arguments: { intent, chainId: devnet.chainId } }) as Promise<ToolResult>
  const lamportsOf = async (address: Address) => (await devnet.rpc.getBalance(address).send()).value
  const dollarsOf = (owner: Address) => devnet.payment.balanceOf(owner)

  it("asks for the agent's signature with the transaction message, then runs the agent's own transfer with the relayer as fee payer only", async () => {
    const intent = transfer(200)
    const asked = await execute(intent)
    assert.equal(asked.isError, true)
    assert.equal(asked.structuredContent.httpStatus, 401, JSON.stringify(asked.structuredContent))
    assert.equal(asked.structuredContent.erc1066Status, '0xE5')
    const { signing } = asked.structuredContent.body
    assert.equal(signing.mode, 'account')
    assert.equal(signing.feePayer, relayer)
    const signature = await signAccountMessage({
      message: signing.message,
      intent,
      deployment: { programId: devnet.programId, config: devnet.config },
      signer: createSolanaSigner(devnet.demo.agent.secretKey),
    })
    const before = {
      dollars: await dollarsOf(devnet.demo.agent.address as Address),
      relayer: await lamportsOf(relayer),
    }
    const result = await execute({ ...intent, signature })
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent))
    assert.equal(result.structuredContent.httpStatus, 200)
    assert.equal(result.structuredContent.erc1066Status, '0x11')
    assert.equal(
      await dollarsOf(devnet.demo.agent.address as Address),
      before.dollars - 1_000_000n,
      "the agent's own DemoDollar moved, once",
    )
    const fee = await accountModeFeeOf(
      gateway.journal,
      result.structuredContent.headers['x-intent-hash'],
      devnet.chainId,
    )
    assert.equal(
      before.relayer - (await lamportsOf(relayer)),
      fee,
      'the relayer paid the fee and its priority fee, nothing else',
    )
  })

  it('refuses a signature of anything but the issued message: 0xE4, nothing sent', async () => {
    const intent = transfer(201)
    const asked = await execute(intent)
    assert.equal(asked.structuredContent.erc1066Status, '0xE5')
    const before = {
      dollars: await dollarsOf(devnet.demo.agent.address as Address),
      relayer: await lamportsOf(relayer),
    }
    const other = `0x${Buffer.from(ed25519Seed.sign(devnet.demo.agent.secretKey, Buffer.from('another message'))).toString('hex')}`
    const refused = await execute({ ...intent, signature: other })
    assert.equal(refused.isError, true)
    assert.equal(refused.structuredContent.httpStatus, 401, JSON.stringify(refused.structuredContent))
    assert.equal(refused.structuredContent.erc1066Status, '0xE4')
    assert.deepEqual(
      { dollars: await dollarsOf(devnet.demo.agent.address as Address), relayer: await lamportsOf(relayer) },
      before,
    )
  })
})
