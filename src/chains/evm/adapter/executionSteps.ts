// How long each step of one execute took, from the times its steps ended: the 'execute sent' log
// line carries them, and the bench's latency phase reads them (docs/performance.md).

/** When an execute's steps ended (performance.now()); undefined: not known (no request time, no batch). */
export type ExecutionStepMarks = {
  receivedAt: number | undefined
  preparedAt: number
  askedAt: number | undefined
  simulatedAt: number
  claimedAt?: number | undefined
  signedAt?: number | undefined
}

/**
 * How long each step of an execute took, in ms, for its 'execute sent' line (the bench's latency
 * phase reads them): `intake`, from its request to here (the body, the hooks, the journal's claim,
 * a payment's check); `batching`, to its simulation's batch asked of the node (the relayer key, the
 * fees, the gather window, the wait for the executions claimed before it to be signed);
 * `simulation`, to the node's answer (to the last, when simulated again); `turn`, to its claim (its
 * batch-mates sent before it, a paid execute's settlement, the relayer key's lock); `signing`, to
 * its signature; `broadcast`, to the node's answer to it (the journal's fsync, the broadcasts of the
 * nonces before its own). A step whose start is not known is left out, and the next one counts
 * from the step before.
 */
export function executionSteps(marks: ExecutionStepMarks, sentAt: number): Record<string, number> {
  const steps: Record<string, number> = {}
  let from = marks.receivedAt
  const step = (name: string, at: number | undefined) => {
    if (at === undefined) return
    if (from !== undefined) steps[name] = Math.round((at - from) * 10) / 10
    from = at
  }
  step('intake', marks.preparedAt)
  step('batching', marks.askedAt)
  step('simulation', marks.simulatedAt)
  step('turn', marks.claimedAt)
  step('signing', marks.signedAt)
  step('broadcast', sentAt)
  return steps
}
