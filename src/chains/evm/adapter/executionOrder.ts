// The order in which the gateway's executions on one chain are signed, held against what each
// simulation assumed (docs/api-contract.md §14: simulate as the chain will run it).
//
// A simulation runs a call after the gateway's executions it knew of (replayed on `latest`, or in
// the node's pending block) and after the calls asked before it in its batch (simulationBatcher.ts).
// Its result holds only if the chain runs the call after exactly those: every earlier batch-mate
// sent, and nothing else of the gateway's signed in between. A batch-mate that is not sent (its
// payment's settlement failed, a limit that needed another simulation, a cancel), or an execution
// signed after the view was taken (another batch's, a paid execute sent once its settlement was
// mined), changes the state the call will meet: its gas may no longer be enough, it may revert.
// Such a call is simulated again before it is signed, never sent on the old result.
//
// Every execution passes a claim, under its relayer key's lock just before its signature: the
// claim counts it. A simulation's view counts the executions it included (`seen`), taken once every
// claimed execution is in what it replays (signed) or in the node's pool (its broadcast answered);
// the k-th call of a batch may claim only while every one before it claimed, and the count stands
// at `seen + k`. What cannot claim is simulated again.
//
// Not held here: the facilitator's settlement transactions (they are not the relayer keys'; a paid
// execute is simulated after its own one), and an execution the node refuses after it claimed
// (rare: the relayer cannot pay, the node failed): a later one simulated after it may then meet
// another state.

import type { BundleChunk } from '../relayer/sendBundled.ts'

/** One call's place in its simulated batch. */
export type SimulationTurn = {
  /** Whether `claim` would pass now. */
  fresh(): boolean
  /**
   * Synchronous, right before the call's signature (under its key's lock): true, and it counts as
   * sent, when every earlier call of its batch was sent and nothing else was signed since the view;
   * else false: simulate it again.
   */
  claim(): boolean
  /** Its signature failed after the claim: nothing of it will run. */
  unclaim(): void
  /** Not sent on this simulation's result (refused, simulated again, cancelled). */
  drop(): void
  /** Resolves once every earlier call of its batch was sent or dropped, or after `ms`. */
  settled(ms: number): Promise<void>
  /** When its batch was asked of the node (performance.now()), set by the batcher: the execute's log line splits its time there. */
  askedAt?: number
  /**
   * The bundle it was simulated in (simulatedBundles.ts), set by the batcher: it may be sent only
   * in a bundle with the calls simulated before it there (relayer/sendBundled.ts's chunk).
   */
  chunk?: BundleChunk
  /**
   * It comes after another call of its chunk, set by the batcher: sent in one bundle with the calls
   * before it there, it goes to the bundle at once rather than `settled` (the bundle claims in order).
   */
  follows?: boolean
}

export type ExecutionOrder = {
  /** A claim without a turn (an execution judged by eth_estimateGas): counted, never refused. */
  claimUnordered(): void
  /** A claimed execution's signature failed: it is no longer counted. */
  unclaim(): void
  /** A claimed execution was signed: a replay from now holds it. */
  noteSigned(): void
  /** A claimed execution's broadcast was answered (taken, refused or lost): a pending block from now holds it, or never will. */
  noteAnswered(): void
  /**
   * Waits at most `ms` until every claimed execution is signed (`signed`: a replay of the kept
   * transactions holds them) or answered (`answered`: the node's pending block does); then the
   * count a view taken now includes.
   */
  view(kind: 'signed' | 'answered', ms: number): Promise<number>
  /** The count a view taken now includes (no wait). */
  seen(kind: 'signed' | 'answered'): number
  /** The turns of a batch of `size` calls simulated on a view of `seen` executions. */
  batch(seen: number, size: number): SimulationTurn[]
}

type Fate = 'open' | 'sent' | 'dropped'

export function createExecutionOrder(): ExecutionOrder {
  let claimed = 0
  let signed = 0
  let answered = 0
  const quiet: Array<() => void> = []
  const changed = () => {
    for (const wake of quiet.splice(0)) wake()
  }
  const seen = (kind: 'signed' | 'answered') => (kind === 'signed' ? signed : answered)

  return {
    claimUnordered() {
      claimed++
    },
    unclaim() {
      claimed--
      changed()
    },
    noteSigned() {
      signed++
      changed()
    },
    noteAnswered() {
      answered++
      changed()
    },
    seen,
    async view(kind, ms) {
      const deadline = performance.now() + ms
      while (seen(kind) < claimed && performance.now() < deadline) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, deadline - performance.now()))
          quiet.push(() => {
            clearTimeout(timer)
            resolve()
          })
        })
      }
      return seen(kind)
    },
    batch(view, size) {
      const fates: Fate[] = Array.from({ length: size }, () => 'open')
      // The calls before `sent` were all sent, those before `decided` all sent or dropped; the
      // waits of `settled`, by call.
      let sent = 0
      let decided = 0
      // The waits of the calls before `woken` were woken (none waits there again: `settled` answers at once).
      let woken = 0
      const wakes: Array<Array<() => void> | undefined> = []
      const advance = () => {
        while (sent < size && fates[sent] === 'sent') sent++
        while (decided < size && fates[decided] !== 'open') decided++
        for (; woken <= decided && woken < size; woken++) {
          const waiting = wakes[woken]
          wakes[woken] = undefined
          for (const wake of waiting ?? []) wake()
        }
      }
      return fates.map((_, k): SimulationTurn => {
        const fresh = () => fates[k] === 'open' && sent >= k && claimed === view + k
        return {
          fresh,
          claim() {
            if (!fresh()) return false
            claimed++
            fates[k] = 'sent'
            advance()
            return true
          },
          unclaim() {
            if (fates[k] !== 'sent') return
            claimed--
            fates[k] = 'dropped'
            sent = Math.min(sent, k)
            advance()
            changed()
          },
          drop() {
            if (fates[k] !== 'open') return
            fates[k] = 'dropped'
            advance()
          },
          settled: (ms) =>
            decided >= k
              ? Promise.resolve()
              : new Promise<void>((resolve) => {
                  const timer = setTimeout(resolve, ms)
                  const waiting = wakes[k] ?? []
                  waiting.push(() => {
                    clearTimeout(timer)
                    resolve()
                  })
                  wakes[k] = waiting
                }),
        }
      })
    },
  }
}
