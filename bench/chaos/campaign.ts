// What every phase of the fault campaign works with: the devnet, the seeded randomness, the
// intents sent so far (the verdict asks the chain about each), the counters the verdict line
// names, the gateways started (each behind its own fault proxy), and what to undo at the end.
// A phase is a function of this context (phases/*.ts); the verdict is assembled from all of them.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeAbiParameters, encodeFunctionData, type Hex, keccak256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  type Devnet,
  demoCounterArtifact,
  devnetAccounts,
  type Intent,
  intentExecutorArtifact,
  intentTypedData,
  toIntentTuple,
} from '../gatewayParts.ts'
import { type FaultProxy, startFaultProxy } from './faultProxy.ts'
import { type GatewayInstance, gatewayInstance, type Wrapper } from './gatewayInstance.ts'
import type { TcpStall } from './tcpStall.ts'

export type CampaignNode = { instance: GatewayInstance; proxy: FaultProxy; db?: TcpStall; restarts: number }
export type Sent = { hash: Hex; body: string; label: string; answer?: string; unanswered?: boolean; diagnosis?: string }
export type Phase = 'claim' | 'signed' | 'journaled' | 'broadcast' | 'receipt'

/** One invariant a phase checked (beyond exactly-once and the nonces, which the verdict checks for all). */
export type Check = { phase: string; name: string; ok: boolean; detail: string }

export type CampaignOptions = {
  quick: boolean
  seed: number
  /** PostgreSQL's admin URL: the campaign creates its own database there and drops it after. */
  databaseUrl: string
  /** The Redis the fleet's rate limits use (own key prefix, deleted after). */
  redisUrl: string
}

export type Campaign = CampaignOptions & {
  devnet: Devnet
  random: () => number
  log(line: string): void
  intents: Sent[]
  checks: Check[]
  kills: number
  /** Faults beyond the proxies' RPC faults (reorgs, database cuts, Redis stops): counted in F. */
  otherFaults: Record<string, number>
  /** Intents of the other runtimes (Solana, Sui), each phase's count of those its chain ran exactly once: counted in N. */
  otherRuntimes: Array<{ runtime: string; sent: number; exactlyOnce: number }>
  unsettled: string[]
  phasesHit: Array<{ scenario: string; phase: Phase; instance: string; reached: boolean }>
  /** Every gateway started (their proxies' faults count in F). */
  nodes: CampaignNode[]
  /** Relayer addresses whose nonces the verdict checks. */
  relayers: string[]
  logDir: string
  cleanups: Array<() => Promise<unknown>>
  /** `count` signed intents that each increment the demo counter, remembered for the verdict. */
  makeIntents(count: number, label: string, options?: { validBefore?: bigint; counted?: boolean }): Promise<Sent[]>
  /** A gateway behind its own fault proxy to the devnet; started. */
  startNode(name: string, env: Record<string, string>, db?: TcpStall, wrapper?: Wrapper): Promise<CampaignNode>
}

export const phaseNames: Record<Phase, string> = {
  claim: 'after the claim (simulation held)',
  signed: 'after signing, journal write in flight (database stalled)',
  journaled: 'after the journal write (broadcast held)',
  broadcast: 'after the broadcast (node answered)',
  receipt: 'while waiting for the receipt (receipt poll held)',
}

/** Blocks a reorg orphans: fewer than CONFIRMATIONS, or the gateway would have called them final. */
export const confirmations = 4

export function createCampaign(
  options: CampaignOptions & { devnet: Devnet; random: () => number; log(line: string): void },
): Campaign {
  const { devnet } = options
  const signer = privateKeyToAccount(devnetAccounts.sender)
  const executeSigned = intentExecutorArtifact.abi.find((i) => i.type === 'function' && i.name === 'executeSigned')!
  let nonce = 70_000
  const base = {
    EXECUTOR_ADDRESSES: JSON.stringify({ [devnet.anvil.chainId]: devnet.contracts.executor }),
    VALIDATOR_ADDRESSES: JSON.stringify({ [devnet.anvil.chainId]: devnet.contracts.validator }),
    REGISTRY_ADDRESSES: JSON.stringify({ [devnet.anvil.chainId]: devnet.contracts.registry }),
    // As `npm run deploy:contracts` configures a gateway: a key's concurrent executions go in
    // IntentBundler runs, so the faults meet bundles too (CHAOS_BUNDLES=0: each its own transaction).
    ...(process.env.CHAOS_BUNDLES === '0'
      ? {}
      : { BUNDLER_ADDRESSES: JSON.stringify({ [devnet.anvil.chainId]: devnet.contracts.bundler }) }),
    LOG_LEVEL: 'info',
    CONFIRMATIONS: String(confirmations),
    RECEIPT_TIMEOUT_MS: '8000',
    RECEIPT_POLL_MS: '200',
    RPC_TIMEOUT_MS: '1500',
    RECONCILE_INTERVAL_MS: '500',
    MAX_CONNECTIONS_PER_CLIENT: '10000',
    RATE_LIMIT_MAX: '1000000',
    STANDING_MAX_REVERTS_PER_SENDER: '0',
    STANDING_MAX_REVERTS_PER_CLIENT: '0',
  }
  const campaign: Campaign = {
    ...options,
    intents: [],
    checks: [],
    kills: 0,
    otherFaults: {},
    otherRuntimes: [],
    unsettled: [],
    phasesHit: [],
    nodes: [],
    relayers: [],
    logDir: mkdtempSync(join(tmpdir(), 'chaos-logs-')),
    cleanups: [],
    async makeIntents(count, label, { validBefore = 0n, counted = true } = {}) {
      const made = await Promise.all(
        Array.from({ length: count }, async () => {
          const intent: Intent = {
            sender: devnet.demo.sender,
            target: devnet.demo.counter,
            value: 0n,
            nonce: BigInt(nonce++),
            validAfter: 0n,
            validBefore,
            policyId: devnet.demo.policies.open,
            data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
          }
          const signature = await signer.signTypedData(
            intentTypedData({ chainId: devnet.anvil.chainId, executor: devnet.contracts.executor, intent }),
          )
          // The executor's IntentExecuted names keccak256(abi.encode(intent)).
          const hash = keccak256(encodeAbiParameters([executeSigned.inputs[0]!], [toIntentTuple(intent)] as never))
          const body = JSON.stringify({
            ...intent,
            value: '0',
            nonce: String(intent.nonce),
            validAfter: '0',
            validBefore: String(validBefore),
            signature,
          })
          return { hash, body, label }
        }),
      )
      if (counted) campaign.intents.push(...made)
      return made
    },
    async startNode(name, env, db, wrapper) {
      const proxy = await startFaultProxy({ target: devnet.anvil.rpcUrl })
      campaign.cleanups.push(() => proxy.close())
      const instance = gatewayInstance(
        name,
        { ...base, RPC_URLS: JSON.stringify({ [devnet.anvil.chainId]: proxy.url }), ...env },
        join(campaign.logDir, `${name}.log`),
        wrapper,
      )
      campaign.cleanups.push(() => instance.stop())
      await instance.start(env.INSTANCE_ID ? { INSTANCE_ID: `${env.INSTANCE_ID}-0` } : {})
      const node: CampaignNode = { instance, proxy, ...(db ? { db } : {}), restarts: 0 }
      campaign.nodes.push(node)
      return node
    },
  }
  return campaign
}
