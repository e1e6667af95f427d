// No call of an account-mode intent may target the account itself (its ERC-7821 `execute` trusts
// self-calls), the PolicyRegistry (the account owns its policies: a call there rewrites its own
// limits), the ledger or the executor (they hold every sender's nonces and spend) or the account
// delegate. The ledger refuses these too, but only after the signature: the gateway refuses them
// first, 403 0x10 whoever signed, naming the call, before anything is simulated or sent.
import { type Address, getAddress, isAddressEqual } from 'viem'
import { intentAccountArtifact } from '../../../contracts/intentAccountArtifact.ts'
import type { FieldError } from '../../../errors/inputError.ts'
import type { Intent } from '../../../ports/intent.ts'
import { Status } from '../../../status/statusCodes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import type { EvmContext } from './evmContext.ts'

export type ForbiddenTarget = { ok: false; status: number; detail: string; errors: FieldError[] }

/** The first call that targets one of the forbidden addresses, as a refusal naming it (`target`, or `calls[i]`); undefined when none does. */
export async function forbiddenTarget(
  ctx: EvmContext,
  intent: Intent,
  delegate: Address,
): Promise<ForbiddenTarget | undefined> {
  const { chain } = ctx
  const ledger = await ledgerOf(ctx, delegate)
  const forbidden: [Address, string][] = [
    [getAddress(intent.sender), 'the account itself'],
    [chain.registry, 'the PolicyRegistry'],
    [ledger, 'the IntentLedger'],
    [chain.executor, 'the IntentExecutor'],
    [delegate, 'the account delegate'],
  ]
  const calls = intent.calls ?? [{ target: intent.target }]
  for (const [i, call] of calls.entries()) {
    const hit = forbidden.find(([address]) => isAddressEqual(address, call.target as Address))
    if (!hit) continue
    const field = intent.calls ? `calls[${i}]` : 'target'
    const message = `targets ${hit[1]} (${hit[0]}): no account-mode intent may call the account, the policy registry, the ledger, the executor or the delegate, whoever signed it`
    return {
      ok: false,
      status: Status.DISALLOWED,
      detail: `${field} ${message}; nothing was sent`,
      errors: [{ field, message }],
    }
  }
  return undefined
}

/** The delegate's ledger, read once per chain (an immutable of its code); a failed read is tried again next time. */
function ledgerOf(ctx: EvmContext, delegate: Address): Promise<Address> {
  const { state, client, chain } = ctx
  if (!state.accountLedger) {
    state.accountLedger = client
      .readContract({ address: delegate, abi: intentAccountArtifact.abi, functionName: 'ledger' })
      .then(getAddress, (err: unknown) => {
        state.accountLedger = undefined
        throw classifyRpcError(err, chain.chainId, `ledger() read of the account delegate ${delegate}`)
      })
  }
  return state.accountLedger
}
