// The Sui implementation of the ChainAdapter port, over @mysten/sui's gRPC client (grpc-web) and
// its transport-neutral `client.core` API: validate is a simulated call of the Move module's
// validate function, execute is the module's execute function sent by the relayer's Ed25519 key as
// sender and gas owner. The Move code is in move/; it was not compiled or run on this machine.
import { bcs } from '@mysten/bcs'
import { SuiGrpcClient } from '@mysten/sui/grpc'
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519'
import { TransactionDataBuilder } from '@mysten/sui/transactions'
import { normalizeSuiAddress } from '@mysten/sui/utils'
import type { Logger } from 'pino'
import type { Hex } from 'viem'
import { probeHealth } from '../probeHealth.ts'
import { encodeSuiIntent } from './encodeSuiIntent.ts'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { ConfigError } from '../../errors/configError.ts'
import { failureKind, type RpcRecorder } from '../../metrics/createMetrics.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import { RelayerError } from '../../errors/relayerError.ts'
import { redactUrl } from '../../config/redactUrl.ts'
import type { Intent } from '../../ports/intent.ts'
import { createMutex } from '../createMutex.ts'
import { isSuccessStatus, Status } from '../../status/statusCodes.ts'
import type { ChainAdapter, ExecutionReceipt, Preflight, PreflightResult, Reconciliation } from '../../ports/chainAdapter.ts'
import { buildSuiExecuteTransaction, buildSuiValidateTransaction, type SuiObjectRef } from './buildSuiTransaction.ts'
import { classifySuiError } from './classifySuiError.ts'
import { decodeMoveAbort, type ExecutionErrorLike } from './decodeMoveAbort.ts'
import { type SharedObject, type SuiDeployment, suiIntentModule } from './suiIntentModule.ts'
import { suiRuntime } from './suiRuntime.ts'

export type SuiNetwork = 'mainnet' | 'testnet' | 'devnet' | 'localnet'

export const suiChainIds = ['sui:mainnet', 'sui:testnet', 'sui:devnet', 'sui:localnet'] as const

export type SuiChainConfig = {
  /** `sui:mainnet`, `sui:testnet`, `sui:devnet` or `sui:localnet`. */
  chainId: string
  /** The gRPC (grpc-web) endpoint, e.g. https://fullnode.testnet.sui.io:443. */
  rpcUrl: string
  /** The published package of move/ (the module `intents`). */
  packageId: string
  /** The shared Hub object its `init` created (vaults and nonces). */
  hubId: string
}

export type CreateSuiAdapterParameters = {
  chain: SuiChainConfig
  /** The relayer's Ed25519 key: `suiprivkey1…` (as `sui keytool export` prints it) or 32 bytes. */
  relayerSecretKey: string | Uint8Array | undefined
  rpcTimeoutMs: number
  logger: Logger
  /** Gas budget ceiling for the execute simulation, in MIST; the sent budget is the simulation's cost plus a margin. */
  maxGasBudget?: bigint
  /** Tests pass a client with its own transport; by default a grpc-web client on chain.rpcUrl. */
  client?: SuiGrpcClient
  /** Told the duration and failure of every SDK call, by its name (metrics). */
  rpcRecorder?: RpcRecorder | undefined
}


/** The journal's bytes of a signed Sui transaction (base64 of this BCS): the transaction's bytes and the relayer's signature. */
export const suiSignedTransaction = bcs.struct('SuiSignedTransaction', { transaction: bcs.byteVector(), signature: bcs.byteVector() })

const gasMarginPercent = 120n
/** How long a request's own watch on its transaction lasts; reconciliation takes over after it. */
const receiptWatchLimitMs = 15 * 60_000
const zeroAddress = normalizeSuiAddress('0x0')

