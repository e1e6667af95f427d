// Account mode (`mode: "account"`) on Sui: a sponsored transaction. The agent (the intent's
// sender) is the transaction's sender and signs its TransactionData; the relayer owns the gas and
// signs as sponsor. Without a signature (or with none issued here) the gateway simulates the
// execute from the agent with the relayer's gas, caps its budget, splits a fresh small gas coin
// for it, builds the bytes, keeps them by intent hash and answers 401 0xE5 with them (the adapter's
// signingRequest reads them). With a signature: the sender's signature of exactly those bytes,
// never bytes from the agent; the relayer checks them once more (checkSponsorable), simulates
// them as they will be sent and co-signs.

import { TransactionDataBuilder } from '@mysten/sui/transactions'
import { isValidTransactionSignature } from '@mysten/sui/verify'
import type { Hex } from 'viem'
import { GatewayError } from '../../errors/gatewayError.ts'
import { InputError } from '../../errors/inputError.ts'
import type { Preflight } from '../../ports/chainAdapter.ts'
import type { AccountMode, Intent } from '../../ports/intent.ts'
import { isSuccessStatus, Status } from '../../status/statusCodes.ts'
import { assertSuiAvailable } from './assertSuiAvailable.ts'
import { buildSuiSponsoredTransaction } from './buildSuiTransaction.ts'
import { callSui } from './callSui.ts'
import { checkSponsorable } from './checkSponsorable.ts'
import type { ExecutionErrorLike } from './decodeMoveAbort.ts'
import { selectSuiGas } from './selectSuiGas.ts'
import { sendSuiSponsoredExecution } from './sendSuiSponsoredExecution.ts'
import { splitSponsorCoin } from './splitSponsorCoin.ts'
import { statusOfSuiAbort } from './statusOfSuiAbort.ts'
import type { SuiContext } from './suiContext.ts'
import { suiDeploymentOf } from './suiDeploymentOf.ts'
import { suiPolicyOf } from './suiPolicyOf.ts'
import { suiRuntime } from './suiRuntime.ts'
import { validateSuiIntent } from './validateSuiIntent.ts'

const gasMarginPercent = 120n

export const suiSponsoredSignHere =
  'in account mode the agent is the Sui transaction\'s sender and the relayer its gas sponsor: sign the TransactionData in `signing.txBytes` (base64) with the sender key as a transaction (signTransaction: intent message, blake2b), and send the serialized signature (flag ‖ signature ‖ public key) as 0x hex in `signature` with the same intent and `mode: "account"`'

type Refusal = Extract<Preflight, { ok: false }>

export async function prepareSuiSponsoredExecution(
  ctx: SuiContext,
  intent: Intent,
  signature: Hex | undefined,
  account: AccountMode,
): Promise<Preflight> {
  assertSuiAvailable(ctx)
  if (!ctx.keypair || !ctx.relayer) throw new Error('prepareSuiSponsoredExecution called on a chain without a relayer')
  if (account.authorization) {
    throw new InputError('The intent is not valid', {
      errors: [
        {
          field: 'authorization',
          message: 'is an EIP-7702 authorization (EVM): on Sui the agent signs the sponsored transaction itself',
        },
      ],
    })
  }
  const agentSignature = signature === undefined ? undefined : Buffer.from(signature.slice(2), 'hex').toString('base64')
  const checked = await validateSuiIntent(ctx, intent)
  if (!isSuccessStatus(checked.status)) return { ok: false, ...checked }

  const intentHash = suiRuntime.hashIntent(intent)
  const issued = ctx.sponsorships.get(intentHash)
  if (!issued) {
    const refused = await issue(ctx, intent, intentHash)
    if (refused) return refused
    const detail = agentSignature
      ? `no sponsored transaction to sign is current for this intent here (it was never issued by this instance, or was evicted): ${suiSponsoredSignHere}`
      : suiSponsoredSignHere
    return { ok: false, status: Status.SIGNATURE_REQUIRED, detail }
  }
  if (!agentSignature) return { ok: false, status: Status.SIGNATURE_REQUIRED, detail: suiSponsoredSignHere }
  // Offline only (no client): a scheme that needs the chain to verify (zkLogin) is refused, never a 500.
  const valid = await isValidTransactionSignature(issued.txBytes, agentSignature, { address: intent.sender }).catch(
    () => false,
  )
  if (!valid) {
    return {
      ok: false,
      status: Status.UNAUTHORIZED,
      detail: "the signature is not the sender's signature of the sponsored transaction in `signing.txBytes`",
    }
  }
  const problem = checkSponsorable(ctx, issued.txBytes, {
    sender: intent.sender,
    sponsor: ctx.relayer,
    gasCoin: issued.gasCoin,
    maxBudget: ctx.maxSponsoredGasBudget,
  })
  if (problem) {
    ctx.sponsorships.consume(intentHash)
    throw new GatewayError('The gateway refused to sponsor a transaction it issued', {
      code: 'SPONSORSHIP_REFUSED',
      details: problem,
    })
  }
  // As it will be sent: the chain may have moved since the bytes were issued.
  const simulated = await simulate(ctx, issued.txBytes)
  if (simulated.refused) return simulated.refused
  return {
    ok: true,
    send: ({ onSigned }) => sendSuiSponsoredExecution(ctx, { intentHash, issued, agentSignature, onSigned }),
  }
}

