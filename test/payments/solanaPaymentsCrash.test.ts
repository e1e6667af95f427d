// x402 on Solana across a SIGKILL of the gateway (its own process, `npm start` pointed at the
// LiteSVM devnet, the in-process facilitator): between the reservation and the settlement (the
// settlement then sent late by the node's queue, or never), and while a settlement is pending.
// After the restart the ledger (not a process's memory) says what became of each payment: the
// payer pays exactly the price, once, and the intent runs once.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { type SolanaDevnet, startSolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { eventually } from '../support/eventually.ts'
import { startGatewayProcess } from '../support/gatewayProcess.ts'
import { type RpcHoldProxy, startRpcHoldProxy } from '../support/rpcHoldProxy.ts'
import type { GatewayProcess } from '../support/runGateway.ts'
import { signedSolanaIntent, solanaChainEnv, solanaPayingClient } from '../support/solanaPayments.ts'
import { post, request } from '../support/testGateway.ts'

describe('x402 on Solana across a SIGKILL of the gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'solana-payments-crash-'))
  let devnet: SolanaDevnet
  let proxy: RpcHoldProxy
  const running = new Set<GatewayProcess>()
  const price = 10_000n
  const payerBalance = () => devnet.payment.balanceOf(devnet.payment.payer)
  const recipientLamports = async () => (await devnet.rpc.getBalance(devnet.demo.recipient).send()).value
  const start = async (journal: string) => {
    const started = await startGatewayProcess({
      ...solanaChainEnv(devnet, { rpcUrl: proxy.url }),
      JOURNAL_PATH: join(dir, journal),
      RECONCILE_INTERVAL_MS: '200',
      RECEIPT_TIMEOUT_MS: '1500',
    })
    running.add(started.gw)
    return started
  }
  const kill = async (gw: GatewayProcess) => {
    gw.child.kill('SIGKILL')
    await gw.exit
    running.delete(gw)
  }
  const execute = (baseUrl: string, body: unknown, headers: Record<string, string> = {}) =>
    post(baseUrl, '/intents/execute', body, { 'x-chain-id': devnet.chainId, ...headers })
  const state = (baseUrl: string, intentHash: string) =>
    request(baseUrl, `/intents/${intentHash}`, { headers: { 'x-chain-id': devnet.chainId } })
  async function paymentHeader(baseUrl: string, body: unknown): Promise<string> {
    const unpaid = await execute(baseUrl, body)
    assert.equal(unpaid.status, 402, unpaid.text)
    const { client } = await solanaPayingClient(devnet)
    return encodePaymentSignatureHeader(
      await client.createPaymentPayload(decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!)),
    )
  }

  /**
   * A paid execute whose settlement broadcast is held, the gateway killed, then started again on the
   * same journal; the broadcast lost (`lost`), else still held (the node's queue: sent by flushSends).
   */
  async function killedWithSettlementHeld(journal: string, { lost }: { lost: boolean }) {
    const first = await start(journal)
    const { body, intentHash } = signedSolanaIntent(devnet)
    const header = await paymentHeader(first.baseUrl, body)
    const [payerBefore, lamportsBefore] = [await payerBalance(), await recipientLamports()]
    proxy.holdSends(true)
    void execute(first.baseUrl, body, { 'payment-signature': header }).catch(() => undefined)
    await eventually('the settlement broadcast held', 10_000, async () => (proxy.heldSends() === 1 ? true : undefined))
    await kill(first.gw)
    if (lost) {
      proxy.dropSends()
      proxy.holdSends(false)
    }
    return { second: await start(journal), body, intentHash, header, payerBefore, lamportsBefore }
  }

  before(async () => {
    devnet = await startSolanaDevnet()
    proxy = await startRpcHoldProxy(devnet.rpcUrl)
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

  it('killed between reservation and settlement, the settlement landing after the crash: found by its id at restart, a credit that runs the intent once without a second charge', async () => {
    const first = await start('late.sqlite')
    const { body, intentHash } = signedSolanaIntent(devnet)
    const header = await paymentHeader(first.baseUrl, body)
    const [payerBefore, lamportsBefore] = [await payerBalance(), await recipientLamports()]
    proxy.holdSends(true)
    const inFlight = execute(first.baseUrl, body, { 'payment-signature': header }).catch(() => undefined)
    await eventually('the settlement broadcast held', 10_000, async () => (proxy.heldSends() === 1 ? true : undefined))
    await kill(first.gw)
    assert.equal(await inFlight, undefined, 'the request died with the gateway')
    proxy.holdSends(false)
    await proxy.flushSends() // the node sends what it had queued: the transfer lands
    assert.equal(await payerBalance(), payerBefore - price)

    const second = await start('late.sqlite')
    const credit = await eventually('the settlement found', 10_000, async () => {
      const s = await state(second.baseUrl, intentHash)
      return s.status === 404 && s.body.payments[0]?.state === 'settled' ? s : undefined
    })
    assert.equal(credit.body.payments[0].transaction, proxy.sentSignatures().at(-1))
    assert.equal(await recipientLamports(), lamportsBefore, 'nothing ran unpaid or early')
    // The agent sends the intent again, paying nothing: the credit pays.
    const again = await execute(second.baseUrl, body)
    assert.equal(again.status, 200, again.text)
    assert.equal(again.body.status, '0x11')
    assert.equal(await payerBalance(), payerBefore - price, 'charged exactly once')
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'the intent ran once')
    await eventually('the credit used up', 10_000, async () =>
      (await state(second.baseUrl, intentHash)).body.payments[0].state === 'consumed' ? true : undefined,
    )
    await kill(second.gw)
  })

  it('killed between reservation and settlement, the settlement never sent: reserved (usable for nothing else) until it can no longer land, then released; nothing charged', async () => {
    const { second, intentHash, header, payerBefore, lamportsBefore } = await killedWithSettlementHeld('lost.sqlite', {
      lost: true,
    })
    const reserved = await state(second.baseUrl, intentHash)
    assert.equal(reserved.status, 404)
    assert.equal(reserved.body.payments[0].state, 'reserved')
    // The same payment cannot pay for anything while it could still land.
    const reused = await execute(second.baseUrl, signedSolanaIntent(devnet).body, { 'payment-signature': header })
    assert.equal(reused.status, 402)
    assert.equal(reused.body.paymentRequired.error, 'duplicate_settlement')

    await devnet.control('litesvm_setClock', [Math.floor(Date.now() / 1000) + 1_000])
    try {
      await eventually('the reservation released', 10_000, async () =>
        (await state(second.baseUrl, intentHash)).body.payments[0]?.state === 'released' ? true : undefined,
      )
    } finally {
      await devnet.control('litesvm_setClock', [Math.floor(Date.now() / 1000)])
    }
    assert.equal(await payerBalance(), payerBefore, 'nothing charged')
    assert.equal(await recipientLamports(), lamportsBefore, 'nothing ran')
    await kill(second.gw)
  })

  it('killed between reservation and settlement, the settlement never sent: released as soon as its blockhash expired (not at its 180 s bound), and the agent then pays once', async () => {
    const { second, body, intentHash, payerBefore, lamportsBefore } = await killedWithSettlementHeld('expired.sqlite', {
      lost: true,
    })
    // Its blockhash still valid: it could land, so it stays reserved and the intent waits (202, never 402).
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    assert.equal((await state(second.baseUrl, intentHash)).body.payments[0].state, 'reserved')
    const waiting = await execute(second.baseUrl, body)
    assert.equal(waiting.status, 202, waiting.text)

    await devnet.control('litesvm_expireBlockhash', [])
    const released = await eventually('the reservation released', 10_000, async () => {
      const payment = (await state(second.baseUrl, intentHash)).body.payments[0]
      return payment?.state === 'released' ? payment : undefined
    })
    assert.match(released.reason, /its blockhash expired/)
    assert.equal(await payerBalance(), payerBefore, 'nothing charged')
    // Asked to pay again, the agent pays once and the intent runs once.
    const paid = await execute(second.baseUrl, body, { 'payment-signature': await paymentHeader(second.baseUrl, body) })
    assert.equal(paid.status, 200, paid.text)
    assert.equal(await payerBalance(), payerBefore - price, 'charged exactly once')
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'the intent ran once')
    await kill(second.gw)
  })

  it('killed while a settlement is pending (202 answered): after the restart the resolver sees it confirmed and sends the intent, once', async () => {
    const first = await start('pending.sqlite')
    const { body, intentHash } = signedSolanaIntent(devnet)
    const header = await paymentHeader(first.baseUrl, body)
    const [payerBefore, lamportsBefore] = [await payerBalance(), await recipientLamports()]
    proxy.holdStatuses(true)
    const pending = await execute(first.baseUrl, body, { 'payment-signature': header })
    proxy.holdStatuses(false)
    assert.equal(pending.status, 202, pending.text)
    assert.equal(pending.body.payment.status, 'settlement_pending')
    await kill(first.gw)
    proxy.releaseStatuses()
    assert.equal(await recipientLamports(), lamportsBefore, 'not sent before the crash')

    const second = await start('pending.sqlite')
    const done = await eventually('the intent sent after the restart', 20_000, async () => {
      const s = await state(second.baseUrl, intentHash)
      return s.status === 200 && s.body.payments[0].state === 'consumed' ? s : undefined
    })
    assert.equal(done.body.status, '0x11')
    assert.equal(done.body.payments[0].transaction, pending.body.payment.transaction)
    assert.equal(await payerBalance(), payerBefore - price, 'charged exactly once')
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'the intent ran once')
    await kill(second.gw)
  })

  // The fault campaign's solanapaid phase (seed 962989776): a payer charged 105 × the price for 104
  // intents. A crash left a reservation whose settlement the node still held; the client's retry was
  // asked to pay (402), paid again, and both settlements landed.
  it('killed between reservation and settlement, the settlement still queued in the node: a retry is told to wait (202), never asked to pay again; charged once', async () => {
    const { second, body, intentHash, payerBefore, lamportsBefore } = await killedWithSettlementHeld('queued.sqlite', {
      lost: false,
    })
    try {
      // The agent retries as an x402 client does: without a payment, and pays if asked to.
      const retry = await execute(second.baseUrl, body)
      assert.equal(retry.status, 202, retry.text)
      assert.equal(retry.headers.get('x-erc1066-status'), '0xF3')
      assert.equal(retry.headers.get('payment-required'), null, 'not asked to pay again')
      assert.match(retry.body.payment.detail, /is being settled/)
    } finally {
      proxy.holdSends(false)
    }
    await proxy.flushSends() // the node sends what it had queued: the first transfer lands
    await eventually('the settlement found', 10_000, async () =>
      (await state(second.baseUrl, intentHash)).body.payments[0]?.state === 'settled' ? true : undefined,
    )
    const again = await execute(second.baseUrl, body)
    assert.equal(again.status, 200, again.text)
    assert.equal(await payerBalance(), payerBefore - price, 'charged exactly once')
    assert.equal(await recipientLamports(), lamportsBefore + 1_000n, 'the intent ran once')
    await kill(second.gw)
  })
})
