// The deployment the transactions call: the package and the Hub's shared-object reference (looked
// up once, then cached: a shared object's initial version never changes).
import { GatewayError } from '../../errors/gatewayError.ts'
import { readSharedObject } from './readSharedObject.ts'
import type { SuiContext } from './suiContext.ts'
import type { SuiDeployment } from './suiIntentModule.ts'

export async function suiDeploymentOf(ctx: SuiContext): Promise<SuiDeployment> {
  if (!ctx.objects.hub) {
    const found = await readSharedObject(ctx, ctx.hubId, 'the Hub object')
    if (!found.ok)
      throw new GatewayError('The Sui deployment is incomplete', { code: 'CHAIN_CALL_FAILED', details: found.reason })
    ctx.objects.hub = found.object
  }
  return { packageId: ctx.packageId, hub: ctx.objects.hub }
}
