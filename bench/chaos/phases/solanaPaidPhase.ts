// Paid Solana executes (x402's SVM exact scheme: the payer's partially signed SPL TransferChecked
// of the devnet's DemoDollar, settled by the gateway's in-process facilitator on the same chain):
// one gateway on SQLite serving the campaign's own Solana devnet, its fault proxy and a
// confirmation-lying endpoint between them. SIGKILL with the settlement held at the proxy (after
// the reservation, before the settlement reaches the node), right after the settlement went out
// (before the execution's broadcast), and with the execution's broadcast held (settled, not sent);
// then blockhash expiry, confirmation lies and RPC faults under paid executes. The agent pays
// through the unmodified @x402/fetch client and retries as agents do. At the end the chain is
// read: every intent's nonce record, and the payer's DemoDollar, down by exactly the price times
// the intents that ran.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSolanaDevnet } from '../../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { demoIntents } from '../../../test/support/solanaGateway.ts'
import { solanaPayingClient } from '../../../test/support/solanaPayments.ts'
import { blockhashRound } from '../blockhashRound.ts'
import type { Campaign } from '../campaign.ts'
import { deliverToChain } from '../deliverToChain.ts'
import { lyingRound } from '../lyingRound.ts'
import { settled } from '../settled.ts'
import { solanaFaultRound } from '../solanaFaultRound.ts'
import type { SolanaRounds } from '../solanaRounds.ts'
import { type SolanaSent, solanaTally } from '../solanaTally.ts'
import { startSolanaNode } from '../startSolanaNode.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const value = 1_000n

export async function solanaPaidPhase(campaign: Campaign): Promise<void> {
  const { quick } = campaign
  const scenario = 'solanapaid'
  const t = performance.now()
  const devnet = await startSolanaDevnet()
  campaign.cleanups.push(() => devnet.stop())
  const dir = mkdtempSync(join(tmpdir(), 'chaos-solanapaid-'))
  campaign.cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
  const node = await startSolanaNode(campaign, devnet, 'solanapaid', {
    journalPath: join(dir, 'journal.sqlite'),
    paid: true,
  })
  const price = devnet.payment.amount
  const paying = await solanaPayingClient(devnet)
  const payerBalance = () => devnet.payment.balanceOf(devnet.payment.payer)
  const before = await payerBalance()
  campaign.log(
    `\npaid Solana executes (x402 SVM, ${price} DemoDollar units a execute, in-process facilitator): one gateway on SQLite, payer ${devnet.payment.payer}`,
  )
  const { intent, hashOf, sign } = demoIntents(() => devnet, 1n)
  const sent: SolanaSent[] = []
  const execute = (s: SolanaSent) =>
    paying
      .fetch(`${node.instance.url}/intents/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-chain-id': devnet.chainId },
        body: s.body,
      })
      .then((r) => r.text())
      .catch(() => undefined)
  const rounds: SolanaRounds = {
    devnet,
    node,
    scenario,
    make(count, label) {
      const made = Array.from({ length: count }, () => {
        const i = intent({ value })
        const body = JSON.stringify({
          ...i,
          value: i.value.toString(),
          nonce: i.nonce.toString(),
          validAfter: '0',
          validBefore: '0',
          signature: sign(i),
        })
        return { hash: hashOf(i), body, label, nonce: i.nonce }
      })
      sent.push(...made)
      return made
    },
    // A settlement that never landed keeps its intent waiting (202 0xF3) until the payment's bound
    // (180 s, longer than any blockhash lives) has passed and it is released: the client waits that long.
    deliver: (s) =>
      deliverToChain(campaign, s, node, { chainId: devnet.chainId, pay: paying.fetch, timeoutMs: 240_000 }),
    first: execute,
    // Blockhash expiry under the executions' broadcasts (the relayer pays) in one round, under the
    // settlements' (whose blockhash is the payer's; see SolanaRounds.spared) in another. RPC faults hit both.
    spared: devnet.payment.facilitator,
  }
  // Kills: the first sendTransaction of a paid execute is its settlement, the second its execution.
  for (const when of ['settlement held', 'settlement sent', 'execution broadcast held'] as const) {
    const batch = rounds.make(quick ? 2 : 8, `${scenario}: kill with the ${when}`)
    const reached = (async () => {
      if (when === 'settlement held') return void (await node.proxy.hold(['sendTransaction']))
      await node.proxy.afterAnswer(['sendTransaction'])
      if (when === 'execution broadcast held') await node.proxy.hold(['sendTransaction'])
    })()
    const first = batch.map((s) => execute(s))
    const hit = await Promise.race([reached.then(() => true), sleep(20_000).then(() => false)])
    await node.instance.kill()
    campaign.kills++
    node.proxy.clear()
    await Promise.all(first)
    await node.instance.start()
    const started = performance.now()
    await Promise.all(batch.map((s) => rounds.deliver(s)))
    campaign.log(
      `  ${hit ? 'killed' : 'killed (moment not seen in 20 s)'} with the ${when}; restarted; ${batch.length} paid intents answered in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    )
  }
  await blockhashRound(campaign, rounds, quick ? 2 : 10)
  await blockhashRound(campaign, rounds, quick ? 2 : 10, { settlements: true })
  await lyingRound(campaign, rounds, quick ? 4 : 30)
  await solanaFaultRound(campaign, rounds, quick ? 6 : 40, quick ? 20_000 : 45_000)
  await settled(campaign, [node])
  await sleep(3_000) // settlements still in flight for a reservation whose answer was lost
  const { executed, missing } = await solanaTally(devnet, sent)
  const paid = before - (await payerBalance())
  const unanswered = sent.filter((s) => s.unanswered)
  // The gateway's own account of each intent's payments: an intent with more than one settled names the double charge.
  const charged: string[] = []
  for (const s of sent) {
    const record = await fetch(`${node.instance.url}/intents/${s.hash}`, { headers: { 'x-chain-id': devnet.chainId } })
      .then((r) => r.json() as Promise<{ payments?: Array<{ state: string; transaction?: string; reason?: string }> }>)
      .catch(() => undefined)
    const settledPayments = (record?.payments ?? []).filter((p) => p.state === 'settled' || p.state === 'consumed')
    if (settledPayments.length > 1)
      charged.push(
        `${s.hash} (${s.label}): ${settledPayments.map((p) => `${p.state} ${p.transaction} (${p.reason ?? ''})`).join(' + ')}`,
      )
  }
  campaign.otherRuntimes.push({ runtime: 'Solana (paid)', sent: sent.length, exactlyOnce: executed.length })
  campaign.checks.push({
    phase: scenario,
    name: 'every paid Solana intent executed exactly once on chain',
    ok: missing.length === 0 && unanswered.length === 0,
    detail: `${executed.length} of ${sent.length} nonce records written with their intent's hash; ${unanswered.length} never answered${missing.length > 0 ? `; missing: ${missing.map((m) => `${m.hash} (${m.label}; ${m.answer})`).join(', ')}` : ''}`,
  })
  campaign.checks.push({
    phase: scenario,
    name: 'Solana payer charged exactly the price per intent that ran',
    ok: paid === price * BigInt(executed.length),
    detail: `${executed.length} of ${sent.length} paid intents ran; the payer paid ${paid} (${paid === price * BigInt(executed.length) ? '=' : '≠'} ${price} × ${executed.length})${charged.length > 0 ? `; paid more than once: ${charged.join('; ')}` : ''}`,
  })
  campaign.log(
    `  ${sent.length} paid Solana intents, ${executed.length} ran; payer paid ${paid} (${price} each), in ${((performance.now() - t) / 1000).toFixed(0)} s`,
  )
}
