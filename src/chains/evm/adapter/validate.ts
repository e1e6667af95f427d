// One read of the chain: the validator's ERC-1066 code for the intent, or, with a signature, the
// executor's checkSigned (the signature and the validator in the same call).
import type { Hex } from 'viem'
import { GatewayError } from '../../../errors/gatewayError.ts'
import type { AccountMode, Intent } from '../../../ports/intent.ts'
import type { ValidateAnswer } from '../../../ports/chainAdapter.ts'
import { Status } from '../../../status/statusCodes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { assertAvailable, type EvmContext } from './evmContext.ts'
import { checkIntentCalldata, validateCalldata } from './executorCalls.ts'
import { planAccount } from './accountMode.ts'

export async function validate(ctx: EvmContext, intent: Intent, signature?: Hex, account?: AccountMode): Promise<ValidateAnswer> {
  assertAvailable(ctx)
  if (account) return validateAccount(ctx, intent, signature, account)
  const { chain, reads } = ctx
  const to = signature ? chain.executor : chain.validator
  const what = signature ? `checkSigned call to the executor at ${chain.executor}` : `canExecute call to the validator at ${chain.validator}`
  let result: Hex
  try {
    // A plain eth_call on the shared encoding, folded with other requests' reads into one
    // Multicall3 call where the chain has it: the hot path of every request.
    result = await reads.call({ to, data: validateCalldata(intent, signature) })
  } catch (err) {
    throw classifyRpcError(err, chain.chainId, what)
  }
  // bytes1 is returned left-aligned in one 32-byte word.
  if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{64}/.test(result)) {
    throw new GatewayError(`The chain rejected the ${what}`, {
      code: 'CHAIN_CALL_FAILED',
      details: result === '0x' ? 'it returned no data: is a validator deployed at this address on this chain?' : 'it returned data that is not a bytes1',
    })
  }
  return Number.parseInt(result.slice(2, 4), 16)
}

/**
 * Account mode: checkIntent(intent, signature) at the sender's own address, the account's own
 * check (its key or a session key of the policy, then the shared ledger). An account not delegated
 * yet is read with its code overridden to 0xef0100 ‖ delegate (never relying on a node applying an
 * authorization list in a call). Unsigned: 0xE5, the account checks nothing without a signature.
 */
export async function validateAccount(ctx: EvmContext, intent: Intent, signature: Hex | undefined, account: AccountMode): Promise<ValidateAnswer> {
  const plan = await planAccount(ctx, intent, account)
  if (!plan.ok) return plan
  if (!signature) return Status.SIGNATURE_REQUIRED
  const { chain, pool } = ctx
  const overrides = plan.delegated ? undefined : { [plan.account]: { code: plan.code } }
  let result: unknown
  try {
    result = await pool.request({ method: 'eth_call', params: [{ to: plan.account, data: checkIntentCalldata(intent, signature) }, 'latest', ...(overrides ? [overrides] : [])] })
  } catch (err) {
    throw classifyRpcError(err, chain.chainId, `checkIntent call to the account ${plan.account}`)
  }
  if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{64}/.test(result)) {
    throw new GatewayError(`The chain rejected the checkIntent call to the account ${plan.account}`, { code: 'CHAIN_CALL_FAILED', details: 'it returned data that is not a bytes1' })
  }
  return Number.parseInt(result.slice(2, 4), 16)
}
