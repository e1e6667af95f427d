// "n of m confirmations" while --wait waits for a mined execution to be final. m is the chain's
// depth, answered with the execution (`confirmationsRequired`, present when above 1); n is how
// deep its block is: the report's own `confirmations` when the gateway sends one, else the
// chain's head as GET /health reads it (chains[].blockNumber) minus the block, plus one. The
// event stream says `mined` and later `final`, nothing per block: this reads the head between.
import type { GatewayResult } from '../gatewayResult.ts'

export type FollowConfirmationsParameters = {
  /** The gateway's base URL (its /health is read). */
  url: string
  fetch: typeof fetch
  headers?: Record<string, string> | undefined
  /** m, when the caller has not seen the execution yet (status <hash> --wait): read once. */
  requiredFor: (chainId: string) => Promise<number | undefined>
  /** Called once per new depth. */
  onDepth: (depth: { blockNumber: bigint; confirmations: number; required: number }) => void
  /** Between two head reads; default 1 s. */
  intervalMs?: number
}

export type ConfirmationsFollower = {
  /** m as the last answer said it (undefined: 1, final once mined). */
  required: number | undefined
  /** The depth last seen, for the poll lines. */
  last: number | undefined
  /** An answer was read (execute's, a poll's): learn m from it, and n when it carries `confirmations`. */
  seen(result: GatewayResult): void
  /** The execution was mined in this block: read the head until it is m deep, or until stop(). */
  mined(params: { chainId: string; blockNumber: bigint }): void
  /** The gateway says the execution in this block is final: m deep (said once, if no head read saw it yet); stops. */
  final(blockNumber: bigint): void
  stop(): void
}

/** m and n as an answer carries them (n only from a gateway that reports `confirmations`). */
function depthOf(result: GatewayResult): { required: number | undefined; confirmations: number | undefined } {
  const body = result.body as { confirmationsRequired?: unknown; confirmations?: unknown }
  return {
    required: typeof body.confirmationsRequired === 'number' ? body.confirmationsRequired : undefined,
    confirmations: typeof body.confirmations === 'number' ? body.confirmations : undefined,
  }
}

export function followConfirmations({
  url,
  fetch,
  headers = {},
  requiredFor,
  onDepth,
  intervalMs = 1_000,
}: FollowConfirmationsParameters): ConfirmationsFollower {
  let timer: ReturnType<typeof setTimeout> | undefined
  let following: { chainId: string; blockNumber: bigint } | undefined
  let stopped = false

  const readHead = async (chainId: string): Promise<bigint | undefined> => {
    const response = await fetch(new URL('health', url.endsWith('/') ? url : `${url}/`), { headers })
    if (!response.ok) return undefined
    const body = (await response.json()) as { chains?: { chainId?: string; blockNumber?: string }[] }
    const head = body.chains?.find((c) => c.chainId === chainId)?.blockNumber
    return head !== undefined && /^\d+$/.test(head) ? BigInt(head) : undefined
  }

  const follower: ConfirmationsFollower = {
    required: undefined,
    last: undefined,
    seen(result) {
      const { required, confirmations } = depthOf(result)
      if (required !== undefined) follower.required = required
      if (
        confirmations !== undefined &&
        follower.required !== undefined &&
        result.blockNumber !== undefined &&
        confirmations !== follower.last
      ) {
        follower.last = confirmations
        onDepth({ blockNumber: result.blockNumber, confirmations, required: follower.required })
      }
    },
    mined({ chainId, blockNumber }) {
      if (stopped || (following?.chainId === chainId && following.blockNumber === blockNumber)) return
      following = { chainId, blockNumber }
      follower.last = undefined
      if (timer) clearTimeout(timer)
      const step = async () => {
        timer = undefined
        if (stopped || following?.blockNumber !== blockNumber) return
        try {
          follower.required ??= await requiredFor(chainId)
          const required = follower.required
          if (required === undefined) return // depth 1: final as soon as mined, nothing to count
          const head = await readHead(chainId)
          if (stopped || following?.blockNumber !== blockNumber) return
          if (head !== undefined && head >= blockNumber) {
            const confirmations = Math.min(required, Number(head - blockNumber + 1n))
            if (confirmations !== follower.last) {
              follower.last = confirmations
              onDepth({ blockNumber, confirmations, required })
            }
            if (confirmations >= required) return // deep enough: the gateway says final at its next check
          }
        } catch {
          // A read that failed says nothing of the depth; the next one may.
        }
        if (!stopped) timer = setTimeout(step, intervalMs)
      }
      void step()
    },
    final(blockNumber) {
      const required = follower.required
      if (!stopped && required !== undefined && follower.last !== required) {
        follower.last = required
        onDepth({ blockNumber, confirmations: required, required })
      }
      follower.stop()
    },
    stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = undefined
    },
  }
  return follower
}
