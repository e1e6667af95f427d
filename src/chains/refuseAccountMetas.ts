// Account metas belong to Solana's intents: a runtime that cannot carry them refuses a non-empty
// list instead of silently executing something other than what was signed.
import type { FieldError } from '../errors/inputError.ts'
import type { Intent } from '../ports/intent.ts'

export function refuseAccountMetas(intent: Intent, runtimeName: string): FieldError[] {
  return intent.accounts && intent.accounts.length > 0
    ? [
        {
          field: 'accounts',
          message: `must be absent or empty on ${runtimeName}: only Solana intents carry the target instruction's account metas`,
        },
      ]
    : []
}
