// Issue 43's full campaign, seed 123352216: a payer charged 32 × the price for 30 intents. Two
// settlements were in flight from the in-process facilitator when the gateway was killed: the
// first (nonce N) lost on the way, the second (N + 1) delivered, which the node keeps queued behind
// the gap. The restart asked the facilitator's pending count (N: the queued one does not show),
// found nothing unmined and released both payments; the clients paid again; the new process's
// first settlement filled nonce N, the queued one landed and took the released payment's money,
// and the new settlement of that intent collided with it at N + 1, failed, and was paid a third
// time. Now the node's txpool is asked at start-up too: a queued settlement keeps its payment
// reserved, found settled once it lands, and a credit for its intent.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Address, type Hex, parseTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { chainEnv, startGatewayProcess } from '../support/gatewayProcess.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { type RpcHoldProxy, startRpcHoldProxy } from '../support/rpcHoldProxy.ts'
import type { GatewayProcess } from '../support/runGateway.ts'
import { rpc, signedIntent } from '../support/testGateway.ts'

const price = 10_000n

describe('x402 on EVM: a settlement queued in the node behind a lost one when the gateway died', () => {
  const dir = mkdtempSync(join(tmpdir(), 'settlement-queued-'))
  let devnet: Devnet
  let proxy: RpcHoldProxy
  let clients: ReturnType<typeof createDevClients>
  const running = new Set<GatewayProcess>()
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const facilitator = privateKeyToAccount(devnetAccounts.facilitator).address
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
  const start = async () => {
    const { payment } = devnet.demo
    const prices = JSON.stringify({
      [`eip155:${devnet.anvil.chainId}`]: {
        // Short-lived authorizations: the lost settlement's payment is released once its validBefore passes.
        execute: {
          asset: payment.asset,
          amount: price.toString(),
          payTo: payment.payTo,
          extra: { name: payment.name, version: payment.version },
          maxTimeoutSeconds: 12,
        },
      },
    })
    const started = await startGatewayProcess({
      ...chainEnv(devnet),
      RPC_URLS: JSON.stringify({ [devnet.anvil.chainId]: proxy.url }),
      JOURNAL_PATH: join(dir, 'journal.sqlite'),
      RECONCILE_INTERVAL_MS: '200',
      X402_PRICES: prices,
      FACILITATOR_PRIVATE_KEY: devnetAccounts.facilitator,
    })
    running.add(started.gw)
    return started
  }
  const paidExecute = (baseUrl: string, body: unknown) =>
    payingClient(devnet)
      .fetch(`${baseUrl}/intents/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-chain-id': '31337' },
        body: JSON.stringify(body),
      })
      .then(async (r) => ({ status: r.status, hash: r.headers.get('x-intent-hash') as Hex, text: await r.text() }))
      .catch((err: unknown) => ({ status: 0, hash: undefined as unknown as Hex, text: String((err as Error).message) }))

  before(async () => {
    // Blocks every second, as on a chain: the lost settlement's authorization expires by the chain's time.
    devnet = await startDevnet({ blockTime: 1 })
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    proxy = await startRpcHoldProxy(devnet.anvil.rpcUrl)
  })
  after(async () => {
    for (const gw of running) {
      gw.child.kill('SIGKILL')
      await gw.exit
    }
    await proxy?.close()
    await devnet?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it("keeps the queued settlement's payment reserved at the restart (a credit once it lands), and the payer pays exactly once per intent", async () => {
    const first = await start()
    const intents = [await signedIntent(devnet, { nonce: '4401' }), await signedIntent(devnet, { nonce: '4402' })]
    const payerBefore = await balanceOf(payer)

    // Both settlements held at the proxy; then the later nonce delivered (queued behind the gap), the earlier lost, the gateway killed.
    proxy.holdSends(true)
    for (const intent of intents) void paidExecute(first.baseUrl, intent)
    await eventually('both settlements broadcast', 20_000, async () => (proxy.heldSends() === 2 ? true : undefined))
    const nonces = proxy
      .heldBodies()
      .map((body) => parseTransaction((JSON.parse(body) as { params: [Hex] }).params[0]).nonce!)
    await proxy.flushSend(nonces[0]! > nonces[1]! ? 0 : 1)
    first.gw.child.kill('SIGKILL')
    await first.gw.exit
    running.delete(first.gw)
    proxy.dropSends()
    proxy.holdSends(false)
    const pool = (await rpc(devnet.anvil.rpcUrl, 'txpool_content', [])) as {
      queued: Record<string, Record<string, unknown>>
    }
    assert.equal(
      Object.keys(
        Object.entries(pool.queued).find(([from]) => from.toLowerCase() === facilitator.toLowerCase())?.[1] ?? {},
      ).length,
      1,
      'the later settlement waits queued in the node',
    )

    // Restarted: the agents send their intents again, as the x402 client does, until served.
    const second = await start()
    const served = await Promise.all(
      intents.map(async (intent) => {
        for (let i = 0; i < 60; i++) {
          const answer = await paidExecute(second.baseUrl, intent)
          if (answer?.status === 200) return answer
          await new Promise((r) => setTimeout(r, 1_000))
        }
        return undefined
      }),
    )
    assert.ok(
      served.every((s) => s?.status === 200),
      `both served: ${JSON.stringify(served)}`,
    )
    const hashes = served.map((s) => s!.hash)
    await eventually('both executed', 10_000, async () =>
      (await Promise.all(hashes.map(executions))).every((n) => n === 1) ? true : undefined,
    )
    assert.equal(await balanceOf(payer), payerBefore - 2n * price, 'charged exactly once per intent')
  })
})
