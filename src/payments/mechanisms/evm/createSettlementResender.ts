// Sends an orphaned EVM settlement again: the same signed EIP-3009 authorization, as the payer
// signed it (its nonce makes a second use impossible, so nobody pays twice). With the in-process
// facilitator's key, from its account, at the account's next nonce as the node counts it now (a
// reorg took the orphaned settlement's nonce back, and a nonce counted before it would leave a
// gap), estimated under the same gas ceiling; otherwise through the facilitator's own settle.
import type { FacilitatorClient } from '@x402/core/server'
import type { Logger } from 'pino'
import { type Address, createWalletClient, defineChain, type Hex, type LocalAccount, publicActions } from 'viem'
import type { LentEndpoints } from '../../../ports/chainEndpoints.ts'
import type { PaymentRecord } from '../../../ports/paymentLedger.ts'
import type { FacilitatorSpend } from '../../createSettlementSpendWatch.ts'
import { settlementPendingReason } from '../../settlementPending.ts'
import { defaultEvmMaxSettlementGas } from './evmSettlementGas.ts'
import type { KeptSettlement } from './keepEvmSettlements.ts'
import type { ResendOutcome } from './recheckSettlements.ts'
import { settlementCallOf } from './settlementCallOf.ts'
import { toEvmTransport } from './toEvmTransport.ts'

export type CreateSettlementResenderParameters = {
  /** The in-process facilitator's EVM account; undefined with a remote facilitator. */
  account: LocalAccount | undefined
  facilitator: FacilitatorClient
  /** The endpoints of each network settled on, as its chain's runtime lends them. */
  endpointsOf(network: string): LentEndpoints | undefined
  /** How long the receipt of a settlement sent again is awaited (past it, the re-check reads it next pass). */
  timeoutMs: number
  maxGas?: bigint
  /** The facilitator's fee for the settlement sent again: the payer's spend, as any settlement's. */
  onSpend?: ((spend: FacilitatorSpend) => Promise<void> | void) | undefined
  logger: Logger
}

export function createSettlementResender({
  account,
  facilitator,
  endpointsOf,
  timeoutMs,
  maxGas = defaultEvmMaxSettlementGas,
  onSpend,
  logger,
}: CreateSettlementResenderParameters) {
  const log = logger.child({ module: 'x402-settlement-resend' })
  const clients = new Map<string, ReturnType<typeof walletFor>>()
  const walletFor = (network: string, lent: LentEndpoints, from: LocalAccount) => {
    const chain = defineChain({
      id: Number(network.split(':')[1]),
      name: network,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [] } },
    })
    return createWalletClient({
      account: from,
      chain,
      transport: toEvmTransport(lent),
      pollingInterval: 100,
      cacheTime: 0,
    }).extend(publicActions)
  }

  async function throughFacilitator({ payload, requirements }: KeptSettlement): Promise<ResendOutcome> {
    const answer = await facilitator.settle(payload, requirements)
    if (answer.success && answer.transaction)
      return { kind: 'sent', transaction: answer.transaction as Hex, block: undefined }
    if (answer.errorReason === settlementPendingReason && answer.transaction)
      return { kind: 'sent', transaction: answer.transaction as Hex, block: undefined }
    return {
      kind: 'not-sent',
      reason: `the facilitator did not settle it: ${answer.errorReason ?? 'settlement_failed'}${answer.errorMessage ? ` (${answer.errorMessage})` : ''}`,
    }
  }

  return async function resend(payment: PaymentRecord, kept: KeptSettlement): Promise<ResendOutcome> {
    try {
      const lent = endpointsOf(payment.network)
      const call = account && settlementCallOf(kept.payload, kept.requirements, account.address)
      if (!account || !lent || !call) return await throughFacilitator(kept)
      let client = clients.get(payment.network)
      if (!client) clients.set(payment.network, (client = walletFor(payment.network, lent, account)))
      const request = { account, to: call.to as Address, data: call.data as Hex }
      const gas = await client.estimateGas(request)
      if (gas > maxGas) return { kind: 'not-sent', reason: `it would take ${gas} gas, more than the ${maxGas} allowed` }
      const nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' })
      const transaction = await client.sendTransaction({ ...request, gas, nonce })
      const receipt = await client
        .waitForTransactionReceipt({ hash: transaction, timeout: timeoutMs })
        .catch(() => undefined)
      if (!receipt) return { kind: 'sent', transaction, block: undefined }
      // The fee counts toward the payer's budget as any settlement's; a revert here is not the payer's
      // doing (another instance of a fleet may have sent it first), so it never counts against its standing.
      await onSpend?.({
        network: payment.network,
        payer: payment.payer.toLowerCase(),
        fee: receipt.gasUsed * receipt.effectiveGasPrice,
        failed: false,
        transaction,
      })
      if (receipt.status !== 'success')
        return { kind: 'not-sent', reason: `the settlement sent again (${transaction}) reverted` }
      return { kind: 'sent', transaction, block: { number: receipt.blockNumber, hash: receipt.blockHash } }
    } catch (err) {
      log.warn({ err, paymentId: payment.id }, 'an orphaned settlement could not be sent again now')
      return { kind: 'not-sent', reason: (err as { shortMessage?: string }).shortMessage ?? (err as Error).message }
    }
  }
}
