// One read of the chain: the validator's ERC-1066 code for the intent, or, with a signature, the
// executor's checkSigned (the signature and the validator in the same call).
import type { Hex } from 'viem'
import { GatewayError } from '../../../errors/gatewayError.ts'
import type { Intent } from '../../../ports/intent.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { assertAvailable, type EvmContext } from './evmContext.ts'
import { validateCalldata } from './executorCalls.ts'

export async function validate(ctx: EvmContext, intent: Intent, signature?: Hex): Promise<number> {
  assertAvailable(ctx)
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
