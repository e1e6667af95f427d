// x402 payments when the gateway is killed with SIGKILL around a settlement, through a remote
// facilitator (a stand-in speaking x402's facilitator protocol over x402's own facilitator on
// anvil): between the reservation and the settlement, and between the settlement and the
// broadcast. After the restart nothing is charged twice, nothing runs unpaid, and the intent's
// record lists what became of its payment.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { eventually } from '../support/eventually.ts'
import { type FacilitatorStandIn, type SettleMode, startFacilitatorStandIn } from '../support/facilitatorStandIn.ts'
import { chainEnv, startGatewayProcess } from '../support/gatewayProcess.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import type { GatewayProcess } from '../support/runGateway.ts'
import { post, request, rpc, signedIntent } from '../support/testGateway.ts'

const price = 10_000n
const chainHeader = { 'x-chain-id': '31337' }

describe('x402 payments across a SIGKILL of the gateway (remote facilitator)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payments-crash-'))
  let devnet: Devnet
  let standIn: FacilitatorStandIn
  let clients: ReturnType<typeof createDevClients>
  let env: Record<string, string>
  const running = new Set<GatewayProcess>()
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const treasury = privateKeyToAccount(devnetAccounts.treasury).address
  const balanceOf = (who: Address) =>
    clients.publicClient.readContract({
      address: devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  const executed = async (intentHash: Hex) => {
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
  const start = async (journal: string, overrides: Record<string, string> = {}) => {
    const started = await startGatewayProcess({
      ...env,
      JOURNAL_PATH: join(dir, journal),
      RECONCILE_INTERVAL_MS: '200',
      ...overrides,
    })
    running.add(started.gw)
    return started
  }
  const kill = async (gw: GatewayProcess) => {
    gw.child.kill('SIGKILL')
    await gw.exit
    running.delete(gw)
  }
  const stop = async (gw: GatewayProcess) => {
    gw.child.kill('SIGTERM')
    assert.equal(await gw.exit, 0)
    running.delete(gw)
  }
  /** A paid execute through the unmodified @x402/fetch client; undefined when the gateway died under it. */
  const paidExecute = (baseUrl: string, body: unknown) =>
    payingClient(devnet)
      .fetch(`${baseUrl}/intents/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...chainHeader },
        body: JSON.stringify(body),
      })
      .catch(() => undefined)
  /** A paid execute whose settlement the facilitator takes in `mode`; the gateway is killed with SIGKILL at that moment. */
  const killAtSettlement = async (gw: GatewayProcess, baseUrl: string, body: unknown, mode: SettleMode) => {
    standIn.mode = mode
    const held = standIn.nextHeld()
    const answer = paidExecute(baseUrl, body)
    await held
    await kill(gw)
    const seen = await answer
    standIn.mode = 'pass'
    return seen
  }
  const paymentsOf = async (baseUrl: string, intentHash: Hex) =>
    (await request(baseUrl, `/intents/${intentHash}`, { headers: chainHeader })).body.payments as Array<{
      state: string
      reason?: string
      transaction?: string
    }>
  /** The intent, and its hash as the gateway computes it (validate is free). */
  const newIntent = async (baseUrl: string, nonce: string) => {
    const body = await signedIntent(devnet, { nonce })
    const intentHash = (await post(baseUrl, '/intents/validate', body, chainHeader)).headers.get('x-intent-hash') as Hex
    return { body, intentHash }
  }

  /** Execute's price; an authorization is valid for `seconds` after the client signs it. */
  const prices = (seconds: number) => {
    const { payment } = devnet.demo
    return JSON.stringify({
      [`eip155:${devnet.anvil.chainId}`]: {
        execute: {
          asset: payment.asset,
          amount: price.toString(),
          payTo: payment.payTo,
          extra: { name: payment.name, version: payment.version },
          maxTimeoutSeconds: seconds,
        },
      },
    })
  }

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    standIn = await startFacilitatorStandIn({
      rpcUrl: devnet.anvil.rpcUrl,
      network: `eip155:${devnet.anvil.chainId}`,
      privateKey: devnetAccounts.facilitator,
    })
    env = { ...chainEnv(devnet), X402_PRICES: prices(60), FACILITATOR_URL: standIn.url }
  })
  after(async () => {
    for (const gw of running) gw.child.kill('SIGKILL')
    await standIn?.close()
    await devnet?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('killed between reservation and settlement, the settlement never sent: nothing charged or run; the reservation is released once the authorization expires, and the intent is then paid and run once', async () => {
    // Authorizations valid for 10 s, so that this one expires while the test waits.
    const shortLived = { X402_PRICES: prices(10) }
    let { gw, baseUrl } = await start('never-settled.sqlite', shortLived)
    const { body, intentHash } = await newIntent(baseUrl, '700')
    const before = await balanceOf(payer)
    assert.equal(await killAtSettlement(gw, baseUrl, body, 'hold'), undefined, 'the client saw the connection die')
    await standIn.releaseHeld('drop')

    ;({ gw, baseUrl } = await start('never-settled.sqlite', shortLived))
    // Unused, but a remote facilitator may still hold it: reserved, not released, until it expires.
    assert.deepEqual(
      (await paymentsOf(baseUrl, intentHash)).map((p) => p.state),
      ['reserved'],
    )
    const released = await eventually('the expired reservation released', 30_000, async () => {
      await rpc(devnet.anvil.rpcUrl, 'evm_mine', []) // a block whose timestamp the expiry is judged by
      const payments = await paymentsOf(baseUrl, intentHash)
      return payments[0]?.state === 'released' ? payments : undefined
    })
    assert.match(released[0]!.reason!, /expired unused, nothing was charged/)
    assert.equal(await balanceOf(payer), before)
    assert.equal(await executed(intentHash), 0, 'nothing ran unpaid')

    const res = await paidExecute(baseUrl, body)
    assert.equal(res?.status, 200)
    assert.equal(await balanceOf(payer), before - price)
    assert.equal(await executed(intentHash), 1)
    assert.deepEqual(
      (await paymentsOf(baseUrl, intentHash)).map((p) => p.state),
      ['released', 'consumed'],
    )
    await stop(gw)
  })

  it('killed between reservation and settlement, the facilitator settling after the restart: the payment is found settled and pays for the intent, which then runs once without a second charge', async () => {
    let { gw, baseUrl } = await start('settled-late.sqlite')
    const { body, intentHash } = await newIntent(baseUrl, '701')
    const [payerBefore, treasuryBefore] = [await balanceOf(payer), await balanceOf(treasury)]
    await killAtSettlement(gw, baseUrl, body, 'hold')

    ;({ gw, baseUrl } = await start('settled-late.sqlite'))
    assert.deepEqual(
      (await paymentsOf(baseUrl, intentHash)).map((p) => p.state),
      ['reserved'],
      'not released at start-up: the settlement may still come',
    )
    await standIn.releaseHeld('settle') // the facilitator finishes what it was asked before the crash
    const settled = await eventually('the late settlement found', 10_000, async () => {
      const payments = await paymentsOf(baseUrl, intentHash)
      return payments[0]?.state === 'settled' ? payments : undefined
    })
    assert.equal(settled[0]!.transaction, standIn.settled.at(-1))
    assert.equal(await balanceOf(payer), payerBefore - price)
    assert.equal(await executed(intentHash), 0)

    // No payment sent: the credit pays.
    const res = await post(baseUrl, '/intents/execute', body, chainHeader)
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.status, '0x11')
    assert.equal(decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction, standIn.settled.at(-1))
    assert.equal(await executed(intentHash), 1)
    assert.equal(await balanceOf(payer), payerBefore - price, 'charged once')
    assert.equal(await balanceOf(treasury), treasuryBefore + price)
    assert.deepEqual(
      (await paymentsOf(baseUrl, intentHash)).map((p) => p.state),
      ['consumed'],
    )
    await stop(gw)
  })

  it('killed between settlement and broadcast: at the restart the payment is settled and credited to its intent, which runs once without a second charge; a new payment for it is not taken', async () => {
    let { gw, baseUrl } = await start('settled-not-sent.sqlite')
    const { body, intentHash } = await newIntent(baseUrl, '702')
    const before = await balanceOf(payer)
    await killAtSettlement(gw, baseUrl, body, 'settle-then-hold')
    assert.equal(await balanceOf(payer), before - price, 'the settlement mined')
    assert.equal(await executed(intentHash), 0, 'the execution was never sent')

    ;({ gw, baseUrl } = await start('settled-not-sent.sqlite'))
    const payments = await paymentsOf(baseUrl, intentHash)
    assert.deepEqual(
      payments.map((p) => p.state),
      ['settled'],
      'resolved at start-up, before any request',
    )
    assert.equal(payments[0]!.transaction, standIn.settled.at(-1))
    // The agent retries with a fresh payment: the credit pays instead, the new authorization is not used.
    const res = await paidExecute(baseUrl, body)
    assert.equal(res?.status, 200)
    assert.equal(await executed(intentHash), 1)
    assert.equal(await balanceOf(payer), before - price, 'charged once')
    assert.deepEqual(
      (await paymentsOf(baseUrl, intentHash)).map((p) => p.state),
      ['consumed'],
    )
    await stop(gw)
  })
})