/** Builds and keeps the sponsored transaction the agent is to sign; a refusal is the answer instead. */
async function issue(ctx: SuiContext, intent: Intent, intentHash: string): Promise<Refusal | undefined> {
  const relayer = ctx.relayer!
  const policy = await suiPolicyOf(ctx, intent)
  if (typeof policy === 'string') return { ok: false, status: Status.DISALLOWED, detail: policy }
  const deployment = await suiDeploymentOf(ctx)
  const cap = ctx.maxSponsoredGasBudget
  // A trial at the cap, paid from the relayer's main coin (a simulation spends nothing): no coin is split for a refused intent.
  const main = await selectSuiGas(ctx, relayer, cap)
  const trial = await buildSuiSponsoredTransaction({
    deployment,
    policy,
    intent,
    sponsor: relayer,
    gas: { ...main, budget: cap },
  })
  const simulated = await simulate(ctx, trial)
  if (simulated.refused) return simulated.refused
  const budget = simulated.cost === undefined ? cap : (simulated.cost * gasMarginPercent) / 100n
  if (budget > cap) {
    return {
      ok: false,
      status: Status.UPPER_LIMIT,
      detail: `the execution would need a gas budget of ${budget} MIST, above the ${cap} MIST this gateway sponsors for one transaction: nothing was issued or signed`,
    }
  }
  const gasCoin = await splitSponsorCoin(ctx, cap)
  const txBytes = await buildSuiSponsoredTransaction({
    deployment,
    policy,
    intent,
    sponsor: relayer,
    gas: { price: main.price, budget, payment: [gasCoin] },
  })
  const problem = checkSponsorable(ctx, txBytes, { sender: intent.sender, sponsor: relayer, gasCoin, maxBudget: cap })
  if (problem)
    throw new GatewayError('The gateway built a transaction it would not sponsor', {
      code: 'SPONSORSHIP_REFUSED',
      details: problem,
    })
  ctx.sponsorships.put(intentHash, {
    txBytes,
    digest: TransactionDataBuilder.getDigestFromBytes(txBytes),
    gasCoin,
    budget,
  })
  ctx.log.info(
    { intentHash, gasCoin: gasCoin.objectId, budget: budget.toString() },
    'issued a sponsored transaction to sign',
  )
  return undefined
}

async function simulate(ctx: SuiContext, transaction: Uint8Array): Promise<{ refused?: Refusal; cost?: bigint }> {
  const simulated = await callSui(ctx, 'simulateTransaction', 'simulation of the sponsored execute', (signal) =>
    ctx.client.core.simulateTransaction({ transaction, include: { effects: true }, signal }),
  )
  if (simulated.$kind === 'FailedTransaction') {
    const error = simulated.FailedTransaction.status.error as ExecutionErrorLike | null
    const aborted = statusOfSuiAbort(ctx, error)
    if (aborted) return { refused: { ok: false, ...aborted } }
    throw new GatewayError('The chain rejected the simulation of the sponsored execute', {
      code: 'CHAIN_CALL_FAILED',
      details: error?.message ?? 'no error message',
    })
  }
  const used = simulated.Transaction.effects?.gasUsed
  return used ? { cost: BigInt(used.computationCost) + BigInt(used.storageCost) } : {}
}
