// Sui executes against the project's stand-in for a Sui full node (test/support/suiStandIn.ts:
// gRPC-web, the real @mysten/sui client, the relayer's signature and gas coin version checked as a
// node does; Move is not run, its answers are scripted). The stand-in runs in the campaign's own
// process, so it outlives every gateway the campaign kills; one gateway process on SQLite reaches it
// through a fault relay. SIGKILL with the simulation held, with ExecuteTransaction held (the
// transaction not at the node), right after the node executed it, and with the effects'
// checkpoint withheld and GetTransaction held; then RPC faults. Since the stand-in does not run
// Move, nothing on its side refuses a second execution of one nonce: the check counts, per
// intent, the distinct transactions the node executed (its own record), which must be one.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TransactionDataBuilder } from '@mysten/sui/transactions'
import { encodeSuiIntent } from '../../../src/chains/sui/encodeSuiIntent.ts'
import { suiRuntime } from '../../../src/chains/sui/suiRuntime.ts'
import { parseIntent } from '../../../src/intents/parseIntent.ts'
import { suiRelayer, suiSender } from '../../../test/support/suiGateway.ts'
import { startSuiStandIn } from '../../../test/support/suiStandIn.ts'
import type { Campaign, Phase, Sent } from '../campaign.ts'
import { phaseNames } from '../campaign.ts'
import { deliverToChain } from '../deliverToChain.ts'
import { startFaultProxy } from '../faultProxy.ts'
import { gatewayInstance } from '../gatewayInstance.ts'
import { settled } from '../settled.ts'
import { startSuiFaultRelay } from '../suiFaultRelay.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const chainId = 'sui:localnet'

