// Validate: the Move module's validate function, simulated with checks off (a read: nothing is
// charged, no gas coin needed); its u8 is the intent's status. An abort of our module is a status
// too; anything else the chain answers is a failure of the call.
import { normalizeSuiAddress } from '@mysten/sui/utils'
import { GatewayError } from '../../errors/gatewayError.ts'
import type { Intent } from '../../ports/intent.ts'
import { Status } from '../../status/statusCodes.ts'
import { assertSuiAvailable } from './assertSuiAvailable.ts'
import { buildSuiValidateTransaction } from './buildSuiTransaction.ts'
import { callSui } from './callSui.ts'
import type { ExecutionErrorLike } from './decodeMoveAbort.ts'
import { statusOfSuiAbort } from './statusOfSuiAbort.ts'
import type { SuiContext } from './suiContext.ts'
import { suiDeploymentOf } from './suiDeploymentOf.ts'
import { suiIntentModule } from './suiIntentModule.ts'
import { suiPolicyOf } from './suiPolicyOf.ts'

export type SuiValidation = { status: number; detail: string | undefined }

const zeroAddress = normalizeSuiAddress('0x0')

export async function validateSuiIntent(ctx: SuiContext, intent: Intent): Promise<SuiValidation> {
  assertSuiAvailable(ctx)
  const policy = await suiPolicyOf(ctx, intent)
  if (typeof policy === 'string') return { status: Status.DISALLOWED, detail: policy }
  const bytes = await buildSuiValidateTransaction({
    deployment: await suiDeploymentOf(ctx),
    policy,
    intent,
    sender: ctx.relayer ?? zeroAddress,
  })
  const what = `simulated validate call of ${ctx.packageId}::${suiIntentModule.module}`
  const result = await callSui(ctx, 'simulateTransaction', what, (signal) =>
    ctx.client.core.simulateTransaction({
      transaction: bytes,
      include: { commandResults: true, effects: true },
      checksEnabled: false,
      doGasSelection: false,
      signal,
    }),
  )
  if (result.$kind === 'FailedTransaction') {
    const error = result.FailedTransaction.status.error as ExecutionErrorLike | null
    const aborted = statusOfSuiAbort(ctx, error)
    if (aborted) return aborted
    throw new GatewayError(`The chain rejected the ${what}`, {
      code: 'CHAIN_CALL_FAILED',
      details: error?.message ?? 'the simulation failed without an error message',
    })
  }
  const value = result.commandResults?.[0]?.returnValues?.[0]?.bcs
  if (value?.length !== 1) {
    throw new GatewayError(`The chain rejected the ${what}`, {
      code: 'CHAIN_CALL_FAILED',
      details: value
        ? `it returned ${value.length} bytes, not a u8`
        : 'it returned no value: is the package deployed on this network?',
    })
  }
  return { status: value[0]!, detail: undefined }
}
