// What the in-process facilitator spends settling payments, read from the chain after each
// settlement it signed and sent (EVM: gasUsed × effectiveGasPrice; Solana: the transaction's fee),
// failed ones included, and told to the composition root (which counts it against the payer's
// budget and a failure as the payer's revert). A payer whose settlement failed on chain after the
// facilitator's last check (it moved its balance away, closed its token account, used its
// authorization itself) made the facilitator pay for nothing: its further payments are refused for
// the window. Where the network's mechanism caps them (Solana), at most `maxInFlightPerPayer` of
// one payer's settlements are under way at once: x402 sends them with skipPreflight, so
// concurrent payments that each verified against the same balance would all be sent and all but the first fail, each at the fee payer's cost; the cap
// bounds what one payer makes fail before its first failure is known. (On EVM a settlement is
// estimated before it is sent: one whose balance or authorization is gone is not sent, and costs
// nothing; its concurrent payments are not capped.)
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Logger } from 'pino'

export type FacilitatorSpend = {
  /** The payment's CAIP-2 network. */
  network: string
  /** Who paid: a 0x address (lower case) or a base58 Solana address. */
  payer: string
  /** What the facilitator paid, in the network's smallest unit (wei, lamports). */
  fee: bigint
  /** The settlement failed on chain: the payer got nothing for it and the facilitator paid all the same. */
  failed: boolean
  /** The settlement's transaction id. */
  transaction: string
}

export type OnFacilitatorSpend = (spend: FacilitatorSpend) => Promise<void> | void

/** A transaction the facilitator sent during one settle (`wire`: as sent); `error` when its sending threw. */
export type SentSettlement = { transaction: string; wire?: string | undefined; error?: unknown }

export const payerSettlementFailedReason = 'payer_settlement_failed_recently'
export const payerSettlementsInFlightReason = 'payer_settlements_in_flight'

export type SettlementSpendWatch = ReturnType<typeof createSettlementSpendWatch>

