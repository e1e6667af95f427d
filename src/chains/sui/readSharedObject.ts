// One object by id, as a shared object the transactions can name, or why it cannot be one.
import { callSui } from './callSui.ts'
import type { SuiContext } from './suiContext.ts'
import type { SharedObject } from './suiIntentModule.ts'

export type SharedObjectLookup =
  | { ok: true; object: SharedObject; type: string | undefined }
  | { ok: false; reason: string }

export async function readSharedObject(ctx: SuiContext, objectId: string, what: string): Promise<SharedObjectLookup> {
  const { objects } = await callSui(ctx, 'getObjects', `lookup of ${what}`, (signal) =>
    ctx.client.core.getObjects({ objectIds: [objectId], signal }),
  )
  const found = objects[0]
  if (!found || found instanceof Error)
    return { ok: false, reason: `${what} ${objectId} does not exist on ${ctx.chainId}` }
  if (found.owner?.$kind !== 'Shared') return { ok: false, reason: `${what} ${objectId} is not a shared object` }
  return {
    ok: true,
    object: { objectId: found.objectId, initialSharedVersion: found.owner.Shared.initialSharedVersion },
    type: found.type,
  }
}
