// The EVM facilitator's spend (issue 40, item 2): every settlement it sent is told with the fee
// read from its receipt (gasUsed × effectiveGasPrice), the facilitator's balance change, failed
// ones included; a payer that uses its own authorization between the facilitator's last check and
// the settlement's mining made it pay gas for nothing, and is refused, unsigned, for the window.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { createPublicClient, createWalletClient, type Hex, http, parseSignature } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { createFacilitatorClient } from '../../src/payments/createFacilitatorClient.ts'
import type { FacilitatorSpend } from '../../src/payments/createSettlementSpendWatch.ts'
import { evmSettlementGasMeasured } from '../../src/payments/mechanisms/evm/evmSettlementGas.ts'
import { lendEndpointsOf } from '../support/lentEndpoints.ts'
import { payingClient, price } from '../support/paymentsWorld.ts'

describe("the EVM facilitator's spend", () => {
  let devnet: Devnet
  let network: `eip155:${number}`
  const logger = createLogger({ level: 'silent' })
  const facilitatorAccount = privateKeyToAccount(devnetAccounts.facilitator)
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const chain = () => ({
    id: devnet.anvil.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [devnet.anvil.rpcUrl] } },
  })
  const publicClient = () => createPublicClient({ chain: chain(), transport: http(devnet.anvil.rpcUrl) })
  const weiOf = (address: Hex) => publicClient().getBalance({ address })
  const dollarsOf = (address: Hex) =>
    publicClient().readContract({
      address: devnet.demo.payment.asset,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [address],
    }) as Promise<bigint>

  before(async () => {
    devnet = await startDevnet()
    network = `eip155:${devnet.anvil.chainId}`
  })
  after(async () => {
    await devnet?.stop()
  })

  const requirementsOf = (): PaymentRequirements => ({
    scheme: 'exact',
    network,
    asset: devnet.demo.payment.asset,
    amount: price.toString(),
    payTo: devnet.demo.payment.payTo,
    maxTimeoutSeconds: 300,
    extra: { name: devnet.demo.payment.name, version: devnet.demo.payment.version },
  })
  const paymentFor = (requirements: PaymentRequirements): Promise<PaymentPayload> =>
    payingClient(devnet).client.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'http://127.0.0.1/intents/execute', description: '', mimeType: '' },
      accepts: [requirements],
    })

  it('tells the fee of a settlement from its receipt: the facilitator paid exactly gasUsed × effectiveGasPrice', async () => {
    const spends: FacilitatorSpend[] = []
    const facilitator = createFacilitatorClient({
      config: { kind: 'local', privateKey: devnetAccounts.facilitator },
      endpoints: lendEndpointsOf({ [network]: devnet.anvil.rpcUrl }),
      logger,
      onSpend: (s) => void spends.push(s),
    })
    const requirements = requirementsOf()
    const payload = await paymentFor(requirements)
    const before = await weiOf(facilitatorAccount.address)
    assert.equal((await facilitator.verify(payload, requirements)).isValid, true)
    const settled = await facilitator.settle(payload, requirements)
    assert.equal(settled.success, true, JSON.stringify(settled))
    const paid = before - (await weiOf(facilitatorAccount.address))
    const receipt = await publicClient().getTransactionReceipt({ hash: settled.transaction as Hex })
    assert.ok(paid > 0n)
    assert.equal(paid, receipt.gasUsed * receipt.effectiveGasPrice)
    // The figure written down in evmSettlementGas.ts, give or take the calldata's zero bytes: the
    // authorization's random nonce and signature make each settlement's calldata cost differ by 12 gas a byte.
    const off =
      receipt.gasUsed > evmSettlementGasMeasured
        ? receipt.gasUsed - evmSettlementGasMeasured
        : evmSettlementGasMeasured - receipt.gasUsed
    assert.ok(
      off <= 12n * 96n,
      `the number written down in evmSettlementGas.ts (${evmSettlementGasMeasured}) is ${off} gas off ${receipt.gasUsed}`,
    )
    assert.deepEqual(spends, [
      { network, payer: payer.toLowerCase(), fee: paid, failed: false, transaction: settled.transaction },
    ])
  })

  it('a payer that uses its authorization itself before the settlement is mined: the settlement reverts, its gas is told as failed, and the payer is refused unsigned until the window ends', async () => {
    const spends: FacilitatorSpend[] = []
    const requirements = requirementsOf()
    const payload = await paymentFor(requirements)
    const { authorization, signature } = payload.payload as {
      authorization: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex }
      signature: Hex
    }
    // The payer's own transfer with the same authorization, sent by someone else's account, lands first.
    const frontRun = async () => {
      const { v, r, s } = parseSignature(signature)
      const wallet = createWalletClient({
        account: privateKeyToAccount(devnetAccounts.deployer),
        chain: chain(),
        transport: http(devnet.anvil.rpcUrl),
      })
      const hash = await wallet.writeContract({
        address: devnet.demo.payment.asset,
        abi: demoDollarArtifact.abi,
        functionName: 'transferWithAuthorization',
        args: [
          authorization.from,
          authorization.to,
          BigInt(authorization.value),
          BigInt(authorization.validAfter),
          BigInt(authorization.validBefore),
          authorization.nonce,
          Number(v),
          r,
          s,
        ],
      } as never)
      await publicClient().waitForTransactionReceipt({ hash })
    }
    let race = false
    let signed = 0
    // Signing comes after viem's gas estimate, the facilitator's last check: the payer's transfer lands in between.
    const racing = {
      ...facilitatorAccount,
      backend: 'local',
      async signTransaction(...args: Parameters<typeof facilitatorAccount.signTransaction>) {
        signed += 1
        if (race) {
          race = false
          await frontRun()
        }
        return facilitatorAccount.signTransaction(...args)
      },
    }
    const facilitator = createFacilitatorClient({
      config: { kind: 'local', privateKey: devnetAccounts.facilitator },
      signers: { evm: racing },
      endpoints: lendEndpointsOf({ [network]: devnet.anvil.rpcUrl }),
      logger,
      onSpend: (s) => void spends.push(s),
      failedSettlementWindowMs: 1_500,
    })
    const before = {
      wei: await weiOf(facilitatorAccount.address),
      payer: await dollarsOf(payer),
      payTo: await dollarsOf(devnet.demo.payment.payTo),
    }
    assert.equal((await facilitator.verify(payload, requirements)).isValid, true)
    race = true
    const settled = await facilitator.settle(payload, requirements)
    assert.equal(settled.success, false, JSON.stringify(settled))
    const paid = before.wei - (await weiOf(facilitatorAccount.address))
    assert.ok(paid > 0n, 'the facilitator paid gas for the reverted settlement')
    assert.equal(await dollarsOf(payer), before.payer - price, 'the payer paid once, by its own transfer')
    assert.equal(spends.length, 1)
    assert.deepEqual(
      { ...spends[0], transaction: undefined },
      { network, payer: payer.toLowerCase(), fee: paid, failed: true, transaction: undefined },
    )
    const receipt = await publicClient().getTransactionReceipt({ hash: spends[0]!.transaction as Hex })
    assert.equal(receipt.status, 'reverted')
    assert.equal(receipt.from.toLowerCase(), facilitatorAccount.address.toLowerCase())

    // Refused before anything is signed; the facilitator pays nothing more.
    const next = await paymentFor(requirements)
    const signedBefore = signed
    const refused = await facilitator.verify(next, requirements)
    assert.equal(refused.invalidReason, 'payer_settlement_failed_recently')
    assert.equal((await facilitator.settle(next, requirements)).errorReason, 'payer_settlement_failed_recently')
    assert.equal(signed, signedBefore, 'nothing signed')
    assert.equal(before.wei - (await weiOf(facilitatorAccount.address)), paid)

    await new Promise((resolve) => setTimeout(resolve, 1_600))
    const later = await facilitator.settle(next, requirements)
    assert.equal(later.success, true, JSON.stringify(later))
    assert.equal(await dollarsOf(payer), before.payer - 2n * price)
    assert.equal(spends.length, 2)
    assert.equal(spends[1]!.failed, false)
  })

  it('sends no settlement estimated above the gas ceiling (a contract payer writes what its signature check costs): a failed settlement, nothing sent or paid', async () => {
    const spends: FacilitatorSpend[] = []
    const facilitator = createFacilitatorClient({
      config: { kind: 'local', privateKey: devnetAccounts.facilitator },
      endpoints: lendEndpointsOf({ [network]: devnet.anvil.rpcUrl }),
      logger,
      onSpend: (s) => void spends.push(s),
      evmMaxSettlementGas: 30_000n,
    })
    const requirements = requirementsOf()
    const payload = await paymentFor(requirements)
    const before = {
      wei: await weiOf(facilitatorAccount.address),
      payer: await dollarsOf(payer),
      nonce: await publicClient().getTransactionCount({ address: facilitatorAccount.address }),
    }
    const settled = await facilitator.settle(payload, requirements)
    assert.equal(settled.success, false)
    assert.equal(settled.transaction, '')
    assert.match(settled.errorMessage ?? '', /more than the 30000 allowed; not sent/)
    assert.equal(await weiOf(facilitatorAccount.address), before.wei, 'no gas paid')
    assert.equal(await dollarsOf(payer), before.payer, 'nothing charged')
    assert.equal(
      await publicClient().getTransactionCount({ address: facilitatorAccount.address }),
      before.nonce,
      'nothing sent',
    )
    assert.deepEqual(spends, [])
  })
})
