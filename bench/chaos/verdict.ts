// The campaign's verdict, assembled from every phase: the chain is asked how often each intent ran
// and whether any relayer nonce is left behind a gap; each phase's own checks (fencing, database
// faults, payments) are added; the verdict line names N, K and F.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createDevClients, intentExecutorArtifact } from '../gatewayParts.ts'
import { type Campaign, phaseNames } from './campaign.ts'
import { faultKinds, orphanDepth } from './faultPhase.ts'
import type { FaultKind } from './faultProxy.ts'
import { nonceCheck } from './nonceCheck.ts'
import { rpc } from './rpc.ts'

/** How long the relayer nonces may take to converge once every intent is answered and every journal settled. */
const nonceSettleMs = 20_000

export async function verdict(
  campaign: Campaign,
  { fromBlock, started }: { fromBlock: bigint; started: number },
): Promise<boolean> {
  const { devnet, intents, log } = campaign
  await rpc(devnet.anvil.rpcUrl, 'anvil_mine', ['0x2'])
  const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
  const logs = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock })
  const times = new Map<string, number>()
  for (const l of logs) times.set(l.args.intentHash!, (times.get(l.args.intentHash!) ?? 0) + 1)
  const wrong = intents.filter((i) => times.get(i.hash) !== 1)
  const unanswered = intents.filter((i) => i.unanswered)
  // The gateways fill a relayer nonce left empty under queued transactions once two reconciliation
  // passes saw it (about a second): the check waits up to nonceSettleMs for that, and says how long.
  const nonceStarted = performance.now()
  let { problems: nonceProblems, stale } = await nonceCheck(devnet, campaign.relayers)
  while (nonceProblems.length > 0 && performance.now() - nonceStarted < nonceSettleMs) {
    await new Promise((r) => setTimeout(r, 1000))
    ;({ problems: nonceProblems, stale } = await nonceCheck(devnet, campaign.relayers))
  }
  const nonceWaitS = (performance.now() - nonceStarted) / 1000
  const faults = campaign.nodes.reduce(
    (sum, n) => {
      for (const k of faultKinds) sum[k] += n.proxy.faults[k]
      return sum
    },
    { http500: 0, timeout: 0, reset: 0, lag: 0 } as Record<FaultKind, number>,
  )
  const rpcFaults = Object.values(faults).reduce((a, b) => a + b, 0)
  const otherFaults = Object.values(campaign.otherFaults).reduce((a, b) => a + b, 0)
  const F = rpcFaults + otherFaults
  // N counts every runtime: EVM's intents as the chain's events say, the others as their phases' tallies did.
  const runtimes = [
    { runtime: 'EVM', sent: intents.length, exactlyOnce: intents.length - wrong.length },
    ...campaign.otherRuntimes,
  ].filter((r) => r.sent > 0)
  const exactlyOnce = runtimes.reduce((n, r) => n + r.exactlyOnce, 0)
  const N = runtimes.reduce((n, r) => n + r.sent, 0)
  const byRuntime = runtimes
    .map((r) => `${r.runtime} ${r.exactlyOnce === r.sent ? r.sent : `${r.exactlyOnce} of ${r.sent}`}`)
    .join(', ')
  const failedChecks = campaign.checks.filter((c) => !c.ok)
  const seconds = (performance.now() - started) / 1000
  // The payers' clause of the verdict line: every check a payment phase made about what a payer paid.
  const payerChecks = campaign.checks.filter((c) => /payer/i.test(c.name))
  const payers =
    payerChecks.length === 0
      ? 'no paid intents in this run'
      : payerChecks.every((c) => c.ok)
        ? 'payers charged exactly once'
        : `payers NOT charged exactly once (${payerChecks.filter((c) => !c.ok).length} of ${payerChecks.length} payer checks failed)`
  log(
    `\nphases reached before each kill:\n${campaign.phasesHit.map((p) => `  ${p.scenario.padEnd(8)} ${p.instance.padEnd(8)} ${p.reached ? 'hit   ' : 'MISSED'} ${phaseNames[p.phase]}`).join('\n')}`,
  )
  log(
    `faults: ${rpcFaults} RPC faults (HTTP 500 ${faults.http500}, timeouts ${faults.timeout}, resets after the node got the request ${faults.reset}, lagging block numbers ${faults.lag}); ${
      Object.entries(campaign.otherFaults)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'no other faults'
    } (a reorg orphans ${orphanDepth} blocks)`,
  )
  log(
    `relayer nonces: ${nonceProblems.length === 0 ? `consistent for ${campaign.relayers.length} keys (mined = pending, nothing in the pool at or above the mined nonce)` : nonceProblems.join('; ')} (checked for ${nonceWaitS.toFixed(1)} s after the last answer, ${nonceSettleMs / 1000} s at most)`,
  )
  for (const line of stale) log(`  ${line}`)
  if (campaign.checks.length > 0)
    log(
      `checks:\n${campaign.checks.map((c) => `  ${c.ok ? 'ok    ' : 'FAILED'} ${c.phase}: ${c.name}: ${c.detail}`).join('\n')}`,
    )
  for (const w of wrong)
    log(
      `  NOT exactly once: ${w.hash} (${w.label}) executed ${times.get(w.hash) ?? 0} times; last answer ${w.answer ?? 'none'}`,
    )
  for (const u of unanswered)
    log(
      `  never answered 200 by a gateway (the chain counted it ${times.get(u.hash) ?? 0} times): ${u.hash} (${u.label})`,
    )
  const ok =
    wrong.length === 0 &&
    nonceProblems.length === 0 &&
    unanswered.length === 0 &&
    campaign.unsettled.length === 0 &&
    failedChecks.length === 0
  log(
    `\n${exactlyOnce} of ${N} intents executed exactly once (${byRuntime}), ${payers}, ${campaign.kills} kills, ${F} faults, relayer nonces ${nonceProblems.length === 0 ? 'consistent' : 'NOT consistent'}, ${campaign.checks.length - failedChecks.length} of ${campaign.checks.length} checks held   (${seconds.toFixed(0)} s, seed ${campaign.seed})`,
  )
  log(`verdict: ${ok ? 'PASS' : 'FAIL'}`)
  const file = join(
    process.env.CHAOS_RESULTS_DIR ?? 'bench/results',
    `chaos-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  )
  writeFileSync(
    file,
    JSON.stringify(
      {
        quick: campaign.quick,
        seed: campaign.seed,
        intents: N,
        runtimes,
        exactlyOnce,
        kills: campaign.kills,
        faults,
        otherFaults: campaign.otherFaults,
        phasesHit: campaign.phasesHit,
        checks: campaign.checks,
        nonceProblems,
        nonceWaitS,
        stalePool: stale,
        unsettled: campaign.unsettled,
        unanswered: unanswered.map((u) => ({ hash: u.hash, label: u.label, answer: u.answer, diagnosis: u.diagnosis })),
        wrong: wrong.map((w) => ({ ...w, times: times.get(w.hash) ?? 0, body: undefined })),
        seconds,
        ok,
      },
      null,
      2,
    ),
  )
  log(`wrote ${file}; the gateways' logs are in ${campaign.logDir}`)
  return ok
}
