// SQLite on a full file system: a gateway whose journal lives on a small tmpfs mounted in a private
// mount namespace of its own (`unshare -m`, as root: the machine's file systems are never filled).
// Intents are executed, the tmpfs is then filled to the last byte from inside that namespace
// (`nsenter`), more intents are sent: each must be answered 200 (written into space SQLite already
// had) or 503, never a 500, and every intent executed before must still read back from the
// journal; the space is freed and every intent is delivered. Its own relayer key.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseEther, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import type { Campaign, Sent } from '../campaign.ts'
import { deliver } from '../deliver.ts'
import { rpc } from '../rpc.ts'
import { settled } from '../settled.ts'

export async function diskFullPhase(campaign: Campaign): Promise<void> {
  const phase = 'disk full'
  if (process.getuid?.() !== 0) {
    campaign.checks.push({
      phase,
      name: 'SQLite on a full file system',
      ok: false,
      detail:
        'not run: a private tmpfs needs root (unshare -m); run the campaign as root or leave out --phases=diskfull',
    })
    return
  }
  const dir = mkdtempSync(join(tmpdir(), 'chaos-diskfull-'))
  campaign.cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
  const key = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 33 })
  await rpc(campaign.devnet.anvil.rpcUrl, 'anvil_setBalance', [key.address, toHex(parseEther('100'))])
  campaign.relayers.push(key.address)
  const node = await campaign.startNode(
    'diskfull',
    { JOURNAL_PATH: join(dir, 'journal.sqlite'), RELAYER_PRIVATE_KEY: toHex(key.getHdKey().privateKey!) },
    undefined,
    {
      command: 'unshare',
      args: ['-m', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs -o size=4m tmpfs "$0" && exec "$@"', dir],
    },
  )
  campaign.log(
    `\nSQLite on a full file system: one gateway, its journal on a 4 MiB tmpfs in its own mount namespace, relayer ${key.address}`,
  )
  const inside = (script: string) =>
    execFileSync('nsenter', ['-t', String(node.instance.pid()), '-m', 'sh', '-c', script], { encoding: 'utf8' })
  const size = campaign.quick ? 4 : 10
  const before = await campaign.makeIntents(size, `${phase}: executed before the disk filled`)
  await Promise.all(before.map((s) => deliver(campaign, s, [node])))
  inside(`cat /dev/zero > "${dir}/filler" 2>/dev/null; true`)
  campaign.otherFaults['disks filled'] = (campaign.otherFaults['disks filled'] ?? 0) + 1
  const free = inside(`df -k "${dir}" | tail -1`).trim()
  const answers: Record<string, number> = {}
  const wrong: string[] = []
  const during = await campaign.makeIntents(size, `${phase}: sent with the disk full`)
  const watch = (s: Sent) => (status: number, body: string) => {
    answers[status] = (answers[status] ?? 0) + 1
    if (status >= 500 && status !== 503) wrong.push(`${status} for ${s.hash.slice(0, 10)}: ${body.slice(0, 200)}`)
  }
  // Each intent a few times with the disk full (not to the end: nothing frees the space but us).
  await Promise.all(
    during.map((s) =>
      deliver(campaign, s, [node], { timeoutMs: 4_000, onAnswer: watch(s) }).then(() => void delete s.unanswered),
    ),
  )
  const readBack = await Promise.all(
    before.map(async (s) => (await fetch(`${node.instance.url}/intents/${s.hash}`)).status),
  )
  inside(`rm -f "${dir}/filler"`)
  await Promise.all(during.map((s) => deliver(campaign, s, [node])))
  await settled(campaign, [node])
  const lost = readBack.filter((status) => status !== 200).length
  campaign.checks.push({
    phase,
    name: 'full disk: executes answered 200 or 503 (never another 5xx), nothing journaled lost',
    ok: wrong.length === 0 && lost === 0,
    detail: `disk ${free}; answers while full: ${
      Object.entries(answers)
        .map(([k, v]) => `${k} ×${v}`)
        .join(', ') || 'none'
    }; ${wrong.length > 0 ? `${wrong.slice(0, 3).join('; ')}; ` : ''}${before.length - lost} of ${before.length} intents executed before read back while full`,
  })
  campaign.log(
    `  disk filled (${free}); answers while full: ${JSON.stringify(answers)}; space freed, ${during.length} intents delivered`,
  )
}
