// The Solana implementation of the ChainAdapter port (part 1: validation). Validate simulates the
// program's validate instruction (no signature check, recent blockhash replaced) and reads the
// one-byte status from its return data. Execution comes in part 2: canExecute is false and
// prepareExecution answers UNSUPPORTED_ACTION.
import type { Logger } from 'pino'
import {
  type Address,
  type Rpc,
  type SolanaRpcApi,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createSolanaRpc,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { ChainUnavailableError } from '../../errors/chainUnavailableError.ts'
import { failureKind, type RpcRecorder } from '../../metrics/createMetrics.ts'
import { GatewayError } from '../../errors/gatewayError.ts'
import type { Intent } from '../../intents/intent.ts'
import { Status } from '../../status/statusCodes.ts'
import type { ChainAdapter, PreflightResult } from '../chainAdapter.ts'
import type { EndpointView } from '../evm/createEndpointPool.ts'
import { probeHealth } from '../probeHealth.ts'
import { classifySolanaRpcError } from './classifySolanaRpcError.ts'
import { accountSizes, accountTags, createIntentGatewayProgram, programErrors } from './intentGatewayProgram.ts'
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
}

/** Any blockhash will do: the node replaces it (replaceRecentBlockhash). */
const placeholderBlockhash = { blockhash: blockhash('11111111111111111111111111111111'), lastValidBlockHeight: 0n }

export function createSolanaAdapter({ chain, rpcTimeoutMs, logger, simulationFeePayer, rpcRecorder }: CreateSolanaAdapterParameters): ChainAdapter & { runtime: ReturnType<typeof createSolanaRuntime> } {
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
  log.info({ programId: chain.programId, config: chain.config, endpoints: endpoints.length }, 'chain configured')

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
    canExecute: false,
    executorAddress: chain.programId,
    runtime,
    validate,
    signingRequest(intent) {
      return {
        scheme: 'ed25519',
        message: runtime.hashIntent(intent),
        instructions: 'an Ed25519 signature by the sender (or a delegate of the policy) of the 32-byte message, the keccak256 of the canonical intent bytes (programs/solana/README.md)',
      }
    },
    async prepareExecution() {
      assertAvailable()
      throw new GatewayError('Execution on Solana is not supported yet', {
        code: 'UNSUPPORTED_ACTION',
        status: Status.UNSUPPORTED_ACTION,
        details: `chain ${chain.chainId} validates intents only; signed execution comes with the program's execute instruction`,
      })
    },
    async reconcile() {
      throw new GatewayError('Execution on Solana is not supported yet', { code: 'UNSUPPORTED_ACTION', status: Status.UNSUPPORTED_ACTION })
    },
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
        relayer: undefined,
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
