// One read of the chain: the validator's ERC-1066 code for the intent, or, with a signature, the
// executor's checkSigned (the signature and the validator in the same call).
import { type Address, encodeFunctionData, type Hex } from 'viem'
import { intentLedgerArtifact } from '../../../contracts/intentLedgerArtifact.ts'
import { GatewayError } from '../../../errors/gatewayError.ts'
import type { ValidateAnswer } from '../../../ports/chainAdapter.ts'
import type { AccountMode, Intent } from '../../../ports/intent.ts'
import { getStatusCode, isSuccessStatus, Status } from '../../../status/statusCodes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { toBatchTuple } from '../encodeBatchIntent.ts'
import { planAccount } from './accountMode.ts'
import { assertAvailable, type EvmContext } from './evmContext.ts'
import { checkBatchCalldata, checkIntentCalldata, validateCalldata } from './executorCalls.ts'

export async function validate(
  ctx: EvmContext,
  intent: Intent,
  signature?: Hex,
  account?: AccountMode,
): Promise<ValidateAnswer> {
  assertAvailable(ctx)
  if (account) return validateAccount(ctx, intent, signature, account)
  // A batch runs only from the sender's own account (the route refuses it in executor mode first).
  if (intent.calls)
    return {
      status: Status.DISALLOWED,
      detail: 'a batch (`calls`) runs only in account mode',
      errors: [{ field: 'mode', message: 'a batch needs `mode: "account"`' }],
    }
  const { chain, reads } = ctx
  const to = signature ? chain.executor : chain.validator
  const what = signature
    ? `checkSigned call to the executor at ${chain.executor}`
    : `canExecute call to the validator at ${chain.validator}`
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
      details:
        result === '0x'
          ? 'it returned no data: is a validator deployed at this address on this chain?'
          : 'it returned data that is not a bytes1',
    })
  }
  return Number.parseInt(result.slice(2, 4), 16)
}

/**
 * Account mode: checkIntent(intent, signature) at the sender's own address, the account's own
 * check (its key or a session key of the policy, then the shared ledger); a batch, checkBatch,
 * whose refusal of one call names it (`calls[i]`). An account not delegated yet is read with its
 * code overridden to 0xef0100 ‖ delegate (never relying on a node applying an authorization list
 * in a call). Unsigned: 0xE5, the account checks nothing without a signature.
 */
export async function validateAccount(
  ctx: EvmContext,
  intent: Intent,
  signature: Hex | undefined,
  account: AccountMode,
): Promise<ValidateAnswer> {
  const plan = await planAccount(ctx, intent, account)
  if (!plan.ok) return plan
  if (!signature) return Status.SIGNATURE_REQUIRED
  const overrides = plan.delegated ? undefined : { [plan.account]: { code: plan.code } }
  const call = (to: Address, data: Hex, what: string) => readCall(ctx, to, data, overrides, what)
  if (!intent.calls)
    return Number.parseInt(
      (
        await call(
          plan.account,
          checkIntentCalldata(intent, signature),
          `checkIntent call to the account ${plan.account}`,
        )
      ).slice(2, 4),
      16,
    )
  const result = await call(
    plan.account,
    checkBatchCalldata(intent, signature),
    `checkBatch call to the account ${plan.account}`,
  )
  const status = Number.parseInt(result.slice(2, 4), 16)
  if (isSuccessStatus(status) || !/^0x[0-9a-fA-F]{128}/.test(result)) return status
  const index = BigInt(`0x${result.slice(66, 130)}`)
  const field = await refusedCall(ctx, intent, status, index, call)
  if (!field) return status
  const message = `is refused: ${getStatusCode(status).description} (0x${status.toString(16).padStart(2, '0').toUpperCase()}), the code this call alone would get`
  return { status, detail: `${field} ${message}`, errors: [{ field, message }] }
}

/**
 * The call a batch's refusal concerns, or undefined when it concerns the whole batch. The ledger
 * answers index 0 both for the first call and for the batch's header (nonce, policy owner, chain,
 * time): a DISALLOWED at 0 is asked again of the ledger with no calls, which answers the header's
 * code, or 0xA1 (no calls) when the header passes and the first call was the one refused.
 */
async function refusedCall(
  ctx: EvmContext,
  intent: Intent,
  status: number,
  index: bigint,
  call: (to: Address, data: Hex, what: string) => Promise<Hex>,
): Promise<string | undefined> {
  if (index >= BigInt(intent.calls!.length)) return undefined
  if (index > 0n || status === Status.INSUFFICIENT_FUNDS) return `calls[${index}]`
  if (status !== Status.DISALLOWED) return undefined
  // Read by planAccount (forbiddenTarget) before any account-mode check.
  const ledger = await ctx.state.accountLedger
  if (!ledger) return undefined
  const data = encodeFunctionData({
    abi: intentLedgerArtifact.abi,
    functionName: 'canExecuteBatch',
    args: [{ ...toBatchTuple(intent), calls: [] }],
  })
  const header = await call(ledger, data, `canExecuteBatch call to the ledger ${ledger}`)
  return Number.parseInt(header.slice(2, 4), 16) === Status.UNSUPPORTED_ACTION ? 'calls[0]' : undefined
}

/** An eth_call at the latest block, with the sender's code overridden when it is not delegated yet; its result, at least one word. */
async function readCall(
  ctx: EvmContext,
  to: Address,
  data: Hex,
  overrides: Record<string, { code: Hex }> | undefined,
  what: string,
): Promise<Hex> {
  let result: unknown
  try {
    result = await ctx.pool.request({
      method: 'eth_call',
      params: [{ to, data }, 'latest', ...(overrides ? [overrides] : [])],
    })
  } catch (err) {
    throw classifyRpcError(err, ctx.chain.chainId, what)
  }
  if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{64}/.test(result)) {
    throw new GatewayError(`The chain rejected the ${what}`, {
      code: 'CHAIN_CALL_FAILED',
      details: 'it returned data that is not a bytes1',
    })
  }
  return result as Hex
}
