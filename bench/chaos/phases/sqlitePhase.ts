// The campaign's first phase: one gateway on SQLite holding its one relayer key, killed at each
// phase of an execution, then fed RPC faults and a reorg.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../gatewayParts.ts'
import type { Campaign, Phase } from '../campaign.ts'
import { faultPhase } from '../faultPhase.ts'
import { killRound } from '../killRound.ts'
import { settled } from '../settled.ts'

export async function sqlitePhase(campaign: Campaign): Promise<void> {
  const journalDir = mkdtempSync(join(tmpdir(), 'chaos-journal-'))
  campaign.cleanups.push(async () => rmSync(journalDir, { recursive: true, force: true }))
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  campaign.relayers.push(relayer)
  const solo = await campaign.startNode('sqlite', {
    JOURNAL_PATH: join(journalDir, 'journal.sqlite'),
    RELAYER_PRIVATE_KEY: devnetAccounts.relayer,
  })
  campaign.log(`\nSQLite, one gateway (${solo.instance.url}), relayer ${relayer}`)
  for (const phase of ['claim', 'journaled', 'broadcast', 'receipt'] as Phase[])
    await killRound(campaign, 'sqlite', phase, solo, [solo])
  await faultPhase(campaign, 'sqlite', [solo])
  await settled(campaign, [solo])
  // Left running: it keeps its key's nonces whole until the verdict (a later reorg may reach them).
}
