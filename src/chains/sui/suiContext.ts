// What every operation of the Sui adapter works on (viem's `action(client, params)` shape): the
// client, the relayer's key, the deployment, the logger and the send lock, with the little state
// the adapter keeps (object lookups cached for good, the endpoint's counters, unavailability).

import type { Signer } from '@mysten/sui/cryptography'
import type { SuiGrpcClient } from '@mysten/sui/grpc'
import type { Logger } from 'pino'
import type { RpcRecorder } from '../../metrics/createMetrics.ts'
import type { Journal } from '../../ports/journal.ts'
import type { Mutex } from '../createMutex.ts'
import type { IssuedSponsorships } from './createIssuedSponsorships.ts'
import type { SuiKeyHold } from './holdSuiRelayerKey.ts'
import type { SuiNetwork } from './suiChainConfig.ts'
import type { SharedObject } from './suiIntentModule.ts'

export type SuiContext = {
  chainId: string
  network: SuiNetwork
  rpcUrl: string
  client: SuiGrpcClient
  /** The relayer's key (in the process, or a signer of a key held outside it) and address; absent: the chain validates only. */
  keypair: Signer | undefined
  relayer: string | undefined
  /** Where the relayer key lives (`local`, `pkcs11`, `kms`), for /chains. */
  relayerSigner: string | undefined
  /** The deployment, normalized: the package of move/ and its shared Hub object. */
  packageId: string
  hubId: string
  /** The Move type a policy object must have. */
  policyType: string
  rpcTimeoutMs: number
  /** Gas budget ceiling for the execute simulation, in MIST. */
  maxGasBudget: bigint
  /** Account mode: the most gas one sponsored transaction may budget, in MIST; also each sponsorship coin's amount. */
  maxSponsoredGasBudget: bigint
  /** Account mode: the sponsorships issued (bytes to sign), by intent hash. */
  sponsorships: IssuedSponsorships
  log: Logger
  rpcRecorder: RpcRecorder | undefined
  /** In a fleet (shared leases): the relayer key's lease, held by one instance at a time; absent: the key is this instance's for good. */
  keyHold: SuiKeyHold | undefined
  /** The journal, where the key's pending transactions are found when it is taken over. */
  journal: Journal | undefined
  /** Set when the key was taken: the next send first delivers the transactions its last holder left pending. */
  catchUp: boolean
  /** One transaction of the relayer at a time: its gas coin's version changes with each one. */
  sending: Mutex
  /** Ends the background receipt watches on close. */
  watches: AbortController
  /** The Hub's and policies' shared-object references: their initial versions never change. */
  objects: { hub: SharedObject | undefined; policies: Map<string, SharedObject> }
  /** Set when the deployment is missing: every request answers 503 then. */
  unavailableReason: string | undefined
  /** The endpoint's counters, for /chains. */
  endpoint: { requests: number; failures: number; lastLatencyMs: number | undefined; lastError: string | undefined }
}
