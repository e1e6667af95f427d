// The Solana implementation of the ChainAdapter port. Validate simulates the program's validate
// instruction (no signature check, recent blockhash replaced) and reads the one-byte status from
// its return data. Execute, with a relayer key: the sender's (or a delegate's) Ed25519 signature
// goes into the Ed25519 program's instruction, followed by the program's execute; the relayer
// signs and pays the fee; the signed transaction is simulated, journaled, sent, and confirmed by
// polling signature statuses. A transaction whose blockhash expired unmined can never land:
// reconcile asks for a replacement (the same instructions re-signed with a fresh blockhash, a new
// attempt) while the intent may still run, and reports it dropped otherwise.
import type { Logger } from 'pino'
import {
  type Address,
  type Rpc,
  type SolanaRpcApi,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  appendTransactionMessageInstruction,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  decompileTransactionMessage,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase58Decoder,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getPublicKeyFromAddress,
  getSignatureFromTransaction,
  isSolanaError,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  signature as toSignature,
  verifySignature,
  type Base64EncodedWireTransaction,
} from '@solana/kit'
import type { Hex } from 'viem'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { InputError } from '../../errors/inputError.ts'
import { failureKind, type RpcRecorder } from '../../metrics/createMetrics.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import type { Intent } from '../../ports/intent.ts'
import { Status, isSuccessStatus } from '../../status/statusCodes.ts'
import type { ChainAdapter, ExecutionReceipt, Preflight, PreflightResult, ReconcileRequest, Reconciliation, Replacement, SignedExecution } from '../../ports/chainAdapter.ts'
import type { EndpointView } from '../../ports/endpoint.ts'
import { probeHealth } from '../probeHealth.ts'
import { classifySolanaRpcError } from './classifySolanaRpcError.ts'
import { decodeSolanaFailure } from './decodeSolanaFailure.ts'
import { ed25519Seed } from './ed25519Seed.ts'
import { accountSizes, accountTags, createIntentGatewayProgram, ed25519Instruction, programErrors } from './intentGatewayProgram.ts'
import { createSolanaRuntime } from './solanaRuntime.ts'

export type SolanaChainConfig = {
  /** CAIP-2: solana:<first 32 characters of the genesis hash>. */
  chainId: string
  reference: string
  name?: string
  rpcUrls: string[]
  /** The program (validator and, in part 2, executor). */
  programId: Address
  /** The program's deployment config account (the chain's `registry`). */
  config: Address
}

export type CreateSolanaAdapterParameters = {
  chain: SolanaChainConfig
  rpcTimeoutMs: number
  logger: Logger
  /**
   * Any funded system account to name as the simulation's fee payer (nothing is signed or paid).
   * Without one the intent's sender is named, which fails if the sender holds no SOL.
   */
  simulationFeePayer?: Address | undefined
  /** Told the duration and failure of every RPC call (metrics). */
  rpcRecorder?: RpcRecorder | undefined
  /**
   * The relayer's Ed25519 private key (its 32-byte seed): it signs and pays for executions.
   * Without one the chain validates only (canExecute false).
   */
  relayerSecretKey?: Uint8Array | undefined
  /** How often a sent transaction's status is polled (ms). */
  confirmationPollMs?: number | undefined
}

/** The journal's `details` of a Solana transaction: the blockhash it lives by. */
type SolanaTransactionDetails = { blockhash: string; lastValidBlockHeight: string }

/** Solana's packet size: a transaction larger than this is never accepted. */
const maxTransactionSize = 1232

/** A receipt watch gives up after this long; reconciliation takes over. */
const receiptWatchLimitMs = 15 * 60_000

/** Any blockhash will do: the node replaces it (replaceRecentBlockhash). */
const placeholderBlockhash = { blockhash: blockhash('11111111111111111111111111111111'), lastValidBlockHeight: 0n }