export function createSettlementSpendWatch({
  onSpend,
  spendOf,
  failedSettlementWindowMs = 3_600_000,
  pendingWaitMs = 300_000,
  pollMs = 1_000,
  maxInFlightPerPayer = 4,
  capsInFlight,
  logger,
}: {
  onSpend?: OnFacilitatorSpend | undefined
  /** The fee paid and whether it failed; undefined while the transaction has not landed. */
  spendOf: (network: string, sent: SentSettlement) => Promise<{ fee: bigint; failed: boolean } | undefined>
  /** Whether a network's settlements in flight are capped per payer (its mechanism's `capsSettlementsInFlight`). */
  capsInFlight: (network: string) => boolean
  /** How long a payer whose settlement failed is refused (default: an hour, the standing window's default). */
  failedSettlementWindowMs?: number | undefined
  /** How long a pending settlement's spend is looked for before it is given up (logged). */
  pendingWaitMs?: number
  pollMs?: number
  /** How many of one payer's Solana settlements may be under way at once (default 4). */
  maxInFlightPerPayer?: number | undefined
  logger: Logger
}) {
  const sending = new AsyncLocalStorage<SentSettlement[]>()
  /** When each (network, payer) last had a settlement fail on chain. */
  const failedAt = new Map<string, number>()
  /** How many settlements of each (network, payer) are under way. */
  const inFlight = new Map<string, number>()
  const keyOf = (network: string, payer: string) => `${network}|${payer.startsWith('0x') ? payer.toLowerCase() : payer}`

  const record = async (
    network: string,
    payer: string,
    sent: SentSettlement,
    spend: { fee: bigint; failed: boolean },
  ) => {
    if (spend.failed) {
      failedAt.set(keyOf(network, payer), Date.now())
      if (failedAt.size > 100_000) prune()
      logger.warn(
        { network, payer, transaction: sent.transaction, fee: spend.fee.toString() },
        'x402 settlement failed on chain: the facilitator paid its fee; the payer is refused for the window',
      )
    }
    try {
      await onSpend?.({
        network,
        payer: payer.startsWith('0x') ? payer.toLowerCase() : payer,
        fee: spend.fee,
        failed: spend.failed,
        transaction: sent.transaction,
      })
    } catch (err) {
      logger.warn({ err, network, transaction: sent.transaction }, "x402 settlement's spend could not be recorded")
    }
  }
  const prune = () => {
    const now = Date.now()
    for (const [key, at] of failedAt) if (now - at >= failedSettlementWindowMs) failedAt.delete(key)
  }
  const watchPending = (network: string, payer: string, sent: SentSettlement) => {
    const deadline = Date.now() + pendingWaitMs
    const look = async () => {
      try {
        const spend = await spendOf(network, sent)
        if (spend) return await record(network, payer, sent, spend)
      } catch (err) {
        logger.debug({ err, transaction: sent.transaction }, "x402 pending settlement's spend not read yet")
      }
      if (Date.now() >= deadline)
        return logger.warn(
          { network, transaction: sent.transaction },
          "x402 pending settlement's spend not found in time: not counted",
        )
      setTimeout(look, pollMs).unref()
    }
    setTimeout(look, pollMs).unref()
  }

  return {
    /** Runs one settle, noting what it sends. */
    watch<T>(settle: () => Promise<T>): { sent: SentSettlement[]; result: Promise<T> } {
      const sent: SentSettlement[] = []
      return { sent, result: sending.run(sent, settle) }
    },
    /** Sends one settlement transaction, noted for the settle running it; `id` names it when its sending throws. */
    async sent<T extends string>(
      send: () => Promise<T>,
      { id, wire }: { id?: string | undefined; wire?: string | undefined } = {},
    ): Promise<T> {
      const noted = sending.getStore()
      try {
        const transaction = await send()
        noted?.push({ transaction, wire })
        return transaction
      } catch (err) {
        if (noted && id) noted.push({ transaction: id, wire, error: err })
        throw err
      }
    },
    /**
     * Reads and records what the settlements one settle sent cost: now when they landed, in the
     * background when they are pending (the settle answered settlement_pending).
     */
    async settled({
      network,
      payer,
      sent,
    }: {
      network: string
      payer: string | undefined
      sent: SentSettlement[]
    }): Promise<void> {
      for (const one of sent) {
        if (!payer) {
          logger.warn(
            { network, transaction: one.transaction },
            'x402 settlement sent for an unknown payer: its spend is not counted',
          )
          continue
        }
        let spend: { fee: bigint; failed: boolean } | undefined
        try {
          spend = await spendOf(network, one)
        } catch (err) {
          logger.warn(
            { err, transaction: one.transaction },
            "x402 settlement's spend could not be read now; looked for again",
          )
        }
        if (spend) await record(network, payer, one, spend)
        else watchPending(network, payer, one)
      }
    },
    /** Holds one of the payer's settlement places until `release` is called, or says why it is refused. */
    begin(
      network: string,
      payer: string | undefined,
    ): { release: () => void } | { refused: { reason: string; message: string } } {
      const refused = this.refusalOf(network, payer)
      if (refused || !payer) return refused ? { refused } : { release: () => {} }
      const key = keyOf(network, payer)
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1)
      let released = false
      return {
        release: () => {
          if (released) return
          released = true
          const left = (inFlight.get(key) ?? 1) - 1
          if (left > 0) inFlight.set(key, left)
          else inFlight.delete(key)
        },
      }
    },
    /** Why this payer's payments are refused now, or undefined. */
    refusalOf(network: string, payer: string | undefined): { reason: string; message: string } | undefined {
      if (!payer) return undefined
      const key = keyOf(network, payer)
      if (capsInFlight(network) && (inFlight.get(key) ?? 0) >= maxInFlightPerPayer)
        return {
          reason: payerSettlementsInFlightReason,
          message: `${maxInFlightPerPayer} settlements of this payer's are under way; pay again once one has finished`,
        }
      const at = failedAt.get(key)
      if (at === undefined) return undefined
      const left = failedSettlementWindowMs - (Date.now() - at)
      if (left <= 0) return undefined
      return {
        reason: payerSettlementFailedReason,
        message: `a settlement of this payer's failed on chain (the facilitator paid its fee); its payments are refused for ${Math.ceil(left / 1000)} s more`,
      }
    },
  }
}
