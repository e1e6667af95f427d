// Issue 40, item 5: budgets count Solana executions. A Solana receipt carries the fee the relayer
// paid (read from the signed transaction: base fee per signature, priority fee), so
// GAS_BUDGET_PER_CLIENT and RELAYER_SPEND_BUDGET refuse Solana executes once spent, and a Solana
// payer is checked under the same client it is recorded under (its base58 key, as it is). Against
// the LiteSVM devnet through its JSON-RPC front, with the whole gateway as production builds it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Address, createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { defaultSolanaOptions } from '../../src/chains/solana/solanaOptions.ts'
import type { ExecutionGuardConfig } from '../../src/config/limitsConfig.ts'
import { limitsConfig } from '../../src/config/limitsConfig.ts'
import type { PaymentsConfig } from '../../src/config/paymentsConfig.ts'
import { createGateway } from '../../src/createGateway.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { SignedExecution } from '../../src/ports/chainAdapter.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { localKey } from '../support/relayerKeys.ts'
import { demoIntents, solanaAdapterFor, startSolanaDevnet } from '../support/solanaGateway.ts'
import { signedSolanaIntent, solanaChainOf, solanaPayingClient } from '../support/solanaPayments.ts'
import { testConfig } from '../support/testConfig.ts'
import { post, type TestGateway } from '../support/testGateway.ts'

/** Only what a test sets: standing off, budgets as given. */
const limits = (overrides: Partial<ExecutionGuardConfig>): ExecutionGuardConfig => ({
  ...limitsConfig({}).value,
  maxRevertsPerSender: 0,
  maxRevertsPerClient: 0,
  targetMaxRevertShare: 0,
  ...overrides,
})