export function createSolanaAdapter({
  chain,
  rpcTimeoutMs,
  logger,
  simulationFeePayer,
  rpcRecorder,
  relayerSecretKey,
  confirmationPollMs = 250,
}: CreateSolanaAdapterParameters): ChainAdapter & { runtime: ReturnType<typeof createSolanaRuntime> } {
  const log = logger.child({ module: 'solana', chainId: chain.chainId })
  if (chain.rpcUrls.length === 0) throw new Error(`chain ${chain.chainId} has no RPC URL`)
  const program = createIntentGatewayProgram(chain.programId)
  const runtime = createSolanaRuntime({ programId: chain.programId, config: chain.config })
  const endpoints = chain.rpcUrls.map((url) => ({
    url,
    rpc: createSolanaRpc(url) as Rpc<SolanaRpcApi>,
    view: { url: redact(url), source: 'config', status: 'unverified', latencyMs: undefined, requests: 0, failures: 0, lastError: undefined } satisfies EndpointView as EndpointView,
  }))
  let unavailableReason: string | undefined
  if (relayerSecretKey && relayerSecretKey.length !== 32) throw new Error('the Solana relayer key must be the 32-byte Ed25519 seed')
  const relayerAddress = relayerSecretKey ? (getBase58Decoder().decode(ed25519Seed.publicKey(relayerSecretKey)) as Address) : undefined
  const relayerSigner = relayerSecretKey ? createKeyPairSignerFromPrivateKeyBytes(relayerSecretKey) : undefined
  log.info({ programId: chain.programId, config: chain.config, endpoints: endpoints.length, relayer: relayerAddress }, 'chain configured')

  /** One RPC call, tried on each endpoint in turn while they are unreachable. */
  async function call<T>(method: string, what: string, fn: (rpc: Rpc<SolanaRpcApi>, abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    let last: GatewayError | undefined
    for (const endpoint of endpoints) {
      const started = performance.now()
      endpoint.view.requests++
      const abortSignal = AbortSignal.timeout(rpcTimeoutMs)
      try {
        const result = await fn(endpoint.rpc, abortSignal)
        endpoint.view.latencyMs = Math.round(performance.now() - started)
        endpoint.view.status = 'healthy'
        rpcRecorder?.observeRpc({ chain: chain.chainId, method, seconds: (performance.now() - started) / 1000 })
        return result
      } catch (err) {
        const failure = classifySolanaRpcError(err, chain.chainId, what)
        rpcRecorder?.observeRpc({ chain: chain.chainId, method, seconds: (performance.now() - started) / 1000, failure: failureKind(failure, abortSignal.aborted) })
        endpoint.view.failures++
        endpoint.view.lastError = failure.details ?? failure.shortMessage
        if (!(failure instanceof ChainUnavailableError)) throw failure
        endpoint.view.status = 'failing'
        last = failure
      }
    }
    throw last!
  }

  function assertAvailable() {
    if (unavailableReason) throw new ChainUnavailableError(chain.chainId, { details: unavailableReason, retryAfterSeconds: 60 })
  }

  async function validate(intent: Intent): Promise<number> {
    assertAvailable()
    const what = `simulation of the validate instruction of program ${chain.programId}`
    const instruction = await program.validate(intent, chain.config)
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(simulationFeePayer ?? (intent.sender as Address), m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(placeholderBlockhash, m),
      (m) => appendTransactionMessageInstruction(instruction, m),
    )
    const wire = getBase64EncodedWireTransaction(compileTransaction(message))
    const { value } = await call('simulateTransaction', what, (rpc, abortSignal) =>
      rpc.simulateTransaction(wire, { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: true, commitment: 'confirmed' }).send({ abortSignal }),
    )
    if (value.err) throw decodeSimulationError(value.err, what)
    const data = value.returnData
    if (!data || data.programId !== chain.programId) {
      throw new GatewayError(`The chain rejected the ${what}`, { code: 'CHAIN_CALL_FAILED', details: 'it returned no status: is this the Intent Gateway program?' })
    }
    const bytes = Buffer.from(data.data[0], 'base64')
    if (bytes.length !== 1) throw new GatewayError(`The chain rejected the ${what}`, { code: 'CHAIN_CALL_FAILED', details: `it returned ${bytes.length} bytes instead of a one-byte status` })
    return bytes[0]!
  }

  function decodeSimulationError(err: unknown, what: string): GatewayError {
    const shape = err as string | { InstructionError?: [number, unknown] }
    let details: string
    if (typeof shape === 'object' && shape && Array.isArray(shape.InstructionError)) {
      const inner = shape.InstructionError[1] as string | { Custom?: number | bigint }
      if (typeof inner === 'object' && inner && inner.Custom !== undefined) {
        const code = Number(inner.Custom)
        details = `program error ${code}: ${programErrors[code] ?? 'unknown'}`
      } else {
        details = `instruction error ${typeof inner === 'string' ? inner : JSON.stringify(inner)}`
      }
    } else if (shape === 'AccountNotFound') {
      details = simulationFeePayer ? `the simulation fee payer ${simulationFeePayer} holds no SOL` : 'the sender holds no SOL to name as the simulation fee payer: configure a funded simulation fee payer'
    } else if (shape === 'ProgramAccountNotFound' || shape === 'InvalidProgramForExecution') {
      details = `${String(shape)}: is the program deployed at ${chain.programId} on this chain?`
    } else {
      details = typeof shape === 'string' ? shape : JSON.stringify(shape, (_, v) => (typeof v === 'bigint' ? Number(v) : v))
    }
    return new GatewayError(`The chain rejected the ${what}`, { code: 'CHAIN_CALL_FAILED', status: Status.GATEWAY_FAILURE, details })
  }

  /** The nonce record of the intent's sender and nonce, as the program wrote it, if any. */
  async function nonceRecordOf(intent: Intent) {
    const address = await program.nonceAddress(intent.sender as Address, intent.nonce)
    const { value } = await call('getAccountInfo', 'nonce record lookup', (rpc, abortSignal) => rpc.getAccountInfo(address, { encoding: 'base64', commitment: 'confirmed' }).send({ abortSignal }))
    if (!value || value.owner !== chain.programId) return undefined
    return program.decodeNonceRecord(Buffer.from(value.data[0], 'base64'))
  }

  /** NONCE_USED of a nonce its sender cancelled is REVOKED, as on EVM. */
  async function refineStatus(intent: Intent, status: number): Promise<number> {
    if (status !== Status.NONCE_USED) return status
    const record = await nonceRecordOf(intent).catch(() => undefined)
    return record?.state === 'cancelled' ? Status.REVOKED : status
  }

  /** Which key made the signature: the sender's, or one of the policy's delegates; undefined if neither. */
  async function signerOf(intent: Intent, message: Uint8Array, signature: Uint8Array): Promise<Address | undefined> {
    const verifies = async (key: Address) => verifySignature(await getPublicKeyFromAddress(key), signature as never, message)
    if (await verifies(intent.sender as Address)) return intent.sender as Address
    const policyAddress = await program.policyAddress(intent.sender as Address, intent.policyId)
    const { value } = await call('getAccountInfo', 'policy lookup', (rpc, abortSignal) => rpc.getAccountInfo(policyAddress, { encoding: 'base64', commitment: 'confirmed' }).send({ abortSignal }))
    const policy = value && value.owner === chain.programId ? program.decodePolicy(Buffer.from(value.data[0], 'base64')) : undefined
    for (const delegate of policy?.delegates ?? []) {
      if (await verifies(delegate)) return delegate
    }
    return undefined
  }

  /** Sends signed bytes; a node that already has them counts as accepted. Throws the node's refusal as a GatewayError. */
  async function broadcast(wire: string): Promise<void> {
    try {
      await call('sendTransaction', 'broadcast of the execute transaction', (rpc, abortSignal) =>
        rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed' }).send({ abortSignal }),
      )
    } catch (err) {
      const cause = (err as GatewayError).cause
      if (isSolanaError(cause, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) {
        const inner = cause.cause
        if (isSolanaError(inner, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)) return
        const rpcErr = isSolanaError(inner, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)
          ? { InstructionError: [inner.context.index, { Custom: inner.context.code }] }
          : inner instanceof Error && typeof (inner as { context?: { index?: number } }).context?.index === 'number'
            ? { InstructionError: [(inner as { context: { index: number } }).context.index, inner.message] }
            : inner instanceof Error ? inner.message : 'refused'
        const failure = decodeSolanaFailure(rpcErr, cause.context.logs, chain.programId)
        throw new GatewayError('The chain refused the execute transaction', {
          code: 'CHAIN_CALL_FAILED',
          status: failure.kind === 'status' ? failure.status : failure.kind === 'target' ? Status.TRANSFER_FAILED : Status.GATEWAY_FAILURE,
          details: failure.detail ?? programErrors[failure.kind === 'status' ? failure.status : -1],
          cause,
        })
      }
      throw err
    }
  }

  /** The receipt of a transaction the chain has a status for. */
  function toReceipt(id: string, status: { slot: bigint; err: unknown }): ExecutionReceipt {
    const base = { transactionHash: id, blockNumber: BigInt(status.slot), gasUsed: 0n, returnData: undefined }
    if (!status.err) return { ...base, state: 'mined', status: Status.EXECUTED, detail: undefined }
    const failure = decodeSolanaFailure(status.err, undefined, chain.programId)
    return { ...base, state: 'reverted', status: failure.kind === 'status' ? failure.status : Status.FAILURE, detail: failure.detail }
  }

  async function statusOf(id: string) {
    const { value } = await call('getSignatureStatuses', 'signature status request', (rpc, abortSignal) =>
      rpc.getSignatureStatuses([toSignature(id)], { searchTransactionHistory: true }).send({ abortSignal }),
    )
    const status = value[0]
    return status && status.confirmationStatus && status.confirmationStatus !== 'processed' ? status : undefined
  }

  async function blockHeight(): Promise<bigint> {
    return BigInt(await call('getBlockHeight', 'block height request', (rpc, abortSignal) => rpc.getBlockHeight({ commitment: 'confirmed' }).send({ abortSignal })))
  }

  /** Polls the signature's status until it is confirmed, or its blockhash has expired unmined (rejects then). */
  async function watch(id: string, lastValidBlockHeight: bigint): Promise<ExecutionReceipt> {
    const started = Date.now()
    for (;;) {
      const status = await statusOf(id).catch(() => undefined)
      if (status) return toReceipt(id, status)
      const height = await blockHeight().catch(() => undefined)
      if (height !== undefined && height > lastValidBlockHeight) {
        const late = await statusOf(id)
        if (late) return toReceipt(id, late)
        throw new Error(`transaction ${id} expired unmined: its blockhash was valid up to block height ${lastValidBlockHeight}`)
      }
      if (Date.now() - started > receiptWatchLimitMs) throw new Error(`transaction ${id} was not confirmed within ${receiptWatchLimitMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, confirmationPollMs))
    }
  }

  async function prepareExecution(intent: Intent, signature?: Hex): Promise<Preflight> {
    assertAvailable()
    if (!relayerSigner || !relayerAddress) throw new Error('prepareExecution called on a chain without a relayer')
    if (!signature) {
      return { ok: false, status: Status.SIGNATURE_REQUIRED, detail: 'the Solana program executes only intents signed by their sender (or a delegate of the policy): sign the 32 bytes of `signing.message` with Ed25519 and send the 64-byte signature as `signature`' }
    }
    const signatureBytes = Uint8Array.from(Buffer.from(signature.slice(2), 'hex'))
    if (signatureBytes.length !== 64) {
      throw new InputError('Invalid signature', { errors: [{ field: 'signature', message: `must be a 64-byte Ed25519 signature on Solana (0x + 128 hex digits); it has ${signatureBytes.length} bytes` }] })
    }
    const status = await validate(intent)
    if (!isSuccessStatus(status)) return { ok: false, status: await refineStatus(intent, status), detail: undefined }

    const message = Uint8Array.from(Buffer.from(runtime.hashIntent(intent).slice(2), 'hex'))
    const signer = await signerOf(intent, message, signatureBytes)
    if (!signer) {
      return { ok: false, status: Status.UNAUTHORIZED, detail: 'the signature is neither the sender\'s nor a delegate\'s (of the policy) Ed25519 signature of `signing.message`' }
    }
    const instructions = [ed25519Instruction(Uint8Array.from(getBase58Encoder().encode(signer)), signatureBytes, message), await program.execute(intent, chain.config)]
    const { value: latest } = await call('getLatestBlockhash', 'blockhash request', (rpc, abortSignal) => rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal }))
    const payer = await relayerSigner
    const transaction = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      ),
    )
    const wire = getBase64EncodedWireTransaction(transaction)
    const id = getSignatureFromTransaction(transaction)
    const size = Buffer.byteLength(wire, 'base64')
    if (size > maxTransactionSize) {
      throw new InputError('Intent too large for one Solana transaction', {
        errors: [{ field: 'accounts', message: `the execute transaction would be ${size} bytes, above Solana's ${maxTransactionSize}: use fewer account metas or shorter data` }],
      })
    }

    // The transaction exactly as it will be sent: a refusal here sends nothing.
    const what = 'simulation of the execute transaction'
    const { value: simulated } = await call('simulateTransaction', what, (rpc, abortSignal) =>
      rpc.simulateTransaction(wire, { encoding: 'base64', sigVerify: true, commitment: 'confirmed' }).send({ abortSignal }),
    )
    if (simulated.err) {
      const failure = decodeSolanaFailure(simulated.err, simulated.logs, chain.programId)
      if (failure.kind === 'status') return { ok: false, status: await refineStatus(intent, failure.status), detail: failure.detail }
      if (failure.kind === 'target') return { ok: false, status: Status.TRANSFER_FAILED, detail: failure.detail }
      throw new GatewayError(`The chain rejected the ${what}`, { code: 'CHAIN_CALL_FAILED', status: Status.GATEWAY_FAILURE, details: failure.detail })
    }

    const details: SolanaTransactionDetails = { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight.toString() }
    const signed: SignedExecution = { id, bytes: wire, relayer: relayerAddress, details }
    return {
      ok: true,
      async send({ onSigned }) {
        await onSigned(signed)
        let accepted = true
        try {
          await broadcast(wire)
        } catch (err) {
          // No answer: the node may have it. The journal keeps it and reconciliation finishes it.
          if (!(err instanceof ChainUnavailableError)) throw err
          accepted = false
          log.warn({ transactionHash: id }, 'no answer to the broadcast; the transaction stays in the journal and will be delivered by reconciliation')
        }
        log.info({ transactionHash: id, accepted, signer }, 'execute sent')
        return { transactionHash: id, accepted, receipt: watch(id, latest.lastValidBlockHeight) }
      },
    }
  }

  /** The status of whichever of these transactions landed (an intent's attempts), if one did. */
  async function landed(txs: readonly SignedExecution[]): Promise<Reconciliation | undefined> {
    for (const candidate of txs) {
      const status = await statusOf(candidate.id)
      if (status) return { kind: 'settled', receipt: toReceipt(candidate.id, status) }
    }
    return undefined
  }

  async function reconcile(tx: ReconcileRequest): Promise<Reconciliation> {
    assertAvailable()
    const attempts = [tx, ...(tx.replaced ?? [])]
    const settled = await landed(attempts)
    if (settled) return settled
    const lastValid = BigInt((tx.details as SolanaTransactionDetails).lastValidBlockHeight)
    if ((await blockHeight()) > lastValid) {
      // It can never land now; it may have been mined between the two reads, so look once more.
      const late = await landed(attempts)
      if (late) return late
      const record = await nonceRecordOf(tx.intent)
      const executed = record?.state === 'executed' && record.intentHash === runtime.hashIntent(tx.intent)
      // The sender's signature does not depend on the blockhash: while the intent may still run,
      // the relayer signs it again with a fresh one, as a new attempt (see `replacement`).
      if (!executed && relayerSigner && !tx.otherInstance && isSuccessStatus(await validate(tx.intent))) {
        return { kind: 'refused', detail: `transaction ${tx.id} expired unmined (its blockhash was valid up to block height ${lastValid}); to be re-signed with a fresh blockhash` }
      }
      return {
        kind: 'dropped',
        executed,
        detail: executed
          ? `transaction ${tx.id} expired unmined; the intent was executed by another transaction`
          : `transaction ${tx.id} expired unmined (its blockhash was valid up to block height ${lastValid}); the intent was not executed and may be sent again`,
      }
    }
    await broadcast(tx.bytes)
    log.warn({ transactionHash: tx.id }, 'a journaled transaction was not confirmed; broadcast it again')
    return { kind: 'rebroadcast' }
  }

  /**
   * An expired, unlanded transaction signed again: the same instructions (the Ed25519 one carries
   * the sender's signature of the intent hash), a fresh blockhash, the relayer's new signature.
   * Nothing before the blockhash expired: the old one may still land.
   */
  async function replacement(tx: ReconcileRequest): Promise<Replacement | undefined> {
    if (!relayerSigner || !relayerAddress) return undefined
    const lastValid = BigInt((tx.details as SolanaTransactionDetails).lastValidBlockHeight)
    if ((await blockHeight()) <= lastValid) return undefined
    const old = getTransactionDecoder().decode(getBase64Encoder().encode(tx.bytes))
    const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(old.messageBytes))
    const { value: latest } = await call('getLatestBlockhash', 'blockhash request', (rpc, abortSignal) => rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal }))
    const payer = await relayerSigner
    const transaction = await signTransactionMessageWithSigners(
      pipe(
        message,
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      ),
    )
    const wire = getBase64EncodedWireTransaction(transaction)
    const details: SolanaTransactionDetails = { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight.toString() }
    const signed: SignedExecution = { id: getSignatureFromTransaction(transaction), bytes: wire, relayer: relayerAddress, details }
    return {
      tx: signed,
      detail: `blockhash of ${tx.id} expired unmined; the same instructions re-signed with blockhash ${latest.blockhash}`,
      broadcast: () => broadcast(wire),
    }
  }

  async function preflight(): Promise<PreflightResult> {
    try {
      const [genesisHash, programAccount, configAccount] = await Promise.all([
        call('getGenesisHash', 'genesis hash request', (rpc, abortSignal) => rpc.getGenesisHash().send({ abortSignal })),
        call('getAccountInfo', 'program account lookup', (rpc, abortSignal) => rpc.getAccountInfo(chain.programId, { encoding: 'base64' }).send({ abortSignal })),
        call('getAccountInfo', 'config account lookup', (rpc, abortSignal) => rpc.getAccountInfo(chain.config, { encoding: 'base64' }).send({ abortSignal })),
      ])
      const missing: string[] = []
      if (!genesisHash.startsWith(chain.reference)) missing.push(`chain id ${chain.chainId} (the endpoint's genesis hash is ${genesisHash})`)
      if (!programAccount.value?.executable) missing.push(`validator ${chain.programId} (no executable program)`)
      const configData = configAccount.value ? Buffer.from(configAccount.value.data[0], 'base64') : undefined
      const genesisBytes = Buffer.from(getBase58Encoder().encode(genesisHash))
      if (!configAccount.value || configAccount.value.owner !== chain.programId || configData?.length !== accountSizes.config || configData[0] !== accountTags.config) {
        missing.push(`registry ${chain.config} (no deployment config account of the program)`)
      } else if (!configData.subarray(8, 40).equals(genesisBytes)) {
        missing.push(`registry ${chain.config} (its deployment config is bound to another cluster)`)
      }
      return missing.length === 0 ? { ok: true } : { ok: false, missing }
    } catch (err) {
      return { ok: false, unreachable: classifySolanaRpcError(err, chain.chainId, 'account lookup').shortMessage }
    }
  }

  return {
    chainId: chain.chainId,
    chainType: 'solana',
    canExecute: relayerAddress !== undefined,
    executorAddress: chain.programId,
    ...(relayerAddress
      ? { relayerBalance: () => call('getBalance', 'relayer balance request', (rpc, abortSignal) => rpc.getBalance(relayerAddress, { commitment: 'confirmed' }).send({ abortSignal })).then((r) => BigInt(r.value)) }
      : {}),
    runtime,
    validate,
    signingRequest(intent) {
      return {
        scheme: 'ed25519',
        message: runtime.hashIntent(intent),
        instructions: 'an Ed25519 signature by the sender (or a delegate of the policy) of the 32-byte message, the keccak256 of the canonical intent bytes (programs/solana/README.md)',
      }
    },
    prepareExecution,
    reconcile,
    replacement,
    getHealth: () =>
      probeHealth({
        chainId: chain.chainId,
        chainType: 'solana',
        unavailableReason,
        latest: () => call('getSlot', 'slot request', (rpc, abortSignal) => rpc.getSlot({ commitment: 'confirmed' }).send({ abortSignal })),
        classify: (err) => classifySolanaRpcError(err, chain.chainId, 'slot request'),
      }),
    preflight,
    markUnavailable(reason) {
      unavailableReason = reason
      log.error({ reason }, `chain ${chain.chainId} is unavailable`)
    },
    describe() {
      return {
        chainId: chain.chainId,
        chainType: 'solana',
        reference: chain.reference,
        name: chain.name ?? `Solana ${chain.reference.slice(0, 8)}`,
        nativeCurrency: { name: 'Solana', symbol: 'SOL', decimals: 9 },
        contracts: { validator: chain.programId, executor: chain.programId, registry: chain.config },
        relayer: relayerAddress,
        available: !unavailableReason,
        unavailableReason,
        endpoints: endpoints.map((e) => ({ ...e.view })),
        signing: { scheme: 'ed25519', message: 'keccak256 of the canonical intent bytes, bound to this program and config account (programs/solana/README.md)' },
      }
    },
    async close() {},
  }
}

/** An RPC URL without credentials or query (API keys often ride there). */
function redact(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : '/…'}`
  } catch {
    return 'invalid url'
  }
}
