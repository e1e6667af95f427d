// Reads the ERC-1066 code out of an executor revert: ExecutionDenied(bytes1) carries the
// validator's code, ExecutionFailed(bytes1, bytes) the code of a failed target call.
import { BaseError, ContractFunctionRevertedError, type Hex, hexToNumber } from 'viem'

export type DecodedRevert = { status: number; detail: string }

export function decodeExecutorRevert(err: unknown): DecodedRevert | undefined {
  if (!(err instanceof BaseError)) return undefined
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null
  if (!reverted) return undefined
  const { errorName, args } = reverted.data ?? {}
  if (errorName === 'ExecutionDenied') {
    return { status: hexToNumber(args![0] as Hex), detail: 'the executor refused the intent' }
  }
  if (errorName === 'ExecutionFailed') {
    const data = args![1] as Hex
    return { status: hexToNumber(args![0] as Hex), detail: `the target call reverted${data !== '0x' ? ` with data ${data.slice(0, 202)}` : ''}` }
  }
  return { status: 0x00, detail: `the executor reverted: ${reverted.reason ?? errorName ?? reverted.signature ?? 'no reason given'}` }
}
