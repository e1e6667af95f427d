// Start-up check of the deployment: the package and the Hub exist, the Hub shared (then its
// reference is kept for the transactions).
import type { GatewayError } from '../../errors/gatewayError.ts'
import type { PreflightResult } from '../../ports/chainAdapter.ts'
import { callSui } from './callSui.ts'
import type { SuiContext } from './suiContext.ts'

export async function preflightSui(ctx: SuiContext): Promise<PreflightResult> {
  const { packageId, hubId } = ctx
  try {
    const { objects } = await callSui(ctx, 'getObjects', 'package lookup', (signal) =>
      ctx.client.core.getObjects({ objectIds: [packageId, hubId], signal }),
    )
    const missing: string[] = []
    if (!objects[0] || objects[0] instanceof Error) missing.push(`package ${packageId}`)
    const hub = objects[1]
    if (!hub || hub instanceof Error) missing.push(`hub ${hubId}`)
    else if (hub.owner?.$kind !== 'Shared') missing.push(`hub ${hubId} (not a shared object)`)
    else ctx.objects.hub = { objectId: hub.objectId, initialSharedVersion: hub.owner.Shared.initialSharedVersion }
    return missing.length === 0 ? { ok: true } : { ok: false, missing }
  } catch (err) {
    return { ok: false, unreachable: (err as GatewayError).shortMessage }
  }
}
