// Reads the ERC-1066 code out of an executor revert: ExecutionDenied(bytes1) carries the
// validator's code, ExecutionFailed(bytes1, bytes) the code of a failed target call. The revert
// comes as viem decoded it (a contract call) or as the node's raw revert data (eth_estimateGas,
// eth_call, a trace of a mined transaction).
import { BaseError, ContractFunctionRevertedError, decodeErrorResult, type Hex, hexToNumber } from 'viem'
import { intentExecutorArtifact } from '../../contracts/intentExecutorArtifact.ts'

export type DecodedRevert = { status: number; detail: string }

export function decodeExecutorRevert(err: unknown): DecodedRevert | undefined {
  if (!(err instanceof BaseError)) return undefined
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null
  if (reverted) {
    const { errorName, args } = reverted.data ?? {}
    return toDecoded(errorName, args, reverted.reason ?? errorName ?? reverted.signature)
  }
  const data = revertDataOf(err)
  return data === undefined ? undefined : decodeRevertData(data)
}

/** The code of raw revert data; undefined when there is none (`0x`: a revert without data, or out of gas). */
export function decodeRevertData(data: Hex): DecodedRevert | undefined {
  if (data.length < 10) return undefined
  try {
    const { errorName, args } = decodeErrorResult({ abi: intentExecutorArtifact.abi, data }) as {
      errorName: string
      args: readonly unknown[] | undefined
    }
    const reason =
      errorName === 'Error' ? String(args?.[0]) : errorName === 'Panic' ? `panic ${String(args?.[0])}` : errorName
    return toDecoded(errorName, args, reason)
  } catch {
    return { status: 0x00, detail: `the executor reverted with data it does not declare: ${data.slice(0, 202)}` }
  }
}

function toDecoded(
  errorName: string | undefined,
  args: readonly unknown[] | undefined,
  reason: string | undefined,
): DecodedRevert {
  if (errorName === 'ExecutionDenied')
    return { status: hexToNumber(args![0] as Hex), detail: 'the executor refused the intent' }
  if (errorName === 'ExecutionFailed') {
    const data = args![1] as Hex
    return {
      status: hexToNumber(args![0] as Hex),
      detail: `the target call reverted${data !== '0x' ? ` with data ${data.slice(0, 202)}` : ''}`,
    }
  }
  return { status: 0x00, detail: `the executor reverted: ${reason ?? 'no reason given'}` }
}

/** The revert data a node put in its error (JSON-RPC error `data`), anywhere in the cause chain. */
function revertDataOf(err: BaseError): Hex | undefined {
  let found: Hex | undefined
  err.walk((e) => {
    const data = (e as { data?: unknown }).data
    const hex =
      typeof data === 'string'
        ? data
        : typeof (data as { data?: unknown } | undefined)?.data === 'string'
          ? (data as { data: string }).data
          : undefined
    if (hex && /^0x[0-9a-fA-F]*$/.test(hex) && hex.length >= 10) found = hex as Hex
    return found !== undefined
  })
  return found
}
