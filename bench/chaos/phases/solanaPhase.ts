// Solana executes: one gateway process on SQLite serving the campaign's own Solana devnet (LiteSVM
// behind its JSON-RPC front, started here, outside every gateway the campaign kills), through a
// confirmation-lying endpoint and a fault proxy. SIGKILL at each phase of an execution, blockhashes
// expired under held broadcasts (the gateway must re-sign), an endpoint that says "not found" for
// landed signatures and "confirmed" for transactions the node does not have yet, then RPC faults.
// At the end the chain is read: each intent's nonce record, written by the program with the
// intent's hash, and the recipient's lamports, up by exactly the value times the intents.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSolanaDevnet } from '../../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { demoIntents } from '../../../test/support/solanaGateway.ts'
import { blockhashRound } from '../blockhashRound.ts'
import type { Campaign } from '../campaign.ts'
import { deliverToChain } from '../deliverToChain.ts'
import { lyingRound } from '../lyingRound.ts'
import { settled } from '../settled.ts'
import { solanaFaultRound } from '../solanaFaultRound.ts'
import { solanaKillRounds } from '../solanaKillRounds.ts'
import type { SolanaRounds } from '../solanaRounds.ts'
import { type SolanaSent, solanaTally } from '../solanaTally.ts'
import { startSolanaNode } from '../startSolanaNode.ts'

/** Lamports each intent moves from the sender's vault to the recipient. */
const value = 1_000n

export async function solanaPhase(campaign: Campaign): Promise<void> {
  const { quick } = campaign
  const scenario = 'solana'
  const t = performance.now()
  const devnet = await startSolanaDevnet()
  campaign.cleanups.push(() => devnet.stop())
  const dir = mkdtempSync(join(tmpdir(), 'chaos-solana-'))
  campaign.cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
  const node = await startSolanaNode(campaign, devnet, 'solana', {
    journalPath: join(dir, 'journal.sqlite'),
    paid: false,
  })
  campaign.log(
    `\nsolana executes: one gateway on SQLite, the campaign's Solana devnet ${devnet.chainId} (started in ${((performance.now() - t) / 1000).toFixed(1)} s)`,
  )
  const { intent, hashOf, sign } = demoIntents(() => devnet, 1n)
  const sent: SolanaSent[] = []
  const recipient = async () => (await devnet.rpc.getBalance(devnet.demo.recipient).send()).value
  const recipientBefore = await recipient()
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
    deliver: (s) => deliverToChain(campaign, s, node, { chainId: devnet.chainId }),
    first: (s) =>
      fetch(`${node.instance.url}/intents/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-chain-id': devnet.chainId },
        body: s.body,
      })
        .then((r) => r.text())
        .catch(() => undefined),
  }
  await solanaKillRounds(campaign, rounds, quick ? 3 : 10)
  await blockhashRound(campaign, rounds, quick ? 4 : 30)
  await lyingRound(campaign, rounds, quick ? 10 : 150)
  await solanaFaultRound(campaign, rounds, quick ? 10 : 150, quick ? 20_000 : 60_000)
  await settled(campaign, [node])
  const { executed, missing } = await solanaTally(devnet, sent)
  const received = (await recipient()) - recipientBefore
  const unanswered = sent.filter((s) => s.unanswered)
  const ok = missing.length === 0 && unanswered.length === 0 && received === value * BigInt(sent.length)
  campaign.otherRuntimes.push({
    runtime: 'Solana',
    sent: sent.length,
    exactlyOnce: received === value * BigInt(sent.length) ? executed.length : 0,
  })
  campaign.checks.push({
    phase: scenario,
    name: 'every Solana intent executed exactly once on chain (its nonce record, the recipient’s lamports)',
    ok,
    detail: `${executed.length} of ${sent.length} nonce records written with their intent's hash; the recipient received ${received} (${received === value * BigInt(sent.length) ? '=' : '≠'} ${value} × ${sent.length}); ${unanswered.length} never answered${missing.length > 0 ? `; missing: ${missing.map((m) => `${m.hash} (${m.label}; ${m.answer})`).join(', ')}` : ''}`,
  })
  campaign.log(
    `  ${sent.length} Solana intents, ${executed.length} executed on chain, in ${((performance.now() - t) / 1000).toFixed(0)} s`,
  )
}
