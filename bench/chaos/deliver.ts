// A client that retries as an agent does, and what the journal and the chain say of an intent it
// could not get answered.
import type { Campaign, CampaignNode, Sent } from './campaign.ts'
import { rpc } from './rpc.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * The same intent again (to any live gateway) until it is answered 200 (executed, or replayed), or
 * 409 0x22 (executed by a transaction the gateway cannot name: the chain's count decides). 202 (in
 * flight, not final), 503 and lost connections: again.
 */
export async function deliver(
  campaign: Campaign,
  sent: Sent,
  nodes: CampaignNode[],
  { timeoutMs = 150_000, onAnswer }: { timeoutMs?: number; onAnswer?: (status: number, body: string) => void } = {},
): Promise<void> {
  const { random } = campaign
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const live = nodes.filter((n) => n.instance.alive)
    const n = live[Math.floor(random() * live.length)]
    if (n) {
      try {
        const res = await fetch(`${n.instance.url}/intents/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: sent.body,
          signal: AbortSignal.timeout(30_000),
        })
        const text = await res.text()
        const erc1066 = res.headers.get('x-erc1066-status')
        sent.answer = `${res.status} ${erc1066 ?? ''} from ${n.instance.name}: ${text.slice(0, 200)}`
        onAnswer?.(res.status, text)
        if (res.status === 200 || (res.status === 409 && erc1066 === '0x22')) return
      } catch (err) {
        sent.answer = `no answer from ${n.instance.name}: ${(err as Error).message}`
      }
    }
    if (Date.now() > deadline) {
      sent.unanswered = true
      sent.diagnosis = await diagnose(campaign, sent, nodes).catch(
        (err: unknown) => `diagnosis failed: ${(err as Error).message}`,
      )
      campaign.log(
        `  NOT ANSWERED within ${timeoutMs / 1000} s: ${sent.hash} (${sent.label}); last answer ${sent.answer}\n    ${sent.diagnosis}`,
      )
      return
    }
    await sleep(400 + random() * 400)
  }
}

async function diagnose(campaign: Campaign, sent: Sent, nodes: CampaignNode[]): Promise<string> {
  const live = nodes.find((n) => n.instance.alive)
  if (!live) return 'no gateway alive'
  const record = (await (await fetch(`${live.instance.url}/intents/${sent.hash}`)).json()) as Record<string, unknown>
  const tx = (record.transactionHash ?? (record.execution as Record<string, unknown> | undefined)?.transactionHash) as
    | string
    | undefined
  const rpcUrl = campaign.devnet.anvil.rpcUrl
  const onChain = tx
    ? {
        receipt: await rpc(rpcUrl, 'eth_getTransactionReceipt', [tx]).then((r) =>
          r
            ? { block: Number((r as { blockNumber: string }).blockNumber), status: (r as { status: string }).status }
            : null,
        ),
        transaction: await rpc(rpcUrl, 'eth_getTransactionByHash', [tx]).then((t) =>
          t
            ? {
                from: (t as { from: string }).from,
                nonce: Number((t as { nonce: string }).nonce),
                block: (t as { blockNumber: string | null }).blockNumber,
              }
            : null,
        ),
      }
    : undefined
  const head = Number(await rpc(rpcUrl, 'eth_blockNumber', []))
  return `journal (via ${live.instance.name}): ${JSON.stringify(record).slice(0, 600)}; chain head ${head}; its transaction on chain: ${JSON.stringify(onChain)}`
}
