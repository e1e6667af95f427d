// x402 payments end to end: a real anvil, the real DemoDollar, the payments core with the
// in-process facilitator, the Fastify adapter on a minimal priced route, and the unmodified
// @x402/fetch client paying.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { EvmChainReads } from '../../src/payments/mechanisms/evm/createEvmChainReads.ts'
import { exactEvm } from '../../src/payments/mechanisms/evm/exactEvm.ts'
import { resolveUnresolvedPayments } from '../../src/payments/resolveUnresolvedPayments.ts'
import {
  newAuthorization,
  signCancelAuthorization,
  signTransferAuthorization,
  tokenDomain,
} from '../support/paymentsAuthorization.ts'
import {
  intentHashOf,
  type PaymentsWorld,
  payingClient,
  postJson,
  price,
  startPaidApp,
  startPaymentsWorld,
} from '../support/paymentsWorld.ts'

describe('x402 payments with the unmodified @x402/fetch client', () => {
  let world: PaymentsWorld
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  before(async () => {
    world = await startPaymentsWorld()
  })
  after(async () => {
    await world?.stop()
  })

  const payTo = () => world.devnet.demo.payment.payTo
  const requiredOf = async (res: Response) => decodePaymentRequiredHeader(res.headers.get('payment-required')!)
  /** A signed payment for the route's 402, made by the unmodified client, as a PAYMENT-SIGNATURE header. */
  async function paymentFor(
    id: string,
    key = devnetAccounts.payer,
  ): Promise<{ header: string; payload: PaymentPayload; required: PaymentRequired }> {
    const unpaid = await fetch(world.paid.url, postJson({ id }))
    assert.equal(unpaid.status, 402)
    const { client, http } = payingClient(world.devnet, key)
    const required = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json())
    const payload = await client.createPaymentPayload(required)
    return { header: encodePaymentSignatureHeader(payload), payload, required }
  }

  it('answers an unpaid request 402 0x55 with PAYMENT-REQUIRED, the same object in the body, no-store', async () => {
    const res = await fetch(world.paid.url, postJson({ id: 'unpaid' }))
    assert.equal(res.status, 402)
    assert.equal(res.headers.get('x-payment-required'), 'true')
    assert.equal(res.headers.get('x-erc1066-status'), '0x55')
    assert.equal(res.headers.get('cache-control'), 'no-store')
    assert.match(res.headers.get('content-type')!, /^application\/problem\+json/)
    const header = await requiredOf(res)
    const body = (await res.json()) as {
      paymentRequired: PaymentRequired
      status: number
      erc1066Status: string
      intentHash: string
    }
    assert.deepEqual(body.paymentRequired, header)
    assert.equal(body.erc1066Status, '0x55')
    assert.equal(body.intentHash, intentHashOf('unpaid'))
    assert.equal(header.x402Version, 2)
    assert.equal(header.error, 'Payment required')
    assert.equal(header.resource.url, world.paid.url)
    assert.equal(header.accepts.length, 1)
    assert.deepEqual(
      { ...header.accepts[0], extra: undefined },
      {
        scheme: 'exact',
        network: 'eip155:31337',
        asset: world.devnet.contracts.dollar,
        amount: String(price),
        payTo: payTo(),
        maxTimeoutSeconds: 300,
        extra: undefined,
      },
    )
    assert.equal(header.accepts[0]!.extra.name, 'Demo Dollar')
    assert.equal(header.accepts[0]!.extra.version, '1')
    assert.deepEqual(world.paid.effects, [])
  })

  it('serves a request paid by wrapFetchWithPayment: the payer pays exactly the price, pay-to gets it, PAYMENT-RESPONSE says success', async () => {
    const [payerBefore, payToBefore] = [await world.balanceOf(payer), await world.balanceOf(payTo())]
    const res = await payingClient(world.devnet).fetch(world.paid.url, postJson({ id: 'paid-1' }))
    assert.equal(res.status, 200)
    assert.deepEqual(await res.json(), { id: 'paid-1', done: true })
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    assert.equal(settlement.success, true)
    assert.equal(settlement.network, 'eip155:31337')
    assert.equal(settlement.payer?.toLowerCase(), payer.toLowerCase())
    const receipt = await world.clients.publicClient.getTransactionReceipt({
      hash: settlement.transaction as `0x${string}`,
    })
    assert.equal(receipt.status, 'success')
    assert.equal(
      receipt.from.toLowerCase(),
      privateKeyToAccount(devnetAccounts.facilitator).address.toLowerCase(),
      'settled by the facilitator key, not the relayer',
    )
    assert.equal(await world.balanceOf(payer), payerBefore - price)
    assert.equal(await world.balanceOf(payTo()), payToBefore + price)
    assert.deepEqual(world.paid.effects, ['paid-1'])
    const [record] = await world.ledger.forIntent('eip155:31337', intentHashOf('paid-1'))
    assert.equal(record?.state, 'consumed')
    assert.equal(record?.transaction, settlement.transaction)
  })

  const send = (id: string, header: string) => fetch(world.paid.url, postJson({ id }, { 'payment-signature': header }))
  async function refusedWith(res: Response, reason: RegExp | string) {
    assert.equal(res.status, 402)
    assert.equal(res.headers.get('x-erc1066-status'), '0x55')
    assert.equal(res.headers.get('payment-response'), null)
    const required = await requiredOf(res)
    const body = (await res.json()) as { paymentRequired: PaymentRequired; detail: string }
    assert.deepEqual(body.paymentRequired, required)
    if (typeof reason === 'string') assert.equal(required.error, reason)
    else assert.match(required.error ?? '', reason)
    assert.match(body.detail, /the payment was refused: /)
    return required.error
  }
  async function write(key: `0x${string}`, functionName: string, args: readonly unknown[]) {
    const wallet = world.clients.walletFor(key)
    const hash = await wallet.writeContract({
      address: world.devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName,
      args,
      account: wallet.account!,
      chain: wallet.chain,
    } as never)
    assert.equal((await world.clients.publicClient.waitForTransactionReceipt({ hash })).status, 'success')
    return hash
  }

  it('charges nothing when the handler refuses a validly paid request (403, 410), and releases the authorization', async () => {
    for (const [id, status] of [
      ['refused-403', 403],
      ['refused-410', 410],
    ] as const) {
      const before = await world.balanceOf(payer)
      const { header } = await paymentFor(id)
      const res = await fetch(world.paid.url, postJson({ id, refuse: status }, { 'payment-signature': header }))
      assert.equal(res.status, status)
      assert.equal(res.headers.get('payment-response'), null)
      assert.equal(await world.balanceOf(payer), before)
      const [record] = await world.ledger.forIntent('eip155:31337', intentHashOf(id))
      assert.equal(record?.state, 'released')
      assert.equal(record?.reason, `not charged: answered ${status}`)
    }
    assert.ok(!world.paid.effects.some((e) => e.startsWith('refused')))
  })

  it('serves one of two requests sending the same payment at once, refuses the other and a later reuse for another intent; charges once', async () => {
    const before = await world.balanceOf(payer)
    const { header } = await paymentFor('twice')
    const both = await Promise.all([send('twice', header), send('twice', header)])
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 402])
    await refusedWith(both.find((r) => r.status === 402)!, 'invalid_exact_evm_nonce_already_used')
    await refusedWith(await send('twice-later', header), 'invalid_exact_evm_nonce_already_used')
    assert.equal(await world.balanceOf(payer), before - price)
    assert.deepEqual(
      world.paid.effects.filter((e) => e.startsWith('twice')),
      ['twice'],
    )
  })

  it('refuses a wrong amount, a wrong asset, an expired authorization and a bad signature with the x402 reason; nothing runs or moves', async () => {
    const before = await world.balanceOf(payer)
    const { client } = payingClient(world.devnet)
    const { required } = await paymentFor('shape')
    const accepted = required.accepts[0]!
    // The client signs what it is offered; the server's requirements are then put back as `accepted`.
    const signedFor = async (changes: Partial<typeof accepted>) => {
      const payload = await client.createPaymentPayload({ ...required, accepts: [{ ...accepted, ...changes }] })
      return { ...payload, accepted }
    }
    const cheap = await client.createPaymentPayload({ ...required, accepts: [{ ...accepted, amount: '1' }] })
    await refusedWith(
      await send('wrong-amount', encodePaymentSignatureHeader(cheap)),
      'No matching payment requirements',
    )
    await refusedWith(
      await send('wrong-amount', encodePaymentSignatureHeader(await signedFor({ amount: '1' }))),
      'invalid_exact_evm_payload_authorization_value_mismatch',
    )
    // The client's spend controls refuse an asset it was not allowed; one without them signs for the wrong token.
    await assert.rejects(signedFor({ asset: world.devnet.contracts.counter }), /rejected by spendControls/)
    const careless = payingClient(world.devnet).client.setSpendControls(false)
    const wrongAsset = {
      ...(await careless.createPaymentPayload({
        ...required,
        accepts: [{ ...accepted, asset: world.devnet.contracts.counter }],
      })),
      accepted,
    }
    await refusedWith(
      await send('wrong-asset', encodePaymentSignatureHeader(wrongAsset)),
      'invalid_exact_evm_signature',
    )
    await refusedWith(
      await send('expired', encodePaymentSignatureHeader(await signedFor({ maxTimeoutSeconds: 1 }))),
      'invalid_exact_evm_payload_authorization_valid_before',
    )
    const good = await client.createPaymentPayload(required)
    const signature = (good.payload as { signature: string }).signature
    const forged = {
      ...good,
      payload: {
        ...good.payload,
        signature: `${signature.slice(0, 10)}${signature[10] === '0' ? '1' : '0'}${signature.slice(11)}`,
      },
    }
    await refusedWith(
      await send('bad-signature', encodePaymentSignatureHeader(forged)),
      /^invalid_exact_evm_(signature|failed_to_parse_signature)$/,
    )
    assert.equal(await world.balanceOf(payer), before)
    assert.deepEqual(
      world.paid.effects.filter((e) => ['wrong-amount', 'wrong-asset', 'expired', 'bad-signature'].includes(e)),
      [],
    )
  })

  it('refuses an authorization its payer cancelled on-chain', async () => {
    const before = await world.balanceOf(payer)
    const { header, payload } = await paymentFor('cancelled')
    const nonce = (payload.payload as { authorization: { nonce: `0x${string}` } }).authorization.nonce
    const domain = tokenDomain(world.devnet.demo.payment, world.devnet.anvil.chainId)
    await write(devnetAccounts.payer, 'cancelAuthorization', [
      payer,
      nonce,
      await signCancelAuthorization(devnetAccounts.payer, domain, nonce),
    ])
    const reason = await refusedWith(await send('cancelled', header), /^invalid_exact_evm_/)
    // x402 names the used nonce only where Multicall3 exists; a bare anvil has none, so the simulation failure is what it reports.
    assert.ok(
      ['invalid_exact_evm_nonce_already_used', 'invalid_exact_evm_transaction_simulation_failed'].includes(reason!),
      reason,
    )
    assert.equal(await world.balanceOf(payer), before)
    assert.ok(!world.paid.effects.includes('cancelled'))
  })

  it("answers 402 with the settlement's reason and runs nothing when the balance is emptied between verify and settle", async () => {
    const other = privateKeyToAccount(devnetAccounts.other).address
    const { header } = await paymentFor('emptied')
    const balance = await world.balanceOf(payer)
    world.paid.beforeSettle = async () => {
      await write(devnetAccounts.payer, 'transfer', [other, balance])
    }
    try {
      // The transfer reverts at settlement; x402 names it from the revert (no Multicall3 on anvil to diagnose further).
      await refusedWith(await send('emptied', header), /^invalid_exact_evm_(transaction_failed|insufficient_balance)$/)
    } finally {
      world.paid.beforeSettle = undefined
      await write(devnetAccounts.other, 'transfer', [payer, balance])
    }
    assert.equal(await world.balanceOf(payer), balance)
    assert.ok(!world.paid.effects.includes('emptied'))
    const [record] = await world.ledger.forIntent('eip155:31337', intentHashOf('emptied'))
    assert.equal(record?.state, 'released')
    assert.match(record?.reason ?? '', /^settlement failed: /)
  })

  it("answers a request it cannot price (bad input) with the handler's 4xx, not 402", async () => {
    const res = await fetch(world.paid.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    assert.equal(res.status, 400)
    assert.equal(res.headers.get('payment-required'), null)
  })

  it('does not price a request with an API key unless PRICE_API_KEY_CLIENTS', async () => {
    const res = await fetch(world.paid.url, postJson({ id: 'keyed' }, { authorization: 'Bearer operator-key' }))
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('payment-response'), null)
    assert.ok(world.paid.effects.includes('keyed'))
  })

  it('honours payment-identifier: the same id and payment get the first answer again; the same id with another payment is 409', async () => {
    const before = await world.balanceOf(payer)
    const withId = (p: PaymentPayload, id: string) => ({
      ...p,
      extensions: { ...p.extensions, 'payment-identifier': { info: { required: false, id } } },
    })
    const { payload } = await paymentFor('identified')
    const header = encodePaymentSignatureHeader(withId(payload, 'pay_identified_000000001'))
    const first = await send('identified', header)
    assert.equal(first.status, 200)
    const again = await send('identified', header)
    assert.equal(again.status, 200)
    assert.deepEqual(await again.json(), await first.json())
    assert.equal(again.headers.get('payment-response'), first.headers.get('payment-response'))
    const { payload: another } = await paymentFor('identified-2')
    const conflict = await send(
      'identified-2',
      encodePaymentSignatureHeader(withId(another, 'pay_identified_000000001')),
    )
    assert.equal(conflict.status, 409)
    assert.equal(await world.balanceOf(payer), before - price)
    assert.deepEqual(
      world.paid.effects.filter((e) => e.startsWith('identified')),
      ['identified'],
    )
  })

  it('charges each of 50 concurrent paid requests exactly once, with no nonce collision between settlements', async () => {
    const before = await world.balanceOf(payer)
    const payTo0 = await world.balanceOf(payTo())
    const { fetch: pay } = payingClient(world.devnet)
    const ids = Array.from({ length: 50 }, (_, i) => `bulk-${i}`)
    const responses = await Promise.all(ids.map((id) => pay(world.paid.url, postJson({ id }))))
    const statuses = responses.map((r) => r.status)
    assert.deepEqual(
      statuses,
      ids.map(() => 200),
      // What the route answered and what payments logged: a failure here says its cause.
      JSON.stringify({
        bodies: await Promise.all(responses.filter((r) => r.status !== 200).map((r) => r.text())),
        logs: world.paid.logs,
      }),
    )
    const transactions = new Set(
      responses.map((r) => decodePaymentResponseHeader(r.headers.get('payment-response')!).transaction),
    )
    assert.equal(transactions.size, 50)
    assert.equal(await world.balanceOf(payer), before - 50n * price)
    assert.equal(await world.balanceOf(payTo()), payTo0 + 50n * price)
    assert.deepEqual(world.paid.effects.filter((e) => e.startsWith('bulk-')).sort(), [...ids].sort())
    assert.ok(!world.paid.logs.some((l) => /nonce/i.test(l)), `no nonce errors logged: ${world.paid.logs.join('')}`)
  })

  it('answers 503 0xF4 with Retry-After, and runs nothing, when a remote facilitator is unreachable', async () => {
    const down = await startPaidApp({
      devnet: world.devnet,
      ledger: world.ledger,
      config: { facilitator: { kind: 'remote', url: 'http://127.0.0.1:9' } },
    })
    try {
      const unpaid = await fetch(down.url, postJson({ id: 'down' }))
      assert.equal(unpaid.status, 503)
      assert.equal(unpaid.headers.get('x-erc1066-status'), '0xF4')
      assert.equal(unpaid.headers.get('retry-after'), '5')
      const body = (await unpaid.json()) as { title: string; detail: string }
      assert.equal(body.title, 'The payment facilitator is unreachable or did not answer in time')
      const { header } = await paymentFor('down')
      const paid = await fetch(down.url, postJson({ id: 'down' }, { 'payment-signature': header }))
      assert.equal(paid.status, 503)
      assert.deepEqual(down.effects, [])
    } finally {
      await down.close()
    }
  })

  it("resolves reservations a crash left from the token's authorizationState: settled ones stay a credit for their intent, the rest are released, an unused one not while a settlement may be pending", async () => {
    const domain = tokenDomain(world.devnet.demo.payment, world.devnet.anvil.chainId)
    const asset = world.devnet.contracts.dollar
    const reserve = async (id: string, a: ReturnType<typeof newAuthorization>) => {
      const r = await world.ledger.reserve({
        network: 'eip155:31337',
        asset,
        payer,
        nonce: a.nonce,
        amount: String(a.value),
        payTo: payTo(),
        paymentId: undefined,
        payloadHash: '0x00',
        validBefore: a.validBefore,
        route: 'execute',
        chainId: 'eip155:31337',
        intentHash: intentHashOf(id),
      })
      assert.equal(r.kind, 'reserved')
    }
    // Settled on-chain just before the crash, never recorded as such.
    const settled = newAuthorization({ from: payer, to: payTo(), value: price })
    await reserve('crash-settled', settled)
    const tx = await write(devnetAccounts.facilitator, 'transferWithAuthorization', [
      settled.from,
      settled.to,
      settled.value,
      settled.validAfter,
      settled.validBefore,
      settled.nonce,
      await signTransferAuthorization(devnetAccounts.payer, domain, settled),
    ])
    // Never sent, and cancelled by its payer.
    const unused = newAuthorization({ from: payer, to: payTo(), value: price })
    await reserve('crash-unused', unused)
    const cancelled = newAuthorization({ from: payer, to: payTo(), value: price })
    await reserve('crash-cancelled', cancelled)
    await write(devnetAccounts.payer, 'cancelAuthorization', [
      payer,
      cancelled.nonce,
      await signCancelAuthorization(devnetAccounts.payer, domain, cancelled.nonce),
    ])

    // The EVM mechanism's reads over the test's anvil, the node's answer on a pending settlement told by the test.
    const evmReads = (mayBePending: boolean) =>
      new Map([
        [
          exactEvm,
          {
            clientFor: (network) => (network === 'eip155:31337' ? world.clients.publicClient : undefined),
            settlementMayBePending: async () => mayBePending,
            forgetSettlerNonces: () => {},
          } satisfies EvmChainReads,
        ],
      ])
    const settler = privateKeyToAccount(devnetAccounts.facilitator).address
    // While a settlement may still be pending in the node, an unused authorization is not released.
    const waiting = await resolveUnresolvedPayments({
      ledger: world.ledger,
      reads: evmReads(true),
      settler,
      logger: createLogger({ level: 'silent' }),
    })
    assert.deepEqual(
      waiting.map((r) => [r.payment.intentHash, r.outcome]),
      [
        [intentHashOf('crash-settled'), 'settled'],
        [intentHashOf('crash-cancelled'), 'released'],
      ],
    )
    assert.deepEqual(
      (await world.ledger.unresolved()).map((p) => p.intentHash),
      [intentHashOf('crash-unused')],
    )
    const rest = await resolveUnresolvedPayments({
      ledger: world.ledger,
      reads: evmReads(false),
      settler,
      logger: createLogger({ level: 'silent' }),
    })
    const resolved = [...waiting, ...rest]
    assert.deepEqual(
      resolved.map((r) => [r.payment.intentHash, r.outcome, r.transaction, r.reason]),
      [
        [intentHashOf('crash-settled'), 'settled', tx, 'used'],
        [intentHashOf('crash-cancelled'), 'released', undefined, 'cancelled'],
        [intentHashOf('crash-unused'), 'released', undefined, 'unused'],
      ],
    )
    assert.deepEqual(await world.ledger.unresolved(), [])

    // The settled one pays for its intent: the request runs without paying again, once.
    const before = await world.balanceOf(payer)
    const res = await fetch(world.paid.url, postJson({ id: 'crash-settled' }))
    assert.equal(res.status, 200)
    assert.equal(decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction, tx)
    assert.equal(await world.balanceOf(payer), before)
    assert.equal((await world.ledger.forIntent('eip155:31337', intentHashOf('crash-settled')))[0]?.state, 'consumed')
    assert.equal(
      (await fetch(world.paid.url, postJson({ id: 'crash-settled' }))).status,
      402,
      'a consumed credit pays for nothing more',
    )
  })

  it('keeps a settled payment as a credit when the work fails after settlement, so the same intent is not charged again', async () => {
    const before = await world.balanceOf(payer)
    const { header } = await paymentFor('broadcast-fails')
    world.paid.failAfterSettle = true
    try {
      const res = await send('broadcast-fails', header)
      assert.equal(res.status, 502)
    } finally {
      world.paid.failAfterSettle = false
    }
    assert.equal(await world.balanceOf(payer), before - price)
    const retry = await fetch(world.paid.url, postJson({ id: 'broadcast-fails' }))
    assert.equal(retry.status, 200)
    assert.equal(await world.balanceOf(payer), before - price)
    assert.deepEqual(
      world.paid.effects.filter((e) => e === 'broadcast-fails'),
      ['broadcast-fails'],
    )
  })

  it('settles a route with nothing to broadcast after its handler succeeds, and not when it answers an error', async () => {
    const checkUrl = world.paid.url.replace(/\/work$/, '/check')
    const before = await world.balanceOf(payer)
    const { fetch: pay } = payingClient(world.devnet)
    const ok = await pay(checkUrl, postJson({ id: 'checked' }))
    assert.equal(ok.status, 200)
    assert.equal(decodePaymentResponseHeader(ok.headers.get('payment-response')!).success, true)
    assert.equal(await world.balanceOf(payer), before - 1000n)
    const refused = await pay(checkUrl, postJson({ id: 'checked-refused', refuse: 403 }))
    assert.equal(refused.status, 403)
    assert.equal(refused.headers.get('payment-response'), null)
    assert.equal(await world.balanceOf(payer), before - 1000n)
  })
})
