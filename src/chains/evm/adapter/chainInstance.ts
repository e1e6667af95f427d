// Which instance of the chain the node serves: the genesis hash, and the instance id of a dev node
// that has one (anvil's genesis is the same on every start; its anvil_metadata instanceId is not).
// A change means the chain was reset on the same id: the relayer reads its nonces again.
import { classifyRpcError } from '../classifyRpcError.ts'
import type { EvmContext } from './evmContext.ts'
import { isUnknownMethod } from './nodeErrors.ts'

/** How long a chain instance read is reused by the request path. */
const instanceReuseMs = 1000

export async function chainInstance(ctx: EvmContext, maxAgeMs = instanceReuseMs): Promise<string> {
  const { state } = ctx
  if (state.instance && Date.now() - state.instance.at <= maxAgeMs) return state.instance.value
  // Concurrent requests share one read (under load, every execute of a turn found the last one
  // stale at once); a caller that wants a read made after it asked (maxAgeMs 0) makes its own.
  if (maxAgeMs > 0 && state.instanceRead) return state.instanceRead
  const read = readAndCompare(ctx)
  if (maxAgeMs > 0) {
    state.instanceRead = read
    void read.then(forget, forget)
  }
  return read
  function forget() {
    if (state.instanceRead === read) state.instanceRead = undefined
  }
}

async function readAndCompare(ctx: EvmContext): Promise<string> {
  const { state, chain, log, relayers } = ctx
  let value: string
  try {
    value = await readInstance(ctx)
  } catch (err) {
    throw classifyRpcError(err, chain.chainId, 'chain instance read')
  }
  if (state.instance && state.instance.value !== value) {
    // A chain reset on the same id: nonces start again, whatever the relayer remembered.
    state.genesisHash = undefined
    log.warn(
      { before: state.instance.value, now: value },
      'the chain was reset (another chain instance answers on this chain id); the relayer reads its nonce again',
    )
    relayers?.resync()
  }
  state.instance = { value, at: Date.now() }
  return value
}

async function readInstance({ client, pool, state }: EvmContext): Promise<string> {
  state.genesisHash ??= (await client.getBlock({ blockNumber: 0n })).hash ?? undefined
  let id: string | undefined
  if (state.devNode) {
    try {
      id = ((await pool.request({ method: 'anvil_metadata', params: [] })) as { instanceId?: string } | null)
        ?.instanceId
    } catch (err) {
      if (!isUnknownMethod(err)) throw err
      state.devNode = false
    }
  }
  return id ? `${state.genesisHash}/${id}` : String(state.genesisHash)
}
