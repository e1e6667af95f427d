// The intent's policy object, or the reason it cannot serve (answered DISALLOWED, as EVM answers an
// unknown policy). A policy found is cached for good: its initial shared version never changes.
import { normalizeSuiAddress } from '@mysten/sui/utils'
import type { Intent } from '../../ports/intent.ts'
import { readSharedObject } from './readSharedObject.ts'
import type { SuiContext } from './suiContext.ts'
import type { SharedObject } from './suiIntentModule.ts'

export async function suiPolicyOf(ctx: SuiContext, intent: Intent): Promise<SharedObject | string> {
  const id = normalizeSuiAddress(intent.policyId)
  const cached = ctx.objects.policies.get(id)
  if (cached) return cached
  const found = await readSharedObject(ctx, id, 'the policy')
  if (!found.ok) return found.reason
  if (found.type !== ctx.policyType)
    return `object ${id} is a ${found.type ?? 'non-Move object'}, not a ${ctx.policyType}`
  ctx.objects.policies.set(id, found.object)
  return found.object
}
