// The facilitator as the payments core settles through it, keeping what each EVM settlement sent
// and the block that mined it in the payment ledger: the re-check (recheckSettlements.ts) follows
// that block until it is final, and sends the same signed authorization again if it is orphaned.
// The payment is reserved before it is settled, so the payload is kept before it is sent: a
// settlement whose answer is lost can be sent again too. A ledger or node that cannot answer here
// never fails the settlement (the re-check reads the block from the receipt later).
import type { FacilitatorClient } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import type { Logger } from 'pino'
import type { Hex, PublicClient } from 'viem'
import type { PaymentLedger } from '../../../ports/paymentLedger.ts'
import { evmPaymentKeyOf } from './evmPaymentKeyOf.ts'

/** What the ledger keeps of an EVM settlement: enough to send it again, as it was signed. */
export type KeptSettlement = { payload: PaymentPayload; requirements: PaymentRequirements }

export type KeepEvmSettlementsParameters<F extends FacilitatorClient> = {
  facilitator: F
  ledger: PaymentLedger
  /** A public client for a payment's CAIP-2 network; undefined when not reachable from here. */
  clientFor(network: string): PublicClient | undefined
  logger: Logger
}

export function keepEvmSettlements<F extends FacilitatorClient>({
  facilitator,
  ledger,
  clientFor,
  logger,
}: KeepEvmSettlementsParameters<F>): F {
  const log = logger.child({ module: 'x402-settlement-blocks' })
  const paymentOf = async (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const key = evmPaymentKeyOf(payload, requirements)
    return key.ok ? ledger.findByAuthorization(key.key) : undefined
  }
  const settle: FacilitatorClient['settle'] = async (payload, requirements) => {
    if (!requirements.network.startsWith('eip155:')) return facilitator.settle(payload, requirements)
    const payment = await paymentOf(payload, requirements).catch((err: unknown) => {
      log.warn(
        { err },
        'the payment of an EVM settlement could not be read; its settlement is not re-checked after a reorg',
      )
      return undefined
    })
    if (payment) {
      const kept: KeptSettlement = { payload, requirements }
      await ledger
        .keepSettlementPayload(payment.id, JSON.stringify(kept))
        .catch((err: unknown) => log.warn({ err, paymentId: payment.id }, 'the signed payment could not be kept'))
    }
    const answer = await facilitator.settle(payload, requirements)
    if (payment && answer.success && answer.transaction) {
      try {
        const receipt = await clientFor(requirements.network)?.getTransactionReceipt({
          hash: answer.transaction as Hex,
        })
        if (receipt)
          await ledger.recordSettlementBlock(payment.id, answer.transaction, {
            number: receipt.blockNumber,
            hash: receipt.blockHash,
          })
      } catch (err) {
        log.warn(
          { err, paymentId: payment.id, transaction: answer.transaction },
          "the settlement's block could not be read now; the re-check reads it",
        )
      }
    }
    return answer
  }
  return { ...facilitator, settle }
}