export function createSuiAdapter({ chain, relayerSecretKey, rpcTimeoutMs, logger, maxGasBudget = 500_000_000n, client: given, rpcRecorder }: CreateSuiAdapterParameters): ChainAdapter {
  const problems = [
    ...(suiChainIds.includes(chain.chainId as never) ? [] : [`${chain.chainId}: a Sui chain id is one of ${suiChainIds.join(', ')}`]),
    ...(/^0x[0-9a-fA-F]{64}$/.test(chain.packageId) ? [] : [`${chain.chainId}: the package id must be 0x followed by 64 hex digits`]),
    ...(/^0x[0-9a-fA-F]{64}$/.test(chain.hubId) ? [] : [`${chain.chainId}: the Hub object id must be 0x followed by 64 hex digits`]),
  ]
  let keypair: Ed25519Keypair | undefined
  try {
    keypair = relayerSecretKey === undefined ? undefined : Ed25519Keypair.fromSecretKey(relayerSecretKey)
  } catch {
    // The key itself never reaches a message.
    problems.push(`${chain.chainId}: the Sui relayer key is not an Ed25519 key (expected suiprivkey1… or 32 bytes)`)
  }
  if (problems.length > 0) throw new ConfigError(problems)
  const network = chain.chainId.slice('sui:'.length) as SuiNetwork
  const log = logger.child({ module: 'sui', chainId: chain.chainId })
  const client = given ?? new SuiGrpcClient({ network, baseUrl: chain.rpcUrl })
  const relayer = keypair?.toSuiAddress()
  const packageId = normalizeSuiAddress(chain.packageId)
  const hubId = normalizeSuiAddress(chain.hubId)
  const policyType = `${packageId}::${suiIntentModule.module}::${suiIntentModule.policyStruct}`
  // One transaction of the relayer at a time: its gas coin's version changes with each one.
  const sending = createMutex()
  let hub: SharedObject | undefined
  // Ends the background watches on close.
  const watches = new AbortController()
  const policies = new Map<string, SharedObject>()
  let unavailableReason: string | undefined
  let lastLatencyMs: number | undefined
  let failures = 0
  let requests = 0
  let lastError: string | undefined
  log.info({ relayer: relayer ?? null, endpoint: redactUrl(chain.rpcUrl) }, 'chain configured')

  function assertAvailable() {
    if (unavailableReason) throw new ChainUnavailableError(chain.chainId, { details: unavailableReason, retryAfterSeconds: 60 })
  }

  /** Every RPC goes through here: one deadline, one classification, the endpoint's counters. */
  async function call<T>(method: string, what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const started = performance.now()
    requests++
    const signal = AbortSignal.timeout(rpcTimeoutMs)
    try {
      const result = await fn(signal)
      lastLatencyMs = Math.round(performance.now() - started)
      rpcRecorder?.observeRpc({ chain: chain.chainId, method, seconds: (performance.now() - started) / 1000 })
      return result
    } catch (err) {
      failures++
      const classified = classifySuiError(err, chain.chainId, what)
      rpcRecorder?.observeRpc({ chain: chain.chainId, method, seconds: (performance.now() - started) / 1000, failure: failureKind(classified, signal.aborted) })
      lastError = classified.details ?? classified.shortMessage
      throw classified
    }
  }

  async function sharedObject(objectId: string, what: string): Promise<{ ok: true; object: SharedObject; type: string | undefined } | { ok: false; reason: string }> {
    const { objects } = await call('getObjects', `lookup of ${what}`, (signal) => client.core.getObjects({ objectIds: [objectId], signal }))
    const found = objects[0]
    if (!found || found instanceof Error) return { ok: false, reason: `${what} ${objectId} does not exist on ${chain.chainId}` }
    if (found.owner?.$kind !== 'Shared') return { ok: false, reason: `${what} ${objectId} is not a shared object` }
    return { ok: true, object: { objectId: found.objectId, initialSharedVersion: found.owner.Shared.initialSharedVersion }, type: found.type }
  }

  async function deployment(): Promise<SuiDeployment> {
    if (!hub) {
      const found = await sharedObject(hubId, 'the Hub object')
      if (!found.ok) throw new GatewayError('The Sui deployment is incomplete', { code: 'CHAIN_CALL_FAILED', details: found.reason })
      hub = found.object
    }
    return { packageId, hub }
  }

  /** The intent's policy object, or the reason it cannot serve (answered DISALLOWED, as EVM answers an unknown policy). */
  async function policyOf(intent: Intent): Promise<SharedObject | string> {
    const id = normalizeSuiAddress(intent.policyId)
    const cached = policies.get(id)
    if (cached) return cached
    const found = await sharedObject(id, 'the policy')
    if (!found.ok) return found.reason
    if (found.type !== policyType) return `object ${id} is a ${found.type ?? 'non-Move object'}, not a ${policyType}`
    // A shared object's initial version never changes: one lookup per policy for good.
    policies.set(id, found.object)
    return found.object
  }

  /** The status code an abort of the transaction carries, when it was our module that aborted. */
  function statusOfAbort(error: ExecutionErrorLike | undefined): { status: number; detail: string } | undefined {
    const abort = decodeMoveAbort(error)
    if (!abort) return undefined
    const ours = (abort.package === undefined || abort.package === packageId) && (abort.module === undefined || abort.module === suiIntentModule.module)
    if (ours && abort.code <= 0xffn) return { status: Number(abort.code), detail: `the Move module aborted with ${abort.code}` }
    return { status: Status.TRANSFER_FAILED, detail: `aborted in ${abort.package ?? '?'}::${abort.module ?? '?'} with code ${abort.code}` }
  }

  async function validateWithDetail(intent: Intent): Promise<{ status: number; detail: string | undefined }> {
    assertAvailable()
    const policy = await policyOf(intent)
    if (typeof policy === 'string') return { status: Status.DISALLOWED, detail: policy }
    const bytes = await buildSuiValidateTransaction({ deployment: await deployment(), policy, intent, sender: relayer ?? zeroAddress })
    const what = `simulated validate call of ${packageId}::${suiIntentModule.module}`
    const result = await call('simulateTransaction', what, (signal) =>
      client.core.simulateTransaction({ transaction: bytes, include: { commandResults: true, effects: true }, checksEnabled: false, doGasSelection: false, signal }),
    )
    if (result.$kind === 'FailedTransaction') {
      const error = result.FailedTransaction.status.error as ExecutionErrorLike | null
      const aborted = statusOfAbort(error ?? undefined)
      if (aborted) return aborted
      throw new GatewayError(`The chain rejected the ${what}`, { code: 'CHAIN_CALL_FAILED', details: error?.message ?? 'the simulation failed without an error message' })
    }
    const value = result.commandResults?.[0]?.returnValues?.[0]?.bcs
    if (!value || value.length !== 1) {
      throw new GatewayError(`The chain rejected the ${what}`, {
        code: 'CHAIN_CALL_FAILED',
        details: value ? `it returned ${value.length} bytes, not a u8` : 'it returned no value: is the package deployed on this network?',
      })
    }
    return { status: value[0]!, detail: undefined }
  }

  async function gasFor(budget: bigint): Promise<{ price: bigint; payment: SuiObjectRef[] }> {
    const [{ referenceGasPrice }, { objects }] = await Promise.all([
      call('getReferenceGasPrice', 'reference gas price request', (signal) => client.core.getReferenceGasPrice({ signal })),
      call('listCoins', 'gas coin lookup', (signal) => client.core.listCoins({ owner: relayer!, signal })),
    ])
    const coin = objects.filter((c) => BigInt(c.balance) >= budget).sort((a, b) => (BigInt(b.balance) > BigInt(a.balance) ? 1 : -1))[0]
    if (!coin) throw new RelayerError(`The relayer ${relayer} has no SUI coin covering a gas budget of ${budget} MIST`)
    return { price: BigInt(referenceGasPrice), payment: [{ objectId: coin.objectId, version: coin.version, digest: coin.digest }] }
  }

  /** The sender's serialized signPersonalMessage signature, sent as 0x hex (empty: unsigned, which the module refuses). */
  function signatureBytes(signature: Hex | undefined): Uint8Array {
    return signature ? Buffer.from(signature.slice(2), 'hex') : new Uint8Array()
  }

  /** Effects of an executed (or failed) transaction as the port's receipt. */
  function toReceipt(digest: string, result: { $kind: string; Transaction?: unknown; FailedTransaction?: unknown }): ExecutionReceipt {
    const tx = (result.$kind === 'Transaction' ? result.Transaction : result.FailedTransaction) as {
      checkpoint: string | null
      effects?: { gasUsed?: { computationCost: string; storageCost: string; storageRebate: string } } | null
      status: { success: boolean; error: ExecutionErrorLike | null }
    }
    const gas = tx.effects?.gasUsed
    const base = {
      transactionHash: digest,
      blockNumber: BigInt(tx.checkpoint ?? 0),
      gasUsed: gas ? BigInt(gas.computationCost) + BigInt(gas.storageCost) - BigInt(gas.storageRebate) : 0n,
      returnData: undefined,
    }
    if (tx.status.success) return { ...base, state: 'mined', status: Status.EXECUTED, detail: undefined }
    const aborted = statusOfAbort(tx.status.error ?? undefined)
    return { ...base, state: 'reverted', status: aborted?.status ?? Status.FAILURE, detail: aborted?.detail ?? tx.status.error?.message ?? 'the transaction failed on-chain' }
  }

  /** The transaction's receipt once the node knows it (a checkpoint, or the answer to a lost broadcast). */
  async function watch(digest: string): Promise<ExecutionReceipt> {
    const found = await client.core.waitForTransaction({ digest, include: { effects: true }, timeout: receiptWatchLimitMs, signal: watches.signal })
    return toReceipt(digest, found)
  }

  async function prepareExecution(intent: Intent, signature?: Hex): Promise<Preflight> {
    assertAvailable()
    const checked = await validateWithDetail(intent)
    if (!isSuccessStatus(checked.status)) return { ok: false, ...checked }
    if (!keypair || !relayer) throw new Error('prepareExecution called on a chain without a relayer')
    const policy = await policyOf(intent)
    if (typeof policy === 'string') return { ok: false, status: Status.DISALLOWED, detail: policy }
    const base = { deployment: await deployment(), policy, intent, sender: relayer, signature: signatureBytes(signature) }

    // Simulates the execution exactly as it will be sent, at the ceiling budget: a refusal here sends nothing.
    const trial = await buildSuiExecuteTransaction({ ...base, gas: { ...(await gasFor(maxGasBudget)), budget: maxGasBudget } })
    const simulated = await call('simulateTransaction', 'simulation of execute', (signal) => client.core.simulateTransaction({ transaction: trial, include: { effects: true }, signal }))
    if (simulated.$kind === 'FailedTransaction') {
      const error = simulated.FailedTransaction.status.error as ExecutionErrorLike | null
      const aborted = statusOfAbort(error ?? undefined)
      if (aborted) return { ok: false, ...aborted }
      throw new GatewayError('The chain rejected the simulation of execute', { code: 'CHAIN_CALL_FAILED', details: error?.message ?? 'no error message' })
    }
    const used = simulated.Transaction.effects?.gasUsed
    const budget = used ? ((BigInt(used.computationCost) + BigInt(used.storageCost)) * gasMarginPercent) / 100n : maxGasBudget

    return {
      ok: true,
      send: ({ onSigned }) =>
        sending.run(async () => {
          // Fresh coin versions under the lock: the previous transaction changed them.
          const gas = await gasFor(budget)
          const bytes = await buildSuiExecuteTransaction({ ...base, gas: { ...gas, budget } })
          const { signature } = await keypair.signTransaction(bytes)
          const digest = TransactionDataBuilder.getDigestFromBytes(bytes)
          const signed = suiSignedTransaction.serialize({ transaction: bytes, signature: Buffer.from(signature, 'base64') }).toBytes()
          // A Sui relayer has no account nonce: the gas coin's version orders its transactions.
          const { objectId, version } = gas.payment[0]!
          await onSigned({ id: digest, bytes: Buffer.from(signed).toString('base64'), relayer, details: { gasCoin: { objectId, version } } })
          try {
            const result = await call('executeTransaction', 'execution of execute', (signal) =>
              client.core.executeTransaction({ transaction: bytes, signatures: [signature], include: { effects: true, events: true }, signal }),
            )
            log.info({ transactionHash: digest, success: result.$kind === 'Transaction' }, 'execute sent')
            const executed = toReceipt(digest, result)
            // The effects are final; the checkpoint that includes them may come a moment later.
            const receipt = executed.blockNumber > 0n ? Promise.resolve(executed) : watch(digest).catch(() => executed)
            return { transactionHash: digest, accepted: true, receipt }
          } catch (err) {
            // The answer was lost, not refused: the record stays pending and reconciliation finds out.
            if (err instanceof ChainUnavailableError) {
              log.warn({ transactionHash: digest }, 'no answer to the execute broadcast; reconciliation takes over')
              return { transactionHash: digest, accepted: false, receipt: watch(digest) }
            }
            throw new RelayerError('The Sui node refused the execute transaction', { cause: err, details: err instanceof GatewayError ? err.details : undefined })
          }
        }),
    }
  }

  async function reconcile(tx: Parameters<ChainAdapter['reconcile']>[0]): Promise<Reconciliation> {
    assertAvailable()
    const digest = tx.id
    try {
      const found = await call('getTransaction', 'transaction lookup', (signal) => client.core.getTransaction({ digest, include: { effects: true }, signal }))
      return { kind: 'settled', receipt: toReceipt(digest, found) }
    } catch (err) {
      if (!(err instanceof GatewayError && /NOT_FOUND/.test(err.details ?? ''))) throw err
    }
    const { transaction, signature } = suiSignedTransaction.parse(Buffer.from(tx.bytes, 'base64'))
    try {
      const result = await call('executeTransaction', 'rebroadcast of execute', (signal) =>
        client.core.executeTransaction({ transaction: new Uint8Array(transaction), signatures: [Buffer.from(signature).toString('base64')], include: { effects: true }, signal }),
      )
      log.warn({ transactionHash: digest }, 'the node had lost a journaled transaction; broadcast it again')
      return { kind: 'settled', receipt: toReceipt(digest, result) }
    } catch (err) {
      if (err instanceof ChainUnavailableError) throw err
      // Refused now (its gas coin moved on): it never ran. Whether the intent ran anyway, the module's nonce says.
      const { status } = await validateWithDetail(tx.intent)
      const executed = status === Status.NONCE_USED
      return { kind: 'dropped', executed, detail: `transaction ${digest} was refused when sent again; the intent ${executed ? 'was executed by another transaction' : 'was not executed and may be sent again'}` }
    }
  }

  return {
    chainId: chain.chainId,
    chainType: 'sui',
    runtime: suiRuntime,
    canExecute: keypair !== undefined,
    executorAddress: packageId,
    ...(relayer
      ? { relayerBalance: async () => BigInt((await call('getBalance', 'relayer balance request', (signal) => client.core.getBalance({ owner: relayer, signal }))).balance.balance) }
      : {}),
    // The Move validate does not look at signatures; execute checks them (and aborts 0xE4).
    validate: async (intent) => (await validateWithDetail(intent)).status,
    signingRequest(intent) {
      const message = encodeSuiIntent(intent)
      return {
        scheme: 'sui-personal-message',
        message: Buffer.from(message).toString('base64'),
        instructions: "sign `message` (base64 of the intent's BCS bytes) with the sender's key through signPersonalMessage, and send the serialized signature's bytes as 0x hex in `signature`",
      }
    },
    prepareExecution,
    reconcile,
    getHealth: () =>
      probeHealth({
        chainId: chain.chainId,
        chainType: 'sui',
        unavailableReason,
        latest: async () => (await call('getServiceInfo', 'service info request', async (signal) => (await client.ledgerService.getServiceInfo({}, { abort: signal })).response)).checkpointHeight,
        // `call` already turned every failure into the gateway's error.
        classify: (err) => err as GatewayError,
      }),
    async preflight(): Promise<PreflightResult> {
      try {
        const { objects } = await call('getObjects', 'package lookup', (signal) => client.core.getObjects({ objectIds: [packageId, hubId], signal }))
        const missing: string[] = []
        if (!objects[0] || objects[0] instanceof Error) missing.push(`package ${packageId}`)
        const hubObject = objects[1]
        if (!hubObject || hubObject instanceof Error) missing.push(`hub ${hubId}`)
        else if (hubObject.owner?.$kind !== 'Shared') missing.push(`hub ${hubId} (not a shared object)`)
        else hub = { objectId: hubObject.objectId, initialSharedVersion: hubObject.owner.Shared.initialSharedVersion }
        return missing.length === 0 ? { ok: true } : { ok: false, missing }
      } catch (err) {
        return { ok: false, unreachable: (err as GatewayError).shortMessage }
      }
    },
    markUnavailable(reason) {
      unavailableReason = reason
      log.error({ reason }, `chain ${chain.chainId} is unavailable`)
    },
    describe() {
      return {
        chainId: chain.chainId,
        chainType: 'sui',
        reference: network,
        name: `Sui ${network}`,
        nativeCurrency: { name: 'Sui', symbol: 'SUI', decimals: 9 },
        contracts: { validator: packageId, executor: packageId, registry: hubId },
        signing: { scheme: 'sui-personal-message', message: "the intent's BCS bytes (see move/README.md), signed with signPersonalMessage" },
        relayer,
        available: !unavailableReason,
        unavailableReason,
        endpoints: [{ url: redactUrl(chain.rpcUrl), source: 'config', status: failures > 0 && lastError ? 'failing' : requests > 0 ? 'healthy' : 'unverified', latencyMs: lastLatencyMs, requests, failures, lastError }],
      }
    },
    close: async () => watches.abort(),
  }
}
