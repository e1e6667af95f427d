// A stuck type-4 transaction (account mode's first execute, carrying the agent's EIP-7702
// authorization) re-priced by the reconciler: the replacement keeps the same one authorization, so
// it still delegates the account and runs the intent once; re-priced as a plain EIP-1559
// transaction the call would meet a code-less EOA and do nothing. Anvil with automine off and the
// base fee raised above the first attempt's max fee, as in stuckTransactions.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { concatHex, encodeFunctionData, type Hex, parseGwei, parseTransaction, parseUnits } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { accountIntents } from '../support/accountIntents.ts'
import { eventually } from '../support/eventually.ts'
import { post, request, rpc, startTestGateway, type TestGateway, type World } from '../support/testGateway.ts'

const relayer = privateKeyToAccount(devnetAccounts.relayer).address
const agent = privateKeyToAccount(devnetAccounts.agent)
const recipient = privateKeyToAccount(devnetAccounts.treasury).address

describe('a stuck type-4 transaction is re-priced with its authorization list', () => {
  let devnet: Devnet
  let gateway: TestGateway
  let world: World
  const t = accountIntents(() => world, relayer)
  before(async () => {
    devnet = await startDevnet()
    gateway = await startTestGateway({
      chains: [devnet.chain],
      receiptTimeoutMs: 300,
      reconcileIntervalMs: 300,
      maxFeePerGas: Number(parseGwei('10000')),
    })
    world = {
      devnet,
      gateway,
      clients: createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId),
      stop: async () => {},
    }
  })
  after(async () => {
    await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true]).catch(() => undefined)
    await gateway?.close()
    await devnet?.stop()
  })

  it('re-signs it as a type-4 carrying the same authorization: the replacement delegates the agent and moves its DemoDollar once; the relayer pays only the replacement', async () => {
    const { publicClient } = world.clients
    const amount = parseUnits('3', 6)
    const batch = {
      sender: agent.address,
      calls: [
        {
          target: devnet.contracts.dollar,
          value: 0n,
          data: encodeFunctionData({
            abi: demoDollarArtifact.abi,
            functionName: 'transfer',
            args: [recipient, amount],
          }),
        },
      ],
      nonce: 77n,
      validAfter: 0n,
      validBefore: 0n,
      policyId: devnet.demo.account.policies.own,
    }
    const authorization = await t.authorize(agent)
    const before = {
      agentEth: await t.ethOf(agent.address),
      agentDollars: await t.dollarsOf(agent.address),
      relayerEth: await t.ethOf(relayer),
    }

    await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    const res = await post(
      gateway.baseUrl,
      '/intents/execute',
      t.batchBody(batch, await t.signBatch(batch, agent), { authorization }),
      t.headers(),
    )
    assert.equal(res.status, 202, res.text)
    const first = await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionByHash', [res.body.transactionHash])
    assert.equal(first.type, '0x4')
    await rpc(devnet.anvil.rpcUrl, 'anvil_setNextBlockBaseFeePerGas', [
      `0x${(BigInt(first.maxFeePerGas) * 20n).toString(16)}`,
    ])
    await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
    assert.equal(
      await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionReceipt', [res.body.transactionHash]),
      null,
      'underpriced: mined without it',
    )

    const intentHash = res.body.intentHash as Hex
    const replacement = await eventually('a re-priced attempt', 15_000, async () => {
      const r = await gateway.journal.get(intentHash)
      return r?.attempt === 2 ? r : undefined
    })
    const raw = `0x${Buffer.from(replacement.transaction!.bytes, 'base64').toString('hex')}` as Hex
    const parsed = parseTransaction(raw)
    assert.equal(parsed.type, 'eip7702', 'still a type-4')
    assert.deepEqual(
      parsed.authorizationList?.map((a) => ({
        chainId: a.chainId,
        address: a.address.toLowerCase(),
        nonce: a.nonce,
        r: a.r,
        s: a.s,
        yParity: a.yParity,
      })),
      [
        {
          chainId: authorization.chainId,
          address: authorization.address.toLowerCase(),
          nonce: authorization.nonce,
          r: authorization.r,
          s: authorization.s,
          yParity: authorization.yParity,
        },
      ],
      'exactly the agent’s authorization',
    )
    assert.ok(parsed.maxFeePerGas! >= (BigInt(first.maxFeePerGas) * 1125n) / 1000n, 'fees raised')

    // The journal has the replacement before the node does (journaled, then broadcast): mine only
    // once the node holds it, or the block may go out without it (automine is off).
    await eventually(
      'the replacement at the node',
      15_000,
      async () =>
        (await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionByHash', [replacement.transaction!.id])) ?? undefined,
    )
    await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
    const final = await eventually('the intent to be settled', 15_000, async () => {
      const r = await request(gateway.baseUrl, `/intents/${intentHash}`)
      return r.status === 200 ? r : undefined
    })
    assert.deepEqual([final.body.state, final.body.transactionHash], ['mined', replacement.transaction!.id], final.text)
    assert.equal(
      await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionReceipt', [res.body.transactionHash]),
      null,
      'the first attempt never mined',
    )
    assert.equal(
      await t.codeOf(agent.address),
      concatHex(['0xef0100', devnet.contracts.accountDelegate]).toLowerCase(),
      'delegated by the replacement',
    )
    const receipt = await publicClient.getTransactionReceipt({ hash: replacement.transaction!.id as Hex })
    assert.equal(await t.dollarsOf(agent.address), before.agentDollars - amount, 'moved once')
    assert.equal(await t.ethOf(agent.address), before.agentEth, 'the agent paid no gas')
    assert.equal(
      await t.ethOf(relayer),
      before.relayerEth - receipt.gasUsed * receipt.effectiveGasPrice,
      'the relayer paid the replacement only',
    )
  })
})
