// A client of a Solana or Sui gateway (the X-Chain-Id it names) that retries as an agent does: the same intent again until it is
// answered 200 (executed, or replayed) or 409 0x22 (executed by a transaction the gateway cannot
// name: the chain decides); 202 (in flight), 503 and lost connections: again.
import type { Campaign, CampaignNode, Sent } from './campaign.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function deliverToChain(
  campaign: Campaign,
  sent: Sent,
  node: CampaignNode,
  { chainId, pay = fetch, timeoutMs = 150_000 }: { chainId: string; pay?: typeof fetch; timeoutMs?: number },
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (node.instance.alive) {
      try {
        const res = await pay(`${node.instance.url}/intents/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-chain-id': chainId },
          body: sent.body,
          signal: AbortSignal.timeout(30_000),
        })
        const text = await res.text()
        const erc1066 = res.headers.get('x-erc1066-status')
        sent.answer = `${res.status} ${erc1066 ?? ''}: ${text.slice(0, 200)}`
        if (res.status === 200 || (res.status === 409 && erc1066 === '0x22')) return
      } catch (err) {
        sent.answer = `no answer: ${(err as Error).message}`
      }
    }
    if (Date.now() > deadline) {
      sent.unanswered = true
      campaign.log(
        `  NOT ANSWERED within ${timeoutMs / 1000} s: ${sent.hash} (${sent.label}); last answer ${sent.answer}`,
      )
      return
    }
    await sleep(400 + campaign.random() * 400)
  }
}
