// The x402 facilitator the gateway verifies and settles with: in-process (x402's own facilitator
// with each payment family's scheme, registered by its mechanism: mechanisms/<family>/) or a
// remote one by URL. Either way a payment that does
// not verify is a value, and a facilitator that cannot answer is a FacilitatorUnavailableError.
// The in-process facilitator's keys may live outside the process (a PKCS#11 token, KMS): a key
// that cannot sign is a 503 of its own (FACILITATOR_SIGNER_UNAVAILABLE), not a failed payment.
import { AsyncLocalStorage } from 'node:async_hooks'
import { x402Facilitator } from '@x402/core/facilitator'
import { type FacilitatorClient, HTTPFacilitatorClient } from '@x402/core/server'
import { type Network, type PaymentPayload, type PaymentRequirements, SettleError, VerifyError } from '@x402/core/types'
import type { Logger } from 'pino'
import { type Hex, keccak256, type LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { FacilitatorConfig } from '../config/paymentsConfig.ts'
import type { LentEndpoints } from '../ports/chainEndpoints.ts'
import type { FacilitatorSigners } from '../signers/createFacilitatorSigners.ts'
import { createLocalEd25519Signer } from '../signers/createLocalEd25519Signer.ts'
import type { Ed25519Signer } from '../signers/ed25519Signer.ts'
import { facilitatorSignerUnavailable } from '../signers/facilitatorSignerUnavailable.ts'
import { createSettlementSpendWatch, type OnFacilitatorSpend } from './createSettlementSpendWatch.ts'
import { createUnansweredSettlements } from './createUnansweredSettlements.ts'
import { FacilitatorUnavailableError } from './facilitatorUnavailableError.ts'
import { mechanismOf, paymentMechanisms } from './mechanisms/mechanisms.ts'
import type { FacilitatorScheme, PaymentMechanism } from './mechanisms/paymentMechanism.ts'
import { settlementPendingReason } from './settlementPending.ts'
import { type SvmFeeLimits, svmFeeLimitsOf } from './svmFeeLimits.ts'

export type CreateFacilitatorClientParameters = {
  config: FacilitatorConfig
  /**
   * The in-process facilitator's keys, opened at start-up (signers/createFacilitatorSigners.ts);
   * required for a key in a token or KMS.
   * Default: the keys in `config` (privateKey, solanaSecretKey).
   */
  signers?: Pick<FacilitatorSigners, 'evm' | 'solana'> | undefined
  /** The endpoints of each network the in-process facilitator settles on, as its chain's runtime lends them. */
  endpoints: Record<Network, LentEndpoints>
  logger: Logger
  /** How long one verify or settle may take before the facilitator counts as unavailable. */
  timeoutMs?: number
  /** How long one RPC call of the in-process facilitator may take (default: a third of `timeoutMs`). */
  rpcTimeoutMs?: number
  /**
   * How long a Solana settlement broadcast waits for its confirmation; past it, x402 answers
   * `settlement_pending` with the transaction (default: `timeoutMs`).
   */
  settlementTimeoutMs?: number
  /**
   * What a Solana payment may make the in-process facilitator pay as its fee payer (compute units,
   * price per unit, signatures); a payment asking more is refused before anything is signed.
   * Default: svmFeeLimitsOf() (20,000 units, 50,000 micro-lamports, 2 signatures).
   */
  svmFeeLimits?: SvmFeeLimits
  /**
   * Called after every settlement the in-process facilitator signed and sent, once its fee is on
   * chain (failed ones included; a pending one when it lands): the composition root counts it
   * against the payer's budget on the payment's network, a failure as the payer's revert.
   */
  onSpend?: OnFacilitatorSpend | undefined
  /** How long a payer whose settlement failed on chain is refused further payments (default: an hour). */
  failedSettlementWindowMs?: number | undefined
  /** How many of one payer's Solana settlements may be under way at once (default 4): what it can make fail at once. */
  maxSettlementsInFlightPerPayer?: number | undefined
  /** The most gas an EVM settlement may be estimated at before it is sent (default 200,000: mechanisms/evm/evmSettlementGas.ts). */
  evmMaxSettlementGas?: bigint | undefined
}

export type GatewayFacilitator = FacilitatorClient & {
  /** The in-process facilitator's EVM account. */
  address?: `0x${string}`
  /**
   * In-process only: the id a Solana payment's settlement transaction will have (the facilitator's
   * own fee-payer signature of the payer's message, known before it is sent), for the ledger to
   * find the settlement after a crash; undefined when it cannot be known.
   */
  settlementIdOf?(transaction: string): Promise<string | undefined>
}

export function createFacilitatorClient({
  config,
  signers,
  endpoints,
  logger,
  timeoutMs = 30_000,
  rpcTimeoutMs = Math.ceil(timeoutMs / 3),
  settlementTimeoutMs = timeoutMs,
  svmFeeLimits = svmFeeLimitsOf(),
  onSpend,
  failedSettlementWindowMs,
  maxSettlementsInFlightPerPayer,
  evmMaxSettlementGas,
}: CreateFacilitatorClientParameters): GatewayFacilitator {
  const log = logger.child({ module: 'x402-facilitator' })
  if (config.kind === 'remote') {
    return guard(new HTTPFacilitatorClient({ url: config.url, timeoutMs }), log)
  }
  const keys = signers ?? localSigners(config)

  const facilitator = new x402Facilitator()
  // Each family's scheme, registered by its mechanism with its own networks; a settlement's spend is asked of its network's.
  const schemes = new Map<PaymentMechanism, FacilitatorScheme>()
  const schemeOf = (network: string) => {
    const mechanism = mechanismOf(network)
    return mechanism && schemes.get(mechanism)
  }
  const unanswered = createUnansweredSettlements()
  const watch = createSettlementSpendWatch({
    onSpend,
    spendOf: async (network, sent) => schemeOf(network)?.spendOf(network, sent),
    failedSettlementWindowMs,
    maxInFlightPerPayer: maxSettlementsInFlightPerPayer,
    capsInFlight: (network) => mechanismOf(network)?.capsSettlementsInFlight === true,
    logger: log,
  })
  const lent = Object.entries(endpoints) as [Network, LentEndpoints][]
  for (const mechanism of paymentMechanisms) {
    const scheme = mechanism.createFacilitatorScheme({
      facilitator,
      endpoints: lent.filter(([network]) => mechanismOf(network) === mechanism),
      keys,
      watch,
      watchAccount,
      watchEd25519,
      log,
      rpcTimeoutMs,
      settlementTimeoutMs,
      svmFeeLimits,
      evmMaxSettlementGas,
    })
    schemes.set(mechanism, scheme)
  }
  const feeProblemOf = (payload: PaymentPayload, requirements: PaymentRequirements) =>
    schemeOf(requirements.network)?.feeProblemOf?.(payload, requirements)
  const local: FacilitatorClient = {
    async verify(payload, requirements) {
      const problem =
        feeProblemOf(payload, requirements) ?? watch.refusalOf(requirements.network, payerOf(payload, requirements))
      if (problem) return { isValid: false, invalidReason: problem.reason, invalidMessage: problem.message }
      return facilitator.verify(payload, requirements)
    },
    async settle(payload, requirements) {
      const payer = payerOf(payload, requirements)
      const feeProblem = feeProblemOf(payload, requirements)
      const held = feeProblem ? { refused: feeProblem } : watch.begin(requirements.network, payer)
      if ('refused' in held)
        return {
          success: false,
          errorReason: held.refused.reason,
          errorMessage: held.refused.message,
          transaction: '',
          network: requirements.network,
        }
      // Settled again while an earlier settle of this authorization is unanswered (x402's resource
      // server retries a settlement_pending at once): the chain answers, not a second transaction.
      const earlier = unanswered.of(payload, requirements)
      const outcomeOfSigned = schemeOf(requirements.network)?.signedOutcomeOf?.(requirements.network)
      if (earlier && outcomeOfSigned) {
        try {
          const answer = withoutUndefined({
            success: false,
            errorReason: 'settlement_failed',
            transaction: '',
            network: requirements.network,
            payer,
          })
          const outcome = await outcomeOfSigned({ payload, requirements, signed: earlier, answer })
          unanswered.note(payload, requirements, outcome, earlier)
          return outcome
        } finally {
          held.release()
        }
      }
      const signed: Hex[] = []
      const { sent, result } = watch.watch(() => settling.run(signed, () => facilitator.settle(payload, requirements)))
      try {
        const answer = await result.catch((err: unknown) => {
          if (signed.length === 0 || !(err instanceof SettleError)) throw err
          return withoutUndefined({
            success: false,
            errorReason: err.errorReason ?? 'settlement_failed',
            errorMessage: err.errorMessage,
            transaction: err.transaction,
            network: err.network,
            payer: err.payer,
          })
        })
        // A failure after a settlement transaction was signed: its broadcast or receipt answer may
        // have been lost (a reset connection) while the node took it. The chain says what happened.
        // x402's own settlement_pending (a receipt not read in time) stands as it is.
        if (answer.success || answer.errorReason === settlementPendingReason || signed.length === 0 || !outcomeOfSigned)
          return answer
        const outcome = await outcomeOfSigned({ payload, requirements, signed, answer })
        if (outcome.success && outcome.transaction && !sent.some((s) => s.transaction === outcome.transaction))
          sent.push({ transaction: outcome.transaction })
        unanswered.note(payload, requirements, outcome, signed)
        return outcome
      } finally {
        // Read from the chain before the answer goes: a failure refuses the payer's next payment at once.
        try {
          if (sent.length > 0) await watch.settled({ network: requirements.network, payer, sent })
        } finally {
          held.release()
        }
      }
    },
    getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>,
  }
  const address = [...schemes.values()].find((s) => s.address)?.address
  const settlementIdOf = [...schemes.values()].find((s) => s.settlementIdOf)?.settlementIdOf
  return { ...guard(local, log), ...(address ? { address } : {}), ...(settlementIdOf ? { settlementIdOf } : {}) }
}

/** Who pays, as the network's payment mechanism reads it (a 0x address lower-cased); undefined when it cannot be read. */
function payerOf(payload: PaymentPayload, requirements: PaymentRequirements): string | undefined {
  const payer = mechanismOf(requirements.network)?.claimedPayer(payload.payload)
  return payer?.startsWith('0x') ? payer.toLowerCase() : payer
}

/** The keys given in the configuration itself (the devnet's way); a key in a token or KMS must have been opened. */
function localSigners(
  config: Extract<FacilitatorConfig, { kind: 'local' }>,
): Pick<FacilitatorSigners, 'evm' | 'solana'> {
  if (config.evmKey || config.solanaKey)
    throw new Error(
      `the facilitator's keys in ${config.evmKey?.setting ?? config.solanaKey?.setting} must be opened first (createFacilitatorSigners)`,
    )
  const evm = config.privateKey ? { ...privateKeyToAccount(config.privateKey), backend: 'local' as const } : undefined
  const solana = config.solanaSecretKey ? createLocalEd25519Signer(config.solanaSecretKey.subarray(0, 32)) : undefined
  return { ...(evm ? { evm } : {}), ...(solana ? { solana } : {}) }
}

/**
 * What the facilitator's keys failed to sign during one verify or settle. x402 turns a failure
 * in its signer into a failed settlement (a value); this tells a key that could not sign (503,
 * retry) from a payment that is refused (402).
 */
const signing = new AsyncLocalStorage<{ failure?: unknown }>()

/** The hashes of the EVM transactions signed during one settle: known before they are sent, whatever their sending answers. */
const settling = new AsyncLocalStorage<Hex[]>()

function noteFailure<T>(sign: () => Promise<T>): Promise<T> {
  return sign().catch((err: unknown) => {
    const store = signing.getStore()
    if (store && store.failure === undefined) store.failure = err
    throw err
  })
}

function watchAccount<A extends LocalAccount>(account: A): A {
  return {
    ...account,
    signMessage: (parameters) => noteFailure(() => account.signMessage(parameters)),
    signTransaction: async (transaction, options) => {
      const serialized = await noteFailure(() => account.signTransaction(transaction, options))
      settling.getStore()?.push(keccak256(serialized))
      return serialized
    },
    signTypedData: (parameters) => noteFailure(() => account.signTypedData(parameters)),
  }
}

function watchEd25519(signer: Ed25519Signer): Ed25519Signer {
  return { ...signer, sign: (message) => noteFailure(() => signer.sign(message)) }
}

/** Failures the facilitator reports stay values; anything else means it could not answer. */
function guard(client: FacilitatorClient, log: Logger): FacilitatorClient {
  return {
    async verify(payload, requirements) {
      const attempt: { failure?: unknown } = {}
      try {
        const answer = await signing.run(attempt, () => client.verify(payload, requirements))
        if (!answer.isValid && attempt.failure !== undefined) throw attempt.failure
        return answer
      } catch (err) {
        if (attempt.failure !== undefined) {
          log.warn({ err: attempt.failure }, "x402 verify not done: the facilitator's key could not sign")
          throw facilitatorSignerUnavailable('verify', attempt.failure)
        }
        if (err instanceof VerifyError)
          return withoutUndefined({
            isValid: false,
            invalidReason: err.invalidReason ?? 'verification_failed',
            invalidMessage: err.invalidMessage,
            payer: err.payer,
          })
        log.warn({ err }, 'x402 verify failed: facilitator unavailable')
        throw new FacilitatorUnavailableError('verify', { cause: err })
      }
    },
    async settle(payload, requirements) {
      const attempt: { failure?: unknown } = {}
      try {
        const answer = await signing.run(attempt, () => client.settle(payload, requirements))
        // A failure with no transaction: nothing was sent, because the key could not sign it.
        if (!answer.success && !answer.transaction && attempt.failure !== undefined) throw attempt.failure
        return answer
      } catch (err) {
        if (attempt.failure !== undefined && !(err instanceof SettleError && err.transaction)) {
          log.warn(
            { err: attempt.failure },
            "x402 settle not done: the facilitator's key could not sign; nothing was sent",
          )
          throw facilitatorSignerUnavailable('settle', attempt.failure)
        }
        if (err instanceof SettleError)
          return withoutUndefined({
            success: false,
            errorReason: err.errorReason ?? 'settlement_failed',
            errorMessage: err.errorMessage,
            payer: err.payer,
            transaction: err.transaction,
            network: err.network,
          })
        log.warn({ err }, 'x402 settle failed: facilitator unavailable')
        throw new FacilitatorUnavailableError('settle', { cause: err })
      }
    },
    async getSupported() {
      try {
        return await client.getSupported()
      } catch (err) {
        log.warn({ err }, 'x402 supported kinds unavailable')
        throw new FacilitatorUnavailableError('supported', { cause: err })
      }
    },
  }
}

/** The object without its undefined fields: x402's response types leave a missing field out rather than undefined. */
export function withoutUndefined<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>
  }
}
