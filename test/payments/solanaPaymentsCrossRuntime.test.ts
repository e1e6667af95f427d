// A payment on one runtime for an intent on another, by the rule the README's "Payments (x402)" states: a price
// may name a network of another runtime the gateway serves; the payment is bound to the intent it
// pays for, not to a runtime. Here a Solana execute is priced in the EVM DemoDollar (EIP-3009 on
// anvil) and paid by the unmodified @x402/fetch with @x402/evm's client.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { type SolanaDevnet, startSolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import type { PaymentsConfig } from '../../src/config/paymentsConfig.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { payingClient } from '../support/paymentsWorld.ts'
import { signedSolanaIntent, startSolanaPaidGateway } from '../support/solanaPayments.ts'
import { request, type TestGateway } from '../support/testGateway.ts'

describe('x402: a Solana execute paid on an EVM network', () => {
  let evm: Devnet
  let solana: SolanaDevnet
  let gateway: TestGateway
  let clients: ReturnType<typeof createDevClients>
  const price = 10_000n
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const treasury = privateKeyToAccount(devnetAccounts.treasury).address
  const balanceOf = (who: Address) =>
    clients.publicClient.readContract({
      address: evm.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })

  before(async () => {
    ;[evm, solana] = await Promise.all([startDevnet(), startSolanaDevnet()])
    clients = createDevClients(evm.anvil.rpcUrl, evm.anvil.chainId)
    const evmPrice = evm.payments.prices[evm.chain.chainId]!.execute!
    const payments: PaymentsConfig = {
      prices: { [solana.chainId]: { execute: evmPrice } },
      priceApiKeyClients: false,
      facilitator: { kind: 'local', privateKey: devnetAccounts.facilitator },
    }
    gateway = await startSolanaPaidGateway(solana, {
      payments,
      otherChains: [evm.chain],
      relayerPrivateKey: devnetAccounts.relayer,
    })
  })
  after(async () => {
    await gateway?.close()
    await Promise.all([evm?.stop(), solana?.stop()])
  })

  it('offers the EVM token for the Solana intent and runs it once when paid: the payer pays exactly the price on anvil, the intent runs on Solana', async () => {
    const { body, intentHash } = signedSolanaIntent(solana)
    const [payerBefore, treasuryBefore] = [await balanceOf(payer), await balanceOf(treasury)]
    const lamportsBefore = (await solana.rpc.getBalance(solana.demo.recipient).send()).value
    const res = await payingClient(evm).fetch(`${gateway.baseUrl}/intents/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-chain-id': solana.chainId },
      body: JSON.stringify(body),
    })
    const answer = (await res.json()) as Record<string, any>
    assert.equal(res.status, 200, JSON.stringify(answer))
    assert.equal(answer.chainId, solana.chainId)
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    assert.equal(settlement.network, evm.chain.chainId)
    assert.equal(await balanceOf(payer), payerBefore - price)
    assert.equal(await balanceOf(treasury), treasuryBefore + price)
    assert.equal(
      (await solana.rpc.getBalance(solana.demo.recipient).send()).value,
      lamportsBefore + 1_000n,
      'the Solana intent ran once',
    )
    const state = await request(gateway.baseUrl, `/intents/${intentHash}`, {
      headers: { 'x-chain-id': solana.chainId },
    })
    assert.deepEqual(
      state.body.payments.map((p: Record<string, unknown>) => [p.state, p.network]),
      [['consumed', evm.chain.chainId]],
    )
  })
})
