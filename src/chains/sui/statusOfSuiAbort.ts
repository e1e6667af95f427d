// The status code an abort of a transaction carries: the abort code itself when our module aborted
// with a byte, else TRANSFER_FAILED naming where it happened.
import { Status } from '../../status/statusCodes.ts'
import { decodeMoveAbort, type ExecutionErrorLike } from './decodeMoveAbort.ts'
import type { SuiContext } from './suiContext.ts'
import { suiIntentModule } from './suiIntentModule.ts'

export function statusOfSuiAbort(
  ctx: SuiContext,
  error: ExecutionErrorLike | null | undefined,
): { status: number; detail: string } | undefined {
  const abort = decodeMoveAbort(error)
  if (!abort) return undefined
  const ours =
    (abort.package === undefined || abort.package === ctx.packageId) &&
    (abort.module === undefined || abort.module === suiIntentModule.module)
  if (ours && abort.code <= 0xffn)
    return { status: Number(abort.code), detail: `the Move module aborted with ${abort.code}` }
  return {
    status: Status.TRANSFER_FAILED,
    detail: `aborted in ${abort.package ?? '?'}::${abort.module ?? '?'} with code ${abort.code}`,
  }
}