export async function suiPhase(campaign: Campaign): Promise<void> {
  const { quick, random } = campaign
  const scenario = 'sui'
  const t = performance.now()
  const standIn = await startSuiStandIn({ relayer: suiRelayer.toSuiAddress() })
  campaign.cleanups.push(() => standIn.close())
  const relay = await startSuiFaultRelay({ target: standIn.url, random })
  campaign.cleanups.push(() => relay.close())
  const dir = mkdtempSync(join(tmpdir(), 'chaos-sui-'))
  campaign.cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
  const on = (v: string) => JSON.stringify({ [chainId]: v })
  const instance = gatewayInstance(
    'sui',
    {
      EXECUTOR_ADDRESSES: on(standIn.packageId),
      VALIDATOR_ADDRESSES: on(standIn.packageId),
      REGISTRY_ADDRESSES: on(standIn.hubId),
      RPC_URLS: on(relay.url),
      SUI_RELAYER_PRIVATE_KEY: suiRelayer.getSecretKey(),
      JOURNAL_PATH: join(dir, 'journal.sqlite'),
      LOG_LEVEL: 'info',
      RECEIPT_TIMEOUT_MS: '8000',
      RECEIPT_POLL_MS: '100',
      RPC_TIMEOUT_MS: '1500',
      RECONCILE_INTERVAL_MS: '500',
      MAX_CONNECTIONS_PER_CLIENT: '10000',
      RATE_LIMIT_MAX: '1000000',
      STANDING_MAX_REVERTS_PER_SENDER: '0',
      STANDING_MAX_REVERTS_PER_CLIENT: '0',
    },
    join(campaign.logDir, 'sui.log'),
  )
  campaign.cleanups.push(() => instance.stop())
  await instance.start()
  // A node of the campaign (settled() asks its journal); its JSON-RPC proxy is unused, its faults count nothing.
  const idle = await startFaultProxy({ target: standIn.url })
  campaign.cleanups.push(() => idle.close())
  const node = { instance, proxy: idle, restarts: 0 }
  campaign.log(
    `\nsui executes: one gateway on SQLite against the Sui stand-in (in the campaign's process; Move not run), through a fault relay`,
  )
  const sent: Array<Sent & { nonce: bigint }> = []
  let nonce = 1n
  const make = async (count: number, label: string) => {
    const made = await Promise.all(
      Array.from({ length: count }, async () => {
        const n = nonce++
        const body = {
          sender: suiSender.toSuiAddress(),
          target: `0x${'22'.repeat(32)}`,
          data: '0x',
          value: '1000',
          nonce: String(n),
          policyId: standIn.policyId,
        }
        const parsed = parseIntent(body as never, suiRuntime)
        const { signature } = await suiSender.signPersonalMessage(encodeSuiIntent(parsed))
        return {
          hash: suiRuntime.hashIntent(parsed),
          body: JSON.stringify({ ...body, signature: `0x${Buffer.from(signature, 'base64').toString('hex')}` }),
          label,
          nonce: n,
        }
      }),
    )
    sent.push(...made)
    return made
  }
  const deliver = (s: Sent) => deliverToChain(campaign, s, node, { chainId })
  const executes = () => standIn.calls.filter((c) => c.method === 'ExecuteTransaction').length
  // Kills.
  for (const phase of ['claim', 'journaled', 'broadcast', 'receipt'] as Phase[]) {
    const batch = await make(quick ? 3 : 10, `${scenario}: kill ${phaseNames[phase]}`)
    const before = executes()
    if (phase === 'claim') standIn.faults.set('SimulateTransaction', { kind: 'hang' })
    if (phase === 'journaled') standIn.faults.set('ExecuteTransaction', { kind: 'hang' })
    if (phase === 'receipt') {
      standIn.checkpointOnExecute = false
      standIn.faults.set('GetTransaction', { kind: 'hang' })
    }
    const first = batch.map((s) =>
      fetch(`${instance.url}/intents/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-chain-id': chainId },
        body: s.body,
      })
        .then((r) => r.text())
        .catch(() => undefined),
    )
    // The moment: a held call arrived (seen as no new execute yet, then a pause), or the node executed one.
    const reached = (async () => {
      for (let i = 0; i < 2000; i++) {
        if (phase === 'broadcast' || phase === 'receipt' ? executes() > before : standIn.calls.length > 0 && i > 10)
          return true
        await sleep(10)
      }
      return false
    })()
    const hit = await reached
    await instance.kill()
    campaign.kills++
    campaign.phasesHit.push({ scenario, phase, instance: 'sui', reached: hit })
    standIn.faults.clear()
    standIn.checkpointOnExecute = true
    await Promise.all(first)
    await instance.start()
    const started = performance.now()
    await Promise.all(batch.map(deliver))
    campaign.log(
      `  ${hit ? 'killed' : 'killed (moment not seen)'} sui ${phaseNames[phase]}; restarted; ${batch.length} intents answered in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    )
  }
  // RPC faults.
  const faulted = await make(quick ? 10 : 100, `${scenario}: RPC faults`)
  relay.rate = 0.12
  const delivering = Promise.all(faulted.map(deliver))
  await Promise.race([delivering, sleep(quick ? 20_000 : 45_000)])
  relay.rate = 0
  await delivering
  const faults = relay.faults.http500 + relay.faults.timeout + relay.faults.reset
  campaign.otherFaults['Sui RPC fault'] = (campaign.otherFaults['Sui RPC fault'] ?? 0) + faults
  await settled(campaign, [node])
  // The stand-in's record: distinct transactions it executed, by the nonce argument (input 6: hub, policy, clock, sender, target, value, nonce).
  const ran = new Map<bigint, Set<string>>()
  for (const c of standIn.calls) {
    if (c.method !== 'ExecuteTransaction' || !c.bytes || !c.transaction) continue
    const digest = TransactionDataBuilder.getDigestFromBytes(c.bytes)
    if (!standIn.executed.has(digest)) continue
    const input = c.transaction.inputs[6]
    if (!input?.Pure) continue
    const n = Buffer.from(input.Pure.bytes, 'base64').readBigUInt64LE()
    ran.set(n, (ran.get(n) ?? new Set()).add(digest))
  }
  const wrong = sent.filter((s) => ran.get(s.nonce)?.size !== 1)
  const unanswered = sent.filter((s) => s.unanswered)
  campaign.otherRuntimes.push({ runtime: 'Sui', sent: sent.length, exactlyOnce: sent.length - wrong.length })
  campaign.checks.push({
    phase: scenario,
    name: 'every Sui intent executed exactly once by the stand-in (its record of executed transactions)',
    ok: wrong.length === 0 && unanswered.length === 0,
    detail: `${sent.length - wrong.length} of ${sent.length} executed by exactly one transaction; ${faults} RPC faults; ${unanswered.length} never answered${wrong.length > 0 ? `; wrong: ${wrong.map((w) => `${w.nonce} ×${ran.get(w.nonce)?.size ?? 0} (${w.label}; ${w.answer})`).join(', ')}` : ''}`,
  })
  campaign.log(
    `  ${sent.length} Sui intents through ${faults} RPC faults, in ${((performance.now() - t) / 1000).toFixed(0)} s`,
  )
}
