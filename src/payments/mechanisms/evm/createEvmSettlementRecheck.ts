// The EVM re-check after a reorg, as the mechanism lends it to startPayments: each settlement's
// signed payment and block kept in the ledger as it is settled (keepEvmSettlements.ts), and each
// pass following those blocks until they are final, sending the same authorization again from the
// facilitator's account when a reorg orphaned one (recheckSettlements.ts, createSettlementResender.ts).
import type { Address } from 'viem'
import type { SettlementRecheck, SettlementRecheckParameters } from '../paymentMechanism.ts'
import type { EvmChainReads } from './createEvmChainReads.ts'
import { createSettlementResender } from './createSettlementResender.ts'
import { keepEvmSettlements } from './keepEvmSettlements.ts'
import { recheckSettlements } from './recheckSettlements.ts'

export function createEvmSettlementRecheck({
  facilitator,
  ledger,
  reads,
  settler,
  signers,
  endpointsOf,
  timeoutMs,
  onSpend,
  logger,
}: SettlementRecheckParameters<EvmChainReads>): SettlementRecheck {
  const { clientFor } = reads
  const resend = createSettlementResender({
    account: signers?.evm,
    facilitator,
    endpointsOf,
    timeoutMs,
    onSpend,
    logger,
  })
  return {
    keep: (settling) => keepEvmSettlements({ facilitator: settling, ledger, clientFor, logger }),
    // The pass's own (confirmations, isInFlight, onOutcome) handed on as they come.
    recheck: (pass) =>
      recheckSettlements({
        ...pass,
        ledger,
        clientFor,
        resend,
        logger,
        // The settler's counted nonces, forgotten after a reorg took one back (read from the node again).
        onOrphaned: (payment) => {
          if (settler) reads.forgetSettlerNonces(payment.network, settler as Address)
        },
      }),
  }
}
