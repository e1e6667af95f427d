// The soak's load: open-loop, at a fixed rate per kind (a request starts on its tick whatever the
// others are doing), so a gateway that slows down meets the same offered load. Validates are plain
// and free; executes carry an API key (free to the operator's clients); paid executes carry no key
// and pay through the unmodified @x402/fetch client, as an anonymous agent does. An execute is sent
// again, as agents do, until it is answered 200 (executed or replayed) or 409 0x22 (executed by a
// transaction the gateway cannot name); every answer's status is counted, 5xx included.
import type { Campaign, Sent } from '../chaos/campaign.ts'

export type SoakKind = 'validate' | 'execute' | 'paid'
export type SoakRates = Record<SoakKind, number>
export type KindStats = {
  started: number
  answered: number
  statuses: Record<string, number>
  unanswered: number
  maxInFlight: number
}
export type SoakLoad = {
  stats: Record<SoakKind, KindStats>
  /** The executes sent (plain and paid): the verdict asks the chain how often each ran. */
  executes: Sent[]
  paid: Sent[]
  /** Stops starting requests and waits for the ones in flight. */
  stop(): Promise<void>
}

type Fetch = (url: string, init: RequestInit) => Promise<Response>

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export function startSoakLoad({
  campaign,
  url,
  rates,
  apiKey,
  payingFetch,
  validatePool,
}: {
  campaign: Campaign
  url: () => string
  rates: SoakRates
  apiKey: string
  payingFetch: Fetch
  validatePool: Sent[]
}): SoakLoad {
  const chainHeader = { 'content-type': 'application/json', 'x-chain-id': String(campaign.devnet.anvil.chainId) }
  const fresh = (): KindStats => ({ started: 0, answered: 0, statuses: {}, unanswered: 0, maxInFlight: 0 })
  const stats: Record<SoakKind, KindStats> = { validate: fresh(), execute: fresh(), paid: fresh() }
  const inFlight: Record<SoakKind, number> = { validate: 0, execute: 0, paid: 0 }
  const running = new Set<Promise<void>>()
  const executes: Sent[] = []
  const paid: Sent[] = []
  let validateNext = 0

  const count = (kind: SoakKind, res: Response) => {
    const key = `${res.status}${res.headers.get('x-erc1066-status') ? ` ${res.headers.get('x-erc1066-status')}` : ''}`
    stats[kind].statuses[key] = (stats[kind].statuses[key] ?? 0) + 1
  }
  const untilFinal = async (kind: SoakKind, sent: Sent, send: () => Promise<Response>) => {
    const deadline = Date.now() + 150_000
    for (;;) {
      try {
        const res = await send()
        const text = await res.text()
        count(kind, res)
        sent.answer = `${res.status} ${res.headers.get('x-erc1066-status') ?? ''}: ${text.slice(0, 200)}`
        if (res.status === 200 || (res.status === 409 && res.headers.get('x-erc1066-status') === '0x22')) return
      } catch (err) {
        stats[kind].statuses['no answer'] = (stats[kind].statuses['no answer'] ?? 0) + 1
        sent.answer = `no answer: ${(err as Error).message}`
      }
      if (Date.now() > deadline) {
        sent.unanswered = true
        stats[kind].unanswered++
        campaign.log(`  NOT ANSWERED within 150 s: ${sent.hash} (${kind}); last answer ${sent.answer}`)
        return
      }
      await sleep(1000)
    }
  }
  const one: Record<SoakKind, () => Promise<void>> = {
    async validate() {
      const s = validatePool[validateNext++ % validatePool.length]!
      try {
        const res = await fetch(`${url()}/intents/validate`, {
          method: 'POST',
          headers: chainHeader,
          body: s.body,
          signal: AbortSignal.timeout(30_000),
        })
        await res.text()
        count('validate', res)
      } catch {
        stats.validate.statuses['no answer'] = (stats.validate.statuses['no answer'] ?? 0) + 1
      }
    },
    async execute() {
      const [s] = await campaign.makeIntents(1, 'execute')
      executes.push(s!)
      await untilFinal('execute', s!, () =>
        fetch(`${url()}/intents/execute`, {
          method: 'POST',
          headers: { ...chainHeader, authorization: `Bearer ${apiKey}` },
          body: s!.body,
          signal: AbortSignal.timeout(30_000),
        }),
      )
    },
    async paid() {
      const [s] = await campaign.makeIntents(1, 'paid')
      paid.push(s!)
      await untilFinal('paid', s!, () =>
        payingFetch(`${url()}/intents/execute`, {
          method: 'POST',
          headers: chainHeader,
          body: s!.body,
          signal: AbortSignal.timeout(30_000),
        }),
      )
    },
  }
  const timers = (Object.keys(rates) as SoakKind[])
    .filter((kind) => rates[kind] > 0)
    .map((kind) =>
      setInterval(() => {
        stats[kind].started++
        inFlight[kind]++
        stats[kind].maxInFlight = Math.max(stats[kind].maxInFlight, inFlight[kind])
        const p = one[kind]().finally(() => {
          inFlight[kind]--
          stats[kind].answered++
          running.delete(p)
        })
        running.add(p)
      }, 1000 / rates[kind]),
    )
  return {
    stats,
    executes,
    paid,
    async stop() {
      for (const t of timers) clearInterval(t)
      while (running.size > 0) await Promise.all([...running])
    },
  }
}
