// The Solana facilitator pays only the fee it chose (issue 40, item 2). In x402's exact SVM
// scheme the payer writes the compute budget and the facilitator, as fee payer, pays limit × price:
// a payment asking more units, a higher price or more signatures than the gateway's ceilings is
// refused before anything is signed (402 with x402's reason, no balance moves), and one within
// them costs the fee payer at most 2 × 5,000 + 20,000 × 50,000 / 10^6 = 11,000 lamports.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  type Address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  lamports,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { type SolanaDevnet, startSolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { solanaClusterNetworks } from '../../src/chains/solana/solanaClusters.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { createFacilitatorClient } from '../../src/payments/createFacilitatorClient.ts'
import type { FacilitatorSpend } from '../../src/payments/createSettlementSpendWatch.ts'
import { startPayments } from '../../src/payments/startPayments.ts'
import {
  defaultSolanaMaxPriorityFeeMicroLamports,
  maxSvmFeeLamports,
  svmFeeLimitsOf,
  svmMaxComputeUnits,
  svmPaymentComputeUnits,
} from '../../src/payments/svmFeeLimits.ts'
import { createLocalEd25519Signer } from '../../src/signers/createLocalEd25519Signer.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { chainEndpointsOf, lendEndpointsOf } from '../support/lentEndpoints.ts'
import { startRpcHoldProxy } from '../support/rpcHoldProxy.ts'
import { signedSolanaIntent, solanaPayingClient, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import { post, type TestGateway } from '../support/testGateway.ts'

const computeBudgetProgram = 'ComputeBudget111111111111111111111111111111' as Address
const memoProgram = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address

/** SetComputeUnitLimit (2, u32) and SetComputeUnitPrice (3, u64), little-endian as the program reads them. */
function computeBudget(units: number, microLamports: bigint): Instruction[] {
  const limit = new Uint8Array(5)
  limit[0] = 2
  new DataView(limit.buffer).setUint32(1, units, true)
  const price = new Uint8Array(9)
  price[0] = 3
  new DataView(price.buffer).setBigUint64(1, microLamports, true)
  return [
    { programAddress: computeBudgetProgram, data: limit },
    { programAddress: computeBudgetProgram, data: price },
  ]
}

let devnet: SolanaDevnet
before(async () => {
  devnet = await startSolanaDevnet()
})
after(async () => {
  await devnet?.stop()
})

describe('the Solana facilitator pays only the fee it chose', () => {
  let gateway: TestGateway
  const execute = (body: unknown, headers: Record<string, string> = {}) =>
    post(gateway.baseUrl, '/intents/execute', body, { 'x-chain-id': devnet.chainId, ...headers })
  const lamportsOf = async (address: string) => (await devnet.rpc.getBalance(address as Address).send()).value
  const balances = async () => ({
    payer: await devnet.payment.balanceOf(devnet.payment.payer),
    treasury: await devnet.payment.balanceOf(devnet.payment.payTo),
    feePayer: await lamportsOf(devnet.payment.facilitator),
  })

  before(async () => {
    gateway = await startSolanaPaidGateway(devnet)
  })
  after(async () => {
    await gateway?.close()
  })

  async function offerFor(body: unknown): Promise<PaymentRequired> {
    const unpaid = await execute(body)
    assert.equal(unpaid.status, 402, unpaid.text)
    return decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!)
  }

  /** The payer's exact transfer for the offer, written by hand with the compute budget given (x402's client always writes 20,000 × 1). */
  async function craftedPayment(
    required: PaymentRequired,
    { units, microLamports }: { units: number; microLamports: bigint },
  ): Promise<PaymentPayload> {
    const accepted = required.accepts[0]!
    const payer = await createKeyPairSignerFromPrivateKeyBytes(devnet.payment.payerSecretKey)
    const [source] = await findAssociatedTokenPda({
      mint: devnet.payment.mint,
      owner: payer.address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    const [destination] = await findAssociatedTokenPda({
      mint: devnet.payment.mint,
      owner: accepted.payTo as Address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    const transfer = getTransferCheckedInstruction({
      source,
      mint: devnet.payment.mint,
      destination,
      authority: payer,
      amount: BigInt(accepted.amount),
      decimals: devnet.payment.decimals,
    })
    const memo: Instruction = {
      programAddress: memoProgram,
      data: new TextEncoder().encode(crypto.randomUUID().replaceAll('-', '')),
    }
    const { value: blockhash } = await devnet.rpc.getLatestBlockhash().send()
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(accepted.extra!.feePayer as Address, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstructions([...computeBudget(units, microLamports), transfer, memo], m),
    )
    const signed = await partiallySignTransactionMessageWithSigners(message)
    return {
      x402Version: 2,
      resource: required.resource,
      accepted,
      payload: { transaction: getBase64EncodedWireTransaction(signed) },
    }
  }

  it(`measures x402's own payment at ${svmPaymentComputeUnits} compute units on the devnet; the unit ceiling is ${svmMaxComputeUnits}, x402's client's fixed request`, async () => {
    const required = await offerFor(signedSolanaIntent(devnet).body)
    const { client } = await solanaPayingClient(devnet)
    const payload = await client.createPaymentPayload(required)
    const simulated = await devnet.rpc
      .simulateTransaction(
        (payload.payload as { transaction: string }).transaction as never,
        { encoding: 'base64', sigVerify: false } as never,
      )
      .send()
    assert.equal(simulated.value.err, null)
    assert.equal(simulated.value.unitsConsumed, BigInt(svmPaymentComputeUnits))
    assert.equal(svmMaxComputeUnits, 20_000)
    assert.equal(maxSvmFeeLamports(svmFeeLimitsOf()), 11_000n)
  })

  it('refuses a payment asking 1,400,000 units at 5,000,000 micro-lamports (7,010,000 lamports of fee): 402 with the reason, nothing signed or sent, no balance moves', async () => {
    const { body } = signedSolanaIntent(devnet)
    const required = await offerFor(body)
    const payment = await craftedPayment(required, { units: 1_400_000, microLamports: 5_000_000n })
    const before = await balances()
    const refused = await execute(body, { 'payment-signature': encodePaymentSignatureHeader(payment) })
    assert.equal(refused.status, 402, refused.text)
    assert.equal(
      refused.body.paymentRequired.error,
      'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high',
    )
    assert.deepEqual(await balances(), before, 'the fee payer paid nothing, the payer was charged nothing')
    assert.ok(!gateway.logs.some((line) => line.includes('x402 settlement')), 'nothing was settled')
  })

  it(`refuses a price above SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS (default ${defaultSolanaMaxPriorityFeeMicroLamports}) within the unit ceiling; at the ceilings the fee payer pays exactly 11,000 lamports`, async () => {
    const first = signedSolanaIntent(devnet)
    const tooDear = await craftedPayment(await offerFor(first.body), {
      units: svmMaxComputeUnits,
      microLamports: BigInt(defaultSolanaMaxPriorityFeeMicroLamports) + 1n,
    })
    const before = await balances()
    const refused = await execute(first.body, { 'payment-signature': encodePaymentSignatureHeader(tooDear) })
    assert.equal(refused.status, 402, refused.text)
    assert.equal(
      refused.body.paymentRequired.error,
      'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high',
    )
    assert.deepEqual(await balances(), before)

    const tooLong = await craftedPayment(await offerFor(first.body), {
      units: svmMaxComputeUnits + 1,
      microLamports: 1n,
    })
    const refused2 = await execute(first.body, { 'payment-signature': encodePaymentSignatureHeader(tooLong) })
    assert.equal(refused2.status, 402, refused2.text)
    assert.equal(
      refused2.body.paymentRequired.error,
      'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high',
    )
    assert.deepEqual(await balances(), before)

    const atTheCeilings = await craftedPayment(await offerFor(first.body), {
      units: svmMaxComputeUnits,
      microLamports: BigInt(defaultSolanaMaxPriorityFeeMicroLamports),
    })
    const paid = await execute(first.body, { 'payment-signature': encodePaymentSignatureHeader(atTheCeilings) })
    assert.equal(paid.status, 200, paid.text)
    const after = await balances()
    assert.equal(after.payer, before.payer - devnet.payment.amount)
    assert.equal(after.treasury, before.treasury + devnet.payment.amount)
    assert.equal(
      before.feePayer - after.feePayer,
      11_000n,
      'two signatures (10,000) and 20,000 units × 50,000 micro-lamports (1,000)',
    )
  })
})

describe("the facilitator's spend: told after each settlement it sent, failed ones included, and a payer whose settlement failed is refused", () => {
  const network = solanaClusterNetworks.devnet
  const logger = createLogger({ level: 'silent' })
  const lamportsOf = async (address: string) => (await devnet.rpc.getBalance(address as Address).send()).value

  const requirementsOf = (): PaymentRequirements => ({
    scheme: 'exact',
    network,
    asset: devnet.payment.mint,
    amount: devnet.payment.amount.toString(),
    payTo: devnet.payment.payTo,
    maxTimeoutSeconds: 300,
    extra: { feePayer: devnet.payment.facilitator },
  })
  async function payment(requirements: PaymentRequirements): Promise<PaymentPayload> {
    const { client } = await solanaPayingClient(devnet)
    return client.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'http://127.0.0.1/intents/execute', description: '', mimeType: '' },
      accepts: [requirements],
    })
  }

  /** Sends a transaction paid by a fresh funded account (not the facilitator), signed by `signers` too. */
  async function send(instructions: Instruction[], feePayer: KeyPairSigner) {
    const { value: blockhash } = await devnet.rpc.getLatestBlockhash().send()
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    )
    const signed = await signTransactionMessageWithSigners(message)
    await devnet.rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send()
  }

  /** Moves all of the payer's DemoDollar to a stash account of `helper`'s, and back: what a payer racing its own settlement does. */
  async function mover() {
    const helper = await generateKeyPairSigner()
    await devnet.rpc.requestAirdrop(helper.address, lamports(1_000_000_000n)).send()
    const payer = await createKeyPairSignerFromPrivateKeyBytes(devnet.payment.payerSecretKey)
    const [payerAta] = await findAssociatedTokenPda({
      mint: devnet.payment.mint,
      owner: payer.address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    const [stash] = await findAssociatedTokenPda({
      mint: devnet.payment.mint,
      owner: helper.address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    await send(
      [
        getCreateAssociatedTokenIdempotentInstruction({
          payer: helper,
          ata: stash,
          owner: helper.address,
          mint: devnet.payment.mint,
        }),
      ],
      helper,
    )
    const transfer = async (from: Address, to: Address, authority: KeyPairSigner, amount: bigint) =>
      send(
        [
          getTransferCheckedInstruction({
            source: from,
            mint: devnet.payment.mint,
            destination: to,
            authority,
            amount,
            decimals: devnet.payment.decimals,
          }),
        ],
        helper,
      )
    return {
      away: async () => transfer(payerAta, stash, payer, await devnet.payment.balanceOf(devnet.payment.payer)),
      back: async () => transfer(stash, payerAta, helper, await devnet.payment.balanceOf(helper.address)),
    }
  }

  it("tells the fee of a settlement read from the chain: the fee payer paid exactly it (10,001 lamports for x402's own payment)", async () => {
    const spends: FacilitatorSpend[] = []
    const facilitator = createFacilitatorClient({
      config: devnet.payments.facilitator,
      endpoints: lendEndpointsOf({ [network]: devnet.rpcUrl }),
      logger,
      onSpend: (spend) => void spends.push(spend),
    })
    const requirements = requirementsOf()
    const payload = await payment(requirements)
    const before = await lamportsOf(devnet.payment.facilitator)
    assert.equal((await facilitator.verify(payload, requirements)).isValid, true)
    assert.deepEqual(spends, [], 'verifying spends nothing')
    const settled = await facilitator.settle(payload, requirements)
    assert.equal(settled.success, true, JSON.stringify(settled))
    const paid = before - (await lamportsOf(devnet.payment.facilitator))
    assert.equal(paid, 10_001n)
    assert.deepEqual(spends, [
      { network, payer: devnet.payment.payer, fee: paid, failed: false, transaction: settled.transaction },
    ])
  })

  it('a payer that moves its balance away between the last check and the send: the settlement fails, its fee is told as failed, and the payer is refused (unsigned) until the window ends', async () => {
    const spends: FacilitatorSpend[] = []
    const { away, back } = await mover()
    const key = createLocalEd25519Signer(devnet.payment.facilitatorSecretKey.subarray(0, 32))
    let signatures = 0
    let race = false
    // The payer's move lands while the facilitator signs: after x402's verification in settle, before the send.
    const racing = {
      ...key,
      async sign(message: Uint8Array) {
        signatures += 1
        if (race) {
          race = false
          await away()
        }
        return key.sign(message)
      },
    }
    const facilitator = createFacilitatorClient({
      config: devnet.payments.facilitator,
      signers: { solana: racing },
      endpoints: lendEndpointsOf({ [network]: devnet.rpcUrl }),
      logger,
      onSpend: (spend) => void spends.push(spend),
      failedSettlementWindowMs: 1_500,
    })
    const requirements = requirementsOf()
    const payload = await payment(requirements)
    const before = {
      feePayer: await lamportsOf(devnet.payment.facilitator),
      payer: await devnet.payment.balanceOf(devnet.payment.payer),
      treasury: await devnet.payment.balanceOf(devnet.payment.payTo),
    }
    assert.equal((await facilitator.verify(payload, requirements)).isValid, true)
    race = true
    const settled = await facilitator.settle(payload, requirements)
    assert.equal(settled.success, false, JSON.stringify(settled))
    await back()
    const paid = before.feePayer - (await lamportsOf(devnet.payment.facilitator))
    assert.equal(paid, 10_001n, 'the fee payer paid the failed settlement all the same')
    assert.equal(await devnet.payment.balanceOf(devnet.payment.payTo), before.treasury, 'nothing was paid to pay-to')
    assert.equal(await devnet.payment.balanceOf(devnet.payment.payer), before.payer, 'the payer kept its DemoDollar')
    assert.equal(spends.length, 1)
    assert.deepEqual(
      { ...spends[0], transaction: undefined },
      { network, payer: devnet.payment.payer, fee: paid, failed: true, transaction: undefined },
    )

    // Its next payment is refused before anything is signed or sent; the fee payer pays nothing more.
    const next = await payment(requirementsOf())
    const signedBefore = signatures
    const refused = await facilitator.verify(next, requirements)
    assert.equal(refused.isValid, false)
    assert.equal(refused.invalidReason, 'payer_settlement_failed_recently')
    const refusedSettle = await facilitator.settle(next, requirements)
    assert.equal(refusedSettle.success, false)
    assert.equal(refusedSettle.errorReason, 'payer_settlement_failed_recently')
    assert.equal(signatures, signedBefore, 'nothing signed')
    assert.equal(before.feePayer - (await lamportsOf(devnet.payment.facilitator)), paid, 'nothing more paid')
    assert.equal(spends.length, 1)

    // Once the window is over, it pays again.
    await new Promise((resolve) => setTimeout(resolve, 1_600))
    assert.equal((await facilitator.verify(next, requirements)).isValid, true)
    const settledLater = await facilitator.settle(next, requirements)
    assert.equal(settledLater.success, true, JSON.stringify(settledLater))
    assert.equal(await devnet.payment.balanceOf(devnet.payment.payer), before.payer - devnet.payment.amount)
    assert.deepEqual(spends[1], {
      network,
      payer: devnet.payment.payer,
      fee: 10_001n,
      failed: false,
      transaction: settledLater.transaction,
    })
  })

  it("holds at most 4 of one payer's settlements under way: a fifth is refused unsigned (what a payer could make fail at once is bounded)", async () => {
    const spends: FacilitatorSpend[] = []
    const key = createLocalEd25519Signer(devnet.payment.facilitatorSecretKey.subarray(0, 32))
    let open!: () => void
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    let signing = 0
    // The settlements wait at the fee payer's signature until the fifth has been answered.
    const slow = {
      ...key,
      async sign(message: Uint8Array) {
        signing += 1
        await gate
        return key.sign(message)
      },
    }
    const facilitator = createFacilitatorClient({
      config: devnet.payments.facilitator,
      signers: { solana: slow },
      endpoints: lendEndpointsOf({ [network]: devnet.rpcUrl }),
      logger,
      onSpend: (s) => void spends.push(s),
    })
    const requirements = requirementsOf()
    const payloads = await Promise.all([1, 2, 3, 4, 5].map(() => payment(requirements)))
    const before = {
      feePayer: await lamportsOf(devnet.payment.facilitator),
      payer: await devnet.payment.balanceOf(devnet.payment.payer),
    }
    const first = payloads.slice(0, 4).map((p) => facilitator.settle(p, requirements))
    while (signing < 4) await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal((await facilitator.verify(payloads[4]!, requirements)).invalidReason, 'payer_settlements_in_flight')
    const fifth = await facilitator.settle(payloads[4]!, requirements)
    assert.equal(fifth.success, false)
    assert.equal(fifth.errorReason, 'payer_settlements_in_flight')
    assert.equal(signing, 4, 'the fifth was not signed')
    open()
    const settled = await Promise.all(first)
    assert.deepEqual(
      settled.map((s) => s.success),
      [true, true, true, true],
    )
    assert.equal(before.feePayer - (await lamportsOf(devnet.payment.facilitator)), 4n * 10_001n)
    assert.equal(before.payer - (await devnet.payment.balanceOf(devnet.payment.payer)), 4n * devnet.payment.amount)
    assert.equal(spends.length, 4)
    // Once they are done, the payer pays again.
    assert.equal((await facilitator.verify(payloads[4]!, requirements)).isValid, true)
  })

  it('startPayments tells each spend with the gateway chain it was settled on, and a payer whose settlement failed is answered 402 payer_settlement_failed_recently, nothing signed or paid', async () => {
    const spends: (FacilitatorSpend & { chainId: string })[] = []
    const { away, back } = await mover()
    const key = createLocalEd25519Signer(devnet.payment.facilitatorSecretKey.subarray(0, 32))
    let signatures = 0
    const counting = {
      ...key,
      sign(message: Uint8Array) {
        signatures += 1
        return key.sign(message)
      },
    }
    // The facilitator's node holds its broadcast: the payer empties its account in between.
    const proxy = await startRpcHoldProxy(devnet.rpcUrl)
    const journal = openJournal({ path: ':memory:' })
    const payments = await startPayments({
      config: devnet.payments,
      facilitatorSigners: { solana: counting, keys: [] },
      endpoints: chainEndpointsOf(new Map([[devnet.chainId, proxy.url]])),
      journal,
      rpcTimeoutMs: 2_000,
      logger,
      onFacilitatorSpend: (spend) => void spends.push(spend),
    })
    try {
      const admit = async () => {
        const { intentHash } = signedSolanaIntent(devnet)
        const request = {
          route: 'execute' as const,
          chainId: devnet.chainId,
          intentHash,
          resourceUrl: 'http://127.0.0.1/intents/execute',
          payment: undefined,
        }
        const unpaid = await payments.admit(request)
        assert.equal(unpaid.kind, 'payment-required')
        const { client } = await solanaPayingClient(devnet)
        const payload = await client.createPaymentPayload(
          (unpaid as { paymentRequired: PaymentRequired }).paymentRequired,
        )
        return payments.admit({
          ...request,
          payment: payments.readPaymentHeader(encodePaymentSignatureHeader(payload)),
        })
      }
      const feePayerBefore = await lamportsOf(devnet.payment.facilitator)
      const paid = await admit()
      assert.equal(paid.kind, 'admitted')
      if (paid.kind !== 'admitted') return
      assert.equal((await paid.ticket.settle()).ok, true)
      await paid.ticket.finish({ httpStatus: 200 })
      assert.deepEqual(
        { ...spends[0], transaction: undefined },
        {
          chainId: devnet.chainId,
          network,
          payer: devnet.payment.payer,
          fee: 10_001n,
          failed: false,
          transaction: undefined,
        },
      )
      assert.equal(feePayerBefore - (await lamportsOf(devnet.payment.facilitator)), 10_001n)

      const raced = await admit()
      assert.equal(raced.kind, 'admitted')
      if (raced.kind !== 'admitted') return
      proxy.holdSends(true)
      const settling = raced.ticket.settle()
      while (proxy.heldSends() === 0) await new Promise((resolve) => setTimeout(resolve, 10))
      await away()
      proxy.holdSends(false)
      await proxy.flushSends()
      const failed = await settling
      await back()
      assert.equal(failed.ok, false, JSON.stringify(failed))
      await raced.ticket.fail()
      assert.equal(spends.length, 2)
      assert.deepEqual(
        { ...spends[1], transaction: undefined },
        {
          chainId: devnet.chainId,
          network,
          payer: devnet.payment.payer,
          fee: 10_001n,
          failed: true,
          transaction: undefined,
        },
      )
      assert.equal(feePayerBefore - (await lamportsOf(devnet.payment.facilitator)), 20_002n)

      const signedBefore = signatures
      const refused = await admit()
      assert.equal(refused.kind, 'payment-required')
      assert.equal(
        (refused as { paymentRequired: PaymentRequired }).paymentRequired.error,
        'payer_settlement_failed_recently',
      )
      assert.equal(signatures, signedBefore, 'nothing signed, not even the settlement id')
      assert.equal(feePayerBefore - (await lamportsOf(devnet.payment.facilitator)), 20_002n, 'nothing more paid')
    } finally {
      await payments.close()
      await journal.close()
      await proxy.close()
    }
  })
})
