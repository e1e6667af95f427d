// Prepare an execute: validate, then simulate the execute transaction exactly as it will be sent
// (from the relayer, at the ceiling budget), so that a refusal here sends nothing; the budget sent
// is the simulation's cost plus a margin.
import type { Hex } from 'viem'
import { GatewayError } from '../../errors/gatewayError.ts'
import type { Preflight } from '../../ports/chainAdapter.ts'
import type { Intent } from '../../ports/intent.ts'
import { isSuccessStatus, Status } from '../../status/statusCodes.ts'
import { assertSuiAvailable } from './assertSuiAvailable.ts'
import { buildSuiExecuteTransaction } from './buildSuiTransaction.ts'
import { callSui } from './callSui.ts'
import type { ExecutionErrorLike } from './decodeMoveAbort.ts'
import { selectSuiGas } from './selectSuiGas.ts'
import { sendSuiExecution } from './sendSuiExecution.ts'
import { statusOfSuiAbort } from './statusOfSuiAbort.ts'
import type { SuiContext } from './suiContext.ts'
import { suiDeploymentOf } from './suiDeploymentOf.ts'
import { suiPolicyOf } from './suiPolicyOf.ts'
import { validateSuiIntent } from './validateSuiIntent.ts'

const gasMarginPercent = 120n

export async function prepareSuiExecution(ctx: SuiContext, intent: Intent, signature?: Hex): Promise<Preflight> {
  assertSuiAvailable(ctx)
  const checked = await validateSuiIntent(ctx, intent)
  if (!isSuccessStatus(checked.status)) return { ok: false, ...checked }
  const { keypair, relayer } = ctx
  if (!keypair || !relayer) throw new Error('prepareExecution called on a chain without a relayer')
  const policy = await suiPolicyOf(ctx, intent)
  if (typeof policy === 'string') return { ok: false, status: Status.DISALLOWED, detail: policy }
  // The sender's serialized signPersonalMessage signature, as 0x hex (empty: unsigned, which the module refuses).
  const call = {
    deployment: await suiDeploymentOf(ctx),
    policy,
    intent,
    sender: relayer,
    signature: signature ? Buffer.from(signature.slice(2), 'hex') : new Uint8Array(),
  }

  const trial = await buildSuiExecuteTransaction({ ...call, gas: await selectSuiGas(ctx, relayer, ctx.maxGasBudget) })
  const simulated = await callSui(ctx, 'simulateTransaction', 'simulation of execute', (signal) =>
    ctx.client.core.simulateTransaction({ transaction: trial, include: { effects: true }, signal }),
  )
  if (simulated.$kind === 'FailedTransaction') {
    const error = simulated.FailedTransaction.status.error as ExecutionErrorLike | null
    const aborted = statusOfSuiAbort(ctx, error)
    if (aborted) return { ok: false, ...aborted }
    throw new GatewayError('The chain rejected the simulation of execute', {
      code: 'CHAIN_CALL_FAILED',
      details: error?.message ?? 'no error message',
    })
  }
  const used = simulated.Transaction.effects?.gasUsed
  const budget = used
    ? ((BigInt(used.computationCost) + BigInt(used.storageCost)) * gasMarginPercent) / 100n
    : ctx.maxGasBudget
  return { ok: true, send: ({ onSigned }) => sendSuiExecution(ctx, { keypair, relayer, call, budget, onSigned }) }
}
