// Sorts a failure of an @solana/kit RPC call into what the gateway answers, as the EVM side does:
// the node could not be reached or did not answer in time (0xF4, 503), or it answered with an
// error (0xF0, 502).
import { isSolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR } from '@solana/kit'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { Status } from '../../status/statusCodes.ts'

export function classifySolanaRpcError(err: unknown, chainId: string, what: string): GatewayError {
  if (err instanceof GatewayError) return err
  if (isSolanaError(err, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
    const status = err.context.statusCode
    if (status >= 500 || status === 429 || status === 408)
      return new ChainUnavailableError(chainId, { cause: err, details: `the RPC endpoint answered HTTP ${status}` })
    return new GatewayError(`The chain rejected the ${what}`, {
      code: 'CHAIN_CALL_FAILED',
      status: Status.GATEWAY_FAILURE,
      cause: err,
      details: `the RPC endpoint answered HTTP ${status}`,
    })
  }
  // fetch() fails with a TypeError (connection refused, reset, DNS); our timeout aborts it.
  const name = (err as { name?: string } | undefined)?.name
  if (err instanceof TypeError || name === 'TimeoutError' || name === 'AbortError') {
    return new ChainUnavailableError(chainId, {
      cause: err,
      ...(name === 'TimeoutError' ? { details: 'the RPC endpoint did not answer in time' } : {}),
    })
  }
  return new GatewayError(`The chain rejected the ${what}`, {
    code: 'CHAIN_CALL_FAILED',
    status: Status.GATEWAY_FAILURE,
    cause: err,
    details: err instanceof Error ? err.message.slice(0, 300) : undefined,
  })
}
