// A viem transport over the endpoints a chain's runtime lends (ports/chainEndpoints.ts): the
// settlement's client reaches the node through the chain's own pool, which fails over between
// endpoints itself, so viem retries nothing (as the runtime's own client).
import { custom, type Transport } from 'viem'
import type { LentEndpoints } from '../../../ports/chainEndpoints.ts'

export function toEvmTransport(endpoints: LentEndpoints): Transport {
  return custom({ request: (call) => endpoints.request(call) }, { retryCount: 0 })
}
