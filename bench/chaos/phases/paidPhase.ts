// Paid EVM executes (x402, DemoDollar on the devnet, the gateway's in-process facilitator): one
// gateway on SQLite with its own relayer key, killed with SIGKILL while the settlement's
// transaction is held at its RPC proxy (after the reservation, before the settlement reaches the
// node), and right after the settlement went out (before the execution's broadcast), then fed RPC
// faults. The agent pays through the unmodified @x402/fetch client and retries as agents do (each
// retry may sign a new authorization). At the end the payer's token balance is read on chain: it
// must have gone down by exactly the price times the intents of this phase that ran.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, parseEther, toHex } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { demoDollarArtifact } from '../../../src/contracts/demoDollarArtifact.ts'
import { payingClient } from '../../../test/support/paymentsWorld.ts'
import { createDevClients, devnetAccounts, intentExecutorArtifact } from '../../gatewayParts.ts'
import type { Campaign, Sent } from '../campaign.ts'
import { faultKinds } from '../faultPhase.ts'
import { rpc } from '../rpc.ts'
import { settled } from '../settled.ts'

const price = 10_000n
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function paidPhase(campaign: Campaign): Promise<void> {
  const { devnet, quick, random } = campaign
  const phase = 'paid'
  const dir = mkdtempSync(join(tmpdir(), 'chaos-paid-'))
  campaign.cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
  const key = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 34 })
  await rpc(devnet.anvil.rpcUrl, 'anvil_setBalance', [key.address, toHex(parseEther('100'))])
  campaign.relayers.push(key.address)
  const { payment } = devnet.demo
  const prices = JSON.stringify({
    [`eip155:${devnet.anvil.chainId}`]: {
      execute: {
        asset: payment.asset,
        amount: price.toString(),
        payTo: payment.payTo,
        extra: { name: payment.name, version: payment.version },
        maxTimeoutSeconds: 60,
      },
    },
  })
  const node = await campaign.startNode('paid', {
    JOURNAL_PATH: join(dir, 'journal.sqlite'),
    RELAYER_PRIVATE_KEY: toHex(key.getHdKey().privateKey!),
    X402_PRICES: prices,
    FACILITATOR_PRIVATE_KEY: devnetAccounts.facilitator,
  })
  const { publicClient } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const balanceOf = (who: Address) =>
    publicClient.readContract({
      address: payment.asset,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  const before = await balanceOf(payer)
  const fromBlock = await publicClient.getBlockNumber()
  campaign.log(
    `\npaid executes (x402 on DemoDollar, ${price} a execute, in-process facilitator): one gateway on SQLite, relayer ${key.address}, payer ${payer}`,
  )
  const paying = payingClient(devnet)
  const sent: Sent[] = []
  const deliverPaid = async (s: Sent, timeoutMs = 150_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (node.instance.alive) {
        try {
          const res = await paying.fetch(`${node.instance.url}/intents/execute`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-chain-id': String(devnet.anvil.chainId) },
            body: s.body,
            signal: AbortSignal.timeout(30_000),
          })
          const text = await res.text()
          s.answer = `${res.status} ${res.headers.get('x-erc1066-status') ?? ''}: ${text.slice(0, 200)}`
          if (res.status === 200 || (res.status === 409 && res.headers.get('x-erc1066-status') === '0x22')) return
        } catch (err) {
          s.answer = `no answer: ${(err as Error).message}`
        }
      }
      if (Date.now() > deadline) {
        s.unanswered = true
        campaign.log(`  NOT ANSWERED within ${timeoutMs / 1000} s: ${s.hash} (${s.label}); last answer ${s.answer}`)
        return
      }
      await sleep(400 + random() * 400)
    }
  }
  // Kills: the settlement held at the proxy (its transaction not at the node), then right after it went out.
  for (const when of ['settlement held', 'settlement sent'] as const) {
    const batch = await campaign.makeIntents(quick ? 2 : 5, `${phase}: kill with the ${when}`)
    sent.push(...batch)
    const reached =
      when === 'settlement held'
        ? node.proxy.hold(['eth_sendRawTransaction']).then(() => true)
        : node.proxy.afterAnswer(['eth_sendRawTransaction']).then(() => true)
    const first = batch.map((s) =>
      paying
        .fetch(`${node.instance.url}/intents/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-chain-id': String(devnet.anvil.chainId) },
          body: s.body,
        })
        .then((r) => r.text())
        .catch(() => undefined),
    )
    const hit = await Promise.race([reached, sleep(20_000).then(() => false)])
    await node.instance.kill()
    campaign.kills++
    node.proxy.clear()
    await Promise.all(first)
    await node.instance.start()
    await Promise.all(batch.map((s) => deliverPaid(s)))
    campaign.log(
      `  ${hit ? 'killed' : 'killed (moment not seen in 20 s)'} with the ${when}; restarted; ${batch.length} paid intents answered`,
    )
  }
  // RPC faults under paid executes.
  const faulted = await campaign.makeIntents(quick ? 6 : 20, `${phase}: RPC faults`)
  sent.push(...faulted)
  node.proxy.faultRate(0.12, faultKinds, random)
  const delivering = Promise.all(faulted.map((s) => deliverPaid(s)))
  await Promise.race([delivering, sleep(quick ? 20_000 : 45_000)])
  node.proxy.faultRate(0, faultKinds, random)
  await delivering
  await settled(campaign, [node])
  // What the chain says: each of this phase's intents ran how often; what the payer paid.
  await sleep(3_000) // settlements still in flight for a reservation whose answer was lost
  const event = intentExecutorArtifact.abi.find((i) => i.type === 'event' && i.name === 'IntentExecuted')!
  const logs = await publicClient.getLogs({ address: devnet.contracts.executor, event, fromBlock })
  const hashes = new Set(sent.map((s) => s.hash))
  const ran = new Set(logs.filter((l) => hashes.has(l.args.intentHash!)).map((l) => l.args.intentHash!)).size
  const paid = before - (await balanceOf(payer))
  campaign.checks.push({
    phase,
    name: 'payer charged exactly the price per intent that ran',
    ok: paid === price * BigInt(ran),
    detail: `${ran} of ${sent.length} paid intents ran; the payer paid ${paid} (${paid === price * BigInt(ran) ? '=' : '≠'} ${price} × ${ran})`,
  })
  campaign.log(`  ${sent.length} paid intents, ${ran} ran; payer paid ${paid} for them (${price} each)`)
}
