// x402 settlements orphaned by a reorg (anvil_reorg, real blocks), with CONFIRMATIONS=3, on both
// journal engines: a paid execute's settlement counts as settled at its first receipt and the
// intent is sent; then the blocks holding the settlement (and the execution) are replaced. The
// periodic re-check sends the same signed authorization again (the payer charged exactly once, the
// intent run once, the payment settled at depth), or, when the authorization can no longer be used
// on the new chain (expired, cancelled by its payer), reports the payment `reorged`: the payer
// not charged, the intent not run twice, a log line and a metric.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import { type Address, encodeFunctionData, type Hex, keccak256, parseAbi, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { parseMetrics, valueOf } from '../support/parseMetrics.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.ts'
import { type RpcHoldProxy, startRpcHoldProxy } from '../support/rpcHoldProxy.ts'
import { post, request, rpc, signedIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

const price = 10_000n
const payerAccount = privateKeyToAccount(devnetAccounts.payer)
const cancelAbi = parseAbi(['function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)'])

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`x402 settlements orphaned by a reorg (EVM, CONFIRMATIONS=3, ${engine} journal)`, () => {
    let devnet: Devnet
    let gateway: TestGateway
    let database: TestDatabase | undefined
    let proxy: RpcHoldProxy
    let clients: ReturnType<typeof createDevClients>
    let nextNonce = 700
    const chainId = () => `eip155:${devnet.anvil.chainId}`
    const balanceOf = (who: Address) =>
      clients.publicClient.readContract({
        address: devnet.contracts.dollar,
        abi: demoDollarArtifact.abi,
        functionName: 'balanceOf',
        args: [who],
      })
    const executions = async (intentHash: Hex) => {
      const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
      return (
        await clients.publicClient.getLogs({
          address: devnet.contracts.executor,
          event,
          args: { intentHash },
          fromBlock: 0n,
        })
      ).length
    }
    const paymentOf = async (intentHash: Hex) => (await gateway.journal.payments.forIntent(chainId(), intentHash))[0]!
    const metric = async (outcome: string) =>
      valueOf(
        parseMetrics(await gateway.metrics.registry.getSingleMetricAsString('intent_gateway_payments_total')),
        'intent_gateway_payments_total',
        { chain: chainId(), outcome },
      ) ?? 0

    /** A paid execute, answered 202 (mined, not final); its payment settled on a recorded block. */
    async function paidExecute() {
      const intent = await signedIntent(devnet, { nonce: String(nextNonce++) })
      const unpaid = await post(gateway.baseUrl, '/intents/execute', intent)
      assert.equal(unpaid.status, 402, unpaid.text)
      const payload: PaymentPayload = await payingClient(devnet).client.createPaymentPayload(
        decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!),
      )
      const payerBefore = await balanceOf(payerAccount.address)
      const paid = await post(gateway.baseUrl, '/intents/execute', intent, {
        'payment-signature': encodePaymentSignatureHeader(payload),
      })
      assert.equal(paid.status, 202, paid.text)
      assert.equal(paid.body.state, 'mined', paid.text)
      const intentHash = paid.body.intentHash as Hex
      const settled = await paymentOf(intentHash)
      // A credit until its execution is final (CONFIRMATIONS deep): then consumed.
      assert.equal(settled.state, 'settled')
      assert.ok(settled.settlementBlock, 'the block that mined the settlement is recorded')
      assert.equal(settled.settlementFinal, false)
      assert.equal(await balanceOf(payerAccount.address), payerBefore - price)
      const authorization = (payload.payload as { authorization: { nonce: Hex; validBefore: string } }).authorization
      return { intentHash, payerBefore, settled, authorization }
    }

    /** Replaces every block from `from` on with as many new ones (holding `transactions`, raw, in the first). */
    async function reorgFrom(from: bigint, transactions: Hex[] = []) {
      const head = await clients.publicClient.getBlockNumber()
      await rpc(devnet.anvil.rpcUrl, 'anvil_reorg', [Number(head - from + 1n), transactions.map((tx) => [tx, 0])])
    }

    before(async () => {
      devnet = await startDevnet()
      clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
      proxy = await startRpcHoldProxy(devnet.anvil.rpcUrl)
      database = engine === 'postgres' ? await createTestDatabase('settlereorg') : undefined
      gateway = await startTestGateway({
        chains: [{ ...devnet.chain, rpcUrls: [proxy.url] }],
        payments: devnet.payments,
        confirmations: 3,
        reconcileIntervalMs: 200,
        ...(database
          ? {
              storageOptions: { postgres: { url: database.url } },
              storage: { redisUrl: undefined, instanceId: 'settlement-reorg' },
            }
          : {}),
      })
    })
    after(async () => {
      if (process.env.SETTLEMENT_REORG_LOGS)
        (await import('node:fs')).writeFileSync(`${process.env.SETTLEMENT_REORG_LOGS}.${engine}`, gateway.logs.join(''))
      await gateway?.close()
      await proxy?.close()
      await devnet?.stop()
      await database?.drop()
    })

    it('sends an orphaned settlement again: the payer charged once, the intent run once, the payment final at depth', async () => {
      const { intentHash, payerBefore, settled } = await paidExecute()
      await reorgFrom(settled.settlementBlock!.number)
      assert.equal(await balanceOf(payerAccount.address), payerBefore, 'the reorg took the settlement away')

      const resent = await eventually('the settlement sent again', 20_000, async () => {
        const p = await paymentOf(intentHash)
        return p.transaction !== settled.transaction && p.settlementBlock ? p : undefined
      })
      assert.equal(resent.state, 'settled')
      assert.ok(gateway.logs.some((l) => l.includes('the same signed authorization sent again')))
      // The execution the reorg took too is sent again by the reconciler; then both are made deep.
      await eventually('the execution mined again', 20_000, async () =>
        (await executions(intentHash)) === 1 ? true : undefined,
      )
      await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x3'])
      const final = await eventually('the settlement final at depth and its execution delivered', 20_000, async () => {
        const p = await paymentOf(intentHash)
        return p.settlementFinal && p.state === 'consumed' ? p : undefined
      })
      assert.equal(final.state, 'consumed')
      assert.equal(final.transaction, resent.transaction)
      const onChain = await clients.publicClient.getBlock({ blockNumber: final.settlementBlock!.number })
      assert.equal(onChain.hash, final.settlementBlock!.hash, 'the ledger names a block of the chain as it is now')
      assert.equal(await balanceOf(payerAccount.address), payerBefore - price, 'the payer paid exactly the price, once')
      assert.equal(await executions(intentHash), 1, 'the intent ran once')
      const report = await request(gateway.baseUrl, `/intents/${intentHash}`)
      assert.equal(report.body.payments[0].state, 'consumed')
      assert.equal(report.body.payments[0].transaction, final.transaction)
      assert.equal(await metric('resent'), 1)
    })

    it('follows an orphaned settlement mined again in the replacing chain: charged once, final at depth, nothing sent again', async () => {
      const { intentHash, payerBefore, settled } = await paidExecute()
      const resentBefore = await metric('resent')
      // The replacing chain holds the very same settlement transaction, in a block of its own.
      const raw = (await rpc(devnet.anvil.rpcUrl, 'eth_getRawTransactionByHash', [settled.transaction])) as Hex
      await reorgFrom(settled.settlementBlock!.number, [raw])
      const moved = await eventually('the settlement followed to its new block', 20_000, async () => {
        const p = await paymentOf(intentHash)
        return p.settlementBlock && p.settlementBlock.hash !== settled.settlementBlock!.hash ? p : undefined
      })
      assert.equal(moved.transaction, settled.transaction, 'the same transaction, not another')
      assert.ok(gateway.logs.some((l) => l.includes('mined again in another block')))
      await eventually('the execution mined again', 20_000, async () =>
        (await executions(intentHash)) === 1 ? true : undefined,
      )
      await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x3'])
      const final = await eventually('the settlement final at depth and its execution delivered', 20_000, async () => {
        const p = await paymentOf(intentHash)
        return p.settlementFinal && p.state === 'consumed' ? p : undefined
      })
      assert.equal(final.transaction, settled.transaction)
      assert.equal(
        (await clients.publicClient.getBlock({ blockNumber: final.settlementBlock!.number })).hash,
        final.settlementBlock!.hash,
      )
      assert.equal(await balanceOf(payerAccount.address), payerBefore - price, 'the payer paid exactly the price, once')
      assert.equal(await executions(intentHash), 1, 'the intent ran once')
      assert.equal(await metric('resent'), resentBefore, 'nothing was sent again')
    })

    it('follows an orphaned settlement whose authorization another transaction used in the replacing chain: charged once, nothing sent again', async () => {
      const { intentHash, payerBefore, settled } = await paidExecute()
      const resentBefore = await metric('resent')
      // Anyone holding the signed authorization may send it: here another account, in the replacing chain.
      const original = await clients.publicClient.getTransaction({ hash: settled.transaction as Hex })
      const stranger = privateKeyToAccount(devnetAccounts.deployer)
      const usedByStranger = await stranger.signTransaction({
        chainId: devnet.anvil.chainId,
        type: 'eip1559',
        to: original.to!,
        data: original.input,
        nonce: await clients.publicClient.getTransactionCount({
          address: stranger.address,
          blockNumber: settled.settlementBlock!.number - 1n,
        }),
        gas: 200_000n,
        maxFeePerGas: parseGwei('100'),
        maxPriorityFeePerGas: parseGwei('1'),
      })
      await reorgFrom(settled.settlementBlock!.number, [usedByStranger])
      const moved = await eventually("the stranger's settlement recorded", 20_000, async () => {
        const p = await paymentOf(intentHash)
        return p.transaction !== settled.transaction && p.settlementBlock ? p : undefined
      })
      assert.equal(moved.transaction, keccak256(usedByStranger))
      assert.ok(gateway.logs.some((l) => l.includes('its authorization was used by another transaction')))
      await eventually('the execution mined again', 20_000, async () =>
        (await executions(intentHash)) === 1 ? true : undefined,
      )
      await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x3'])
      await eventually('the settlement final at depth', 20_000, async () =>
        (await paymentOf(intentHash)).settlementFinal ? true : undefined,
      )
      assert.equal(await balanceOf(payerAccount.address), payerBefore - price, 'the payer paid exactly the price, once')
      assert.equal(await executions(intentHash), 1, 'the intent ran once')
      assert.equal(await metric('resent'), resentBefore, 'nothing was sent again')
    })

    it('reports a settlement `reorged` when its payer cancelled the authorization on the new chain', async () => {
      const { intentHash, payerBefore, settled, authorization } = await paidExecute()
      // The payer's cancelAuthorization, mined in the first block of the chain that replaces the settlement's.
      const forkParent = settled.settlementBlock!.number - 1n
      const signature = await payerAccount.signTypedData({
        domain: {
          name: devnet.demo.payment.name,
          version: devnet.demo.payment.version,
          chainId: devnet.anvil.chainId,
          verifyingContract: devnet.contracts.dollar,
        },
        types: {
          CancelAuthorization: [
            { name: 'authorizer', type: 'address' },
            { name: 'nonce', type: 'bytes32' },
          ],
        },
        primaryType: 'CancelAuthorization',
        message: { authorizer: payerAccount.address, nonce: authorization.nonce },
      })
      const cancel = await payerAccount.signTransaction({
        chainId: devnet.anvil.chainId,
        type: 'eip1559',
        to: devnet.contracts.dollar,
        data: encodeFunctionData({
          abi: cancelAbi,
          functionName: 'cancelAuthorization',
          args: [payerAccount.address, authorization.nonce, signature],
        }),
        nonce: await clients.publicClient.getTransactionCount({
          address: payerAccount.address,
          blockNumber: forkParent,
        }),
        gas: 100_000n,
        maxFeePerGas: parseGwei('100'),
        maxPriorityFeePerGas: parseGwei('1'),
      })
      await reorgFrom(settled.settlementBlock!.number, [cancel])
      const reorged = await eventually('the payment reorged', 20_000, async () => {
        const p = await paymentOf(intentHash)
        return p.state === 'reorged' ? p : undefined
      })
      assert.match(reorged.reason!, /the payer cancelled the authorization on the chain that replaced it/)
      await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x3'])
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      assert.equal(await balanceOf(payerAccount.address), payerBefore, 'the payer was not charged')
      assert.ok((await executions(intentHash)) <= 1, 'the intent did not run twice')
      assert.equal((await paymentOf(intentHash)).state, 'reorged')
    })

    it('reports a settlement `reorged` when its authorization expired on the new chain: nothing charged, nothing run twice', async () => {
      const { intentHash, payerBefore, settled, authorization } = await paidExecute()
      const reorgedBefore = await metric('reorged')
      // The chain that replaces the settlement's block moves past the authorization's validBefore.
      // anvil_reorg keeps the replaced blocks' times, so time moves on right after it; meanwhile the
      // gateway's broadcasts are held (and dropped): a re-send in between must not land before it.
      proxy.holdSends(true)
      await reorgFrom(settled.settlementBlock!.number)
      const head = await clients.publicClient.getBlock()
      await rpc(devnet.anvil.rpcUrl, 'evm_increaseTime', [
        Number(BigInt(authorization.validBefore) - head.timestamp) + 1,
      ])
      await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x1'])
      proxy.dropSends()
      proxy.holdSends(false)
      const reorged = await eventually('the payment reorged', 20_000, async () => {
        const p = await paymentOf(intentHash)
        return p.state === 'reorged' ? p : undefined
      })
      assert.match(
        reorged.reason!,
        /^reorged: the settlement 0x[0-9a-f]{64} was orphaned by a reorg and cannot be sent again: its authorization expired/,
      )
      assert.ok(
        gateway.logs.some((l) =>
          l.includes('x402 settlement reorged: orphaned and cannot be sent again; nothing charged'),
        ),
      )
      await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x3'])
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      assert.equal(await balanceOf(payerAccount.address), payerBefore, 'the payer was not charged')
      assert.ok((await executions(intentHash)) <= 1, 'the intent did not run twice')
      assert.equal((await paymentOf(intentHash)).state, 'reorged', 'it stays reorged')
      const report = await request(gateway.baseUrl, `/intents/${intentHash}`)
      assert.equal(report.body.payments[0].state, 'reorged')
      assert.equal(report.body.payments[0].reason, reorged.reason)
      assert.equal(await metric('reorged'), reorgedBefore + 1)
    })
  })
}