describe('Solana executions count toward the budgets (issue 40, item 5)', () => {
  let devnet: SolanaDevnet
  const gateways: TestGateway[] = []
  const balance = async (address: Address) => (await devnet.rpc.getBalance(address).send()).value

  /** The whole gateway on the devnet with these limits, priced (x402 in DemoDollar) or free. */
  async function gatewayWith(guard: ExecutionGuardConfig, payments?: PaymentsConfig): Promise<TestGateway> {
    const logs: string[] = []
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } })
    const gateway = await createGateway({
      config: testConfig({
        chains: [solanaChainOf(devnet)],
        keys: { evm: [], solana: [localKey(devnet.relayerSecretKey, 'SOLANA_RELAYER_PRIVATE_KEY')] },
        runtimeOptions: { solana: { ...defaultSolanaOptions, simulationFeePayer: devnet.simulationFeePayer } },
        payments,
        limits: guard,
        execution: { reconcileIntervalMs: 200, receiptTimeoutMs: 5_000 },
        rpc: { timeoutMs: 2_000, pollMs: 20 },
        server: { maxConnectionsPerClient: 512 },
      }),
      logger,
    })
    const baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 })
    const started = { ...gateway, baseUrl, logs }
    gateways.push(started)
    return started
  }
  const execute = (gateway: TestGateway, body: unknown, headers: Record<string, string> = {}) =>
    post(gateway.baseUrl, '/intents/execute', body, { 'x-chain-id': devnet.chainId, ...headers })

  before(async () => {
    devnet = await startSolanaDevnet()
  })
  after(async () => {
    for (const g of gateways) await g.close()
    await devnet?.stop()
  })

  it('puts the fee the relayer paid in the receipt: base fee per signature and priority fee (was: no fee)', async () => {
    await devnet.control('litesvm_setPrioritizationFees', [[30_000]])
    try {
      const adapter = solanaAdapterFor(devnet, { relayer: true, options: { maxPriorityFeeMicroLamports: 100_000 } })
      const journal = openJournal({ path: ':memory:' })
      const { intent, hashOf, sign } = demoIntents(() => devnet, 7_000n)
      const relayer = (await createKeyPairSignerFromPrivateKeyBytes(devnet.relayerSecretKey)).address
      const i = intent()
      const claim = await journal.claim({ chainId: devnet.chainId, intentHash: hashOf(i), intent: i })
      assert.ok(claim.ok)
      const before = await balance(relayer)
      const preflight = await adapter.prepareExecution(i, sign(i))
      assert.ok(preflight.ok, JSON.stringify(preflight))
      let signed: SignedExecution | undefined
      const submission = await preflight.send({ onSigned: (tx) => void (signed = tx) })
      const receipt = await submission.receipt
      assert.equal(receipt.status, 0x11, receipt.detail)
      const paid = before - (await balance(relayer))
      assert.equal(receipt.fee, paid, 'the receipt says what the relayer paid')
      assert.ok(paid > 10_000n, `a priority fee was paid too (${paid} lamports)`)
      assert.equal(signed?.details.computeUnitPrice, '30000')
      journal.close()
      await adapter.close()
    } finally {
      await devnet.control('litesvm_setPrioritizationFees', [[]])
    }
  })

  it('refuses Solana executes once GAS_BUDGET_PER_CLIENT (429) or RELAYER_SPEND_BUDGET (503) is spent, before anything is sent (was: 200, 200, 200)', async () => {
    const relayer = (await createKeyPairSignerFromPrivateKeyBytes(devnet.relayerSecretKey)).address
    const budgeted = await gatewayWith(limits({ gasBudgetPerClient: 1 }))
    assert.equal((await execute(budgeted, signedSolanaIntent(devnet).body)).status, 200)
    let before = await balance(relayer)
    const spent = await execute(budgeted, signedSolanaIntent(devnet).body)
    assert.equal(spent.status, 429, spent.text)
    assertCommonHeaders(spent, { status: '0xF6', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(spent.body.type, 'urn:intent-gateway:problem:gas-budget-spent')
    assert.match(
      spent.body.detail,
      new RegExp(`^the relayer spent this client's gas budget on ${devnet.chainId} \\(1[0-9]{4,} of 1 `),
    )
    assert.equal(await balance(relayer), before, 'nothing sent')

    const breaker = await gatewayWith(limits({ relayerSpendBudget: 1 }))
    assert.equal((await execute(breaker, signedSolanaIntent(devnet).body)).status, 200)
    before = await balance(relayer)
    const broken = await execute(breaker, signedSolanaIntent(devnet).body)
    assert.equal(broken.status, 503, broken.text)
    assertCommonHeaders(broken, { status: '0x40', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(broken.body.type, 'urn:intent-gateway:problem:relayer-budget-spent')
    assert.equal(await balance(relayer), before, 'nothing sent')
  })

  it('checks a Solana payer under the client it is recorded under: a payer past its budget is refused before it pays (was: checked under its address, recorded under its lower-cased key)', async () => {
    const gateway = await gatewayWith(limits({ gasBudgetPerClient: 1 }), devnet.payments)
    const pay = async (body: unknown) => {
      const unpaid = await execute(gateway, body)
      assert.equal(unpaid.status, 402, unpaid.text)
      const { client } = await solanaPayingClient(devnet)
      const payload = await client.createPaymentPayload(
        decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!),
      )
      return execute(gateway, body, { 'payment-signature': encodePaymentSignatureHeader(payload) })
    }
    const payerBefore = await devnet.payment.balanceOf(devnet.payment.payer)
    const first = await pay(signedSolanaIntent(devnet).body)
    assert.equal(first.status, 200, first.text)
    const charged = await devnet.payment.balanceOf(devnet.payment.payer)
    assert.equal(charged, payerBefore - devnet.payment.amount)
    const second = await pay(signedSolanaIntent(devnet).body)
    assert.equal(second.status, 429, second.text)
    assert.equal(second.body.type, 'urn:intent-gateway:problem:gas-budget-spent')
    assert.equal(second.headers.get('payment-response'), null)
    assert.equal(await devnet.payment.balanceOf(devnet.payment.payer), charged, 'the refused payer paid nothing')
  })
})
