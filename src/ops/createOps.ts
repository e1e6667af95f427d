// The operator's console, put together: the switches (journaled, polled by each instance), the
// refusals recorded for the page, the shared feed, the credential check and the metrics; the app
// registers them (the execute pause hook, the 429 recorder, the routes: http/routes/ops/
// registerOps.ts). Built by createGateway when OPS_API_KEYS is set or OAuth is on; off otherwise
// (no /ops at all).
import type { Logger } from 'pino'
import { Counter, Gauge } from 'prom-client'
import type { ApiKeyCheck } from '../auth/createApiKeyCheck.ts'
import type { OAuthVerifier } from '../auth/createOAuthVerifier.ts'
import type { OpsConfig } from '../config/opsConfig.ts'
import type { ChainRegistry } from '../intents/createChainRegistry.ts'
import type { ExecutionGuard } from '../intents/createExecutionGuard.ts'
import type { Metrics } from '../metrics/createMetrics.ts'
import type { Journal } from '../ports/journal.ts'
import type { OpsAction, OpsSwitchStore } from '../ports/opsSwitchStore.ts'
import type { RelayerLeases } from '../ports/relayerLeases.ts'
import { createOpsActivity, type OpsActivity } from './createOpsActivity.ts'
import { createOpsCredentialCheck, type OpsCredentialCheck } from './createOpsCredentialCheck.ts'
import { createOpsFeed, type OpsFeed } from './createOpsFeed.ts'
import { createOpsSwitches, type OpsSwitches } from './createOpsSwitches.ts'
import { gatherOpsState, type OpsState } from './gatherOpsState.ts'

export type Ops = {
  switches: OpsSwitches
  activity: OpsActivity
  /** The relayer leases the pools get: `draining()` answers this instance's drain switch. */
  drainable(leases: RelayerLeases): RelayerLeases
  /** The execution guard the routes get: its budget refusals are shown on the page. */
  observe(guard: ExecutionGuard): ExecutionGuard
  /**
   * What the app registers (http/routes/ops/registerOps.ts), made once: the shared feed over the
   * journal, the snapshot, the credential check, and the counter of switches taken.
   */
  attach(parts: { registry: ChainRegistry; journal: Journal; agentKeys?: ApiKeyCheck | undefined }): OpsAttachment
  /** The feed, once registered (tests read its bound). */
  feed(): OpsFeed | undefined
  /** Reads the switches in force before anything sends, then keeps polling them. */
  start(): Promise<void>
  stop(): void
}

export type OpsAttachment = {
  store: OpsSwitchStore
  feed: OpsFeed
  snapshot: () => Promise<OpsState>
  check: OpsCredentialCheck
  onSwitch: (action: OpsAction) => void
}

export type CreateOpsParameters = {
  config: OpsConfig
  journal: Journal
  instanceId: string
  logger: Logger
  metrics?: Metrics | undefined
  oauth?: OAuthVerifier | undefined
}

export function createOps({ config, journal, instanceId, logger, metrics, oauth }: CreateOpsParameters): Ops {
  const store = journal.ops
  if (!store) throw new Error('the journal keeps no operator switches (its store predates them)')
  const switches = createOpsSwitches({ store, instanceId, pollMs: config.pollMs, logger })
  const activity = createOpsActivity()
  const taken = metrics && registerOpsMetrics(metrics, switches)
  let feed: OpsFeed | undefined
  /** The gateway's execution guard, once observed: the relayer's budget spent and left. */
  let observed: ExecutionGuard | undefined
  return {
    switches,
    activity,
    drainable: (leases) => switches.drainable(leases),
    observe: (guard) => {
      observed = guard
      return activity.observe(guard)
    },
    feed: () => feed,
    attach({ registry, journal, agentKeys }) {
      const balances = new Map<string, Array<{ t: number; balance: bigint }>>()
      const snapshot = () =>
        gatherOpsState({
          registry,
          journal,
          store,
          switches,
          activity,
          stuckAfterMs: config.stuckAfterMs,
          settledShown: config.settledShown,
          settled: () => feed?.settled() ?? [],
          balances,
          budget: (chainId) => observed?.relayerSpend(chainId),
        })
      const running = createOpsFeed({
        journal,
        switches,
        snapshot,
        logger,
        pollMs: config.pollMs,
        buffer: config.feedBuffer,
        settledShown: config.settledShown,
        stuckAfterMs: config.stuckAfterMs,
      })
      feed = running
      const check = createOpsCredentialCheck({ keyHashes: config.keyHashes, agentKeys, oauth })
      return { store, feed: running, snapshot, check, onSwitch: (action) => taken?.inc({ action }) }
    },
    start: () => switches.start(),
    stop: () => switches.stop(),
  }
}

/** The switches as metrics: each chain paused (1) or not, this instance draining, switches taken by action. */
function registerOpsMetrics(metrics: Metrics, switches: OpsSwitches): Counter<'action'> {
  const registers = [metrics.registry]
  new Gauge({
    name: 'gateway_ops_chain_paused',
    help: 'Chains an operator paused (1 while paused); execute answers 503 0x42 there',
    labelNames: ['chain'],
    registers,
    collect() {
      this.reset()
      for (const entry of switches.paused()) this.set({ chain: entry.target }, 1)
    },
  })
  new Gauge({
    name: 'gateway_ops_instance_draining',
    help: 'Whether an operator drained this instance (1): it claims nothing new and gives its relayer keys back once idle',
    registers,
    collect() {
      this.set(switches.draining() ? 1 : 0)
    },
  })
  return new Counter({
    name: 'gateway_ops_switches_total',
    help: 'Operator switches taken on this instance, by action',
    labelNames: ['action'],
    registers,
  })
}
