// Three gateways on one PostgreSQL journal (a database of the campaign's own), sharing three
// relayer keys by lease, rate limits in Redis under the campaign's own prefix. Each gateway reaches
// PostgreSQL through a TCP relay of the campaign's (tcpStall.ts), which the database phases stall,
// cut and heal; never the server itself. Every execution event goes, signed, to a Standard Webhooks
// receiver of the campaign's (the clock phase checks none was skipped).
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import pg from 'pg'
import { type HDAccount, parseEther, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhookReceiver.ts'
import type { Campaign, CampaignNode } from '../campaign.ts'
import { rpc } from '../rpc.ts'
import { sharesSettled } from '../sharesSettled.ts'
import { startTcpStall, type TcpStall } from '../tcpStall.ts'

export type Fleet = {
  nodes: CampaignNode[]
  /** The campaign's database (its URL on the server, not through a relay): what the checks read. */
  databaseUrl: string
  redisPrefix: string
  keys: HDAccount[]
  /** The fleet's one way to Redis (a relay of the campaign's): cut and healed by the database phase. */
  redisLink: TcpStall
  /** How long a relayer lease lives (RELAYER_LEASE_TTL_MS). */
  leaseTtlMs: number
  /** The receiver every gateway of the fleet posts its execution events to, and its settings. */
  webhooks: WebhookReceiver
  webhookSettings: { WEBHOOK_URLS: string; WEBHOOK_SECRET: string }
}

export async function startFleet(campaign: Campaign): Promise<Fleet> {
  const database = `chaos_${Date.now().toString(36)}_${Math.floor(campaign.random() * 1e6).toString(36)}`
  const admin = new pg.Client({ connectionString: campaign.databaseUrl, connectionTimeoutMillis: 5_000 })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${database}`)
  await admin.end()
  campaign.cleanups.push(async () => {
    const c = new pg.Client({ connectionString: campaign.databaseUrl })
    await c.connect()
    await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    await c.end()
  })
  const redisPrefix = `${database}:`
  campaign.cleanups.push(async () => {
    const redis = new Redis(campaign.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
    await redis.connect()
    const keys = await redis.keys(`${redisPrefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    redis.disconnect()
  })
  const mnemonic = 'test test test test test test test test test test test junk'
  const keys = [30, 31, 32].map((addressIndex) => mnemonicToAccount(mnemonic, { addressIndex }))
  for (const a of keys)
    await rpc(campaign.devnet.anvil.rpcUrl, 'anvil_setBalance', [a.address, toHex(parseEther('100'))])
  campaign.relayers.push(...keys.map((a) => a.address))
  const pgUrl = new URL(campaign.databaseUrl)
  const databaseUrl = new URL(campaign.databaseUrl)
  databaseUrl.pathname = `/${database}`
  const leaseTtlMs = 3000
  const redisServer = new URL(campaign.redisUrl)
  const redisLink = await startTcpStall({ host: redisServer.hostname, port: Number(redisServer.port || 6379) })
  campaign.cleanups.push(() => redisLink.close())
  const viaLink = new URL(campaign.redisUrl)
  viaLink.hostname = '127.0.0.1'
  viaLink.port = String(redisLink.port)
  const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`
  const webhooks = await startWebhookReceiver(webhookSecret)
  campaign.cleanups.push(() => webhooks.close())
  const webhookSettings = { WEBHOOK_URLS: webhooks.url, WEBHOOK_SECRET: webhookSecret }
  const nodes: CampaignNode[] = []
  for (const name of ['a', 'b', 'c']) {
    const db = await startTcpStall({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) })
    campaign.cleanups.push(() => db.close())
    const url = new URL(databaseUrl)
    url.port = String(db.port)
    nodes.push(
      await campaign.startNode(
        name,
        {
          DATABASE_URL: url.toString(),
          INSTANCE_ID: name,
          RELAYER_PRIVATE_KEYS: keys.map((a) => toHex(a.getHdKey().privateKey!)).join(','),
          RELAYER_LEASE_TTL_MS: String(leaseTtlMs),
          REDIS_URL: viaLink.toString(),
          REDIS_PREFIX: redisPrefix,
          ...webhookSettings,
        },
        db,
      ),
    )
  }
  campaign.log(
    `\nPostgreSQL (database ${database}), three gateways sharing keys ${keys.map((a) => a.address).join(', ')} by lease; Redis prefix ${redisPrefix}`,
  )
  await sharesSettled(nodes, campaign.devnet.anvil.chainId)
  return {
    nodes,
    databaseUrl: databaseUrl.toString(),
    redisPrefix,
    keys,
    leaseTtlMs,
    redisLink,
    webhooks,
    webhookSettings,
  }
}
