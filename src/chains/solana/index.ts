// The Solana runtime as the gateway composes it (config/runtimeModule.ts): solana chains (CAIP-2
// by genesis hash), the relayer key SOLANA_RELAYER_PRIVATE_KEY (or one held outside the process:
// config/signersConfig.ts), the priority-fee ceiling SOLANA_MAX_PRIORITY_FEE_MICROLAMPORTS and the
// simulation fee payer SOLANA_SIMULATION_FEE_PAYER (solanaOptions.ts), and LiteSVM as the devnet.
import type { Address } from '@solana/kit'
import type { RuntimeModule } from '../../config/runtimeModule.ts'
import type { Ed25519KeySource } from '../../ports/keySource.ts'
import { heldFirst } from '../heldFirst.ts'
import { readSolanaOptions, type SolanaOptions } from './solanaOptions.ts'
import { solanaRelayerKey } from './solanaRelayerKey.ts'
import { solanaRuntime } from './solanaRuntime.ts'

export const solanaModule: RuntimeModule = {
  chainType: 'solana',
  name: 'Solana',
  namespace: 'solana',
  runtime: solanaRuntime,
  checkContractAddress(value) {
    const problem = solanaRuntime.checkAddress(value)
    return problem && `"${value.slice(0, 50)}" ${problem}`
  },
  discoversEndpoints: false,
  // A cluster is named by the prefix of its genesis hash. No worked examples against LiteSVM yet.
  examples: { chainId: 'solana:<genesis-hash-prefix>' },
  readSettings(env, { production, problems }) {
    const relayer = solanaRelayerKey(env.SOLANA_RELAYER_PRIVATE_KEY, { production })
    if (!relayer.ok) problems.push(relayer.problem)
    const options = readSolanaOptions(env, problems)
    const keys: Ed25519KeySource[] =
      relayer.ok && relayer.key
        ? [{ backend: 'local', secret: relayer.key, setting: 'SOLANA_RELAYER_PRIVATE_KEY' }]
        : []
    return { keys, options }
  },
  // SOLANA_RELAYER_PKCS11_KEY_LABEL or SOLANA_RELAYER_KMS_KEY_ID: one key, instead of SOLANA_RELAYER_PRIVATE_KEY.
  heldKeys: { prefix: 'SOLANA_RELAYER', many: false },
  async createChains(chains, { settings, logger, rpcRecorder }) {
    // Solana's SDK is loaded only when a Solana chain is configured.
    const { createSolanaAdapter } = await import('./createSolanaAdapter.ts')
    const source = heldFirst(settings.keys.solana) as Ed25519KeySource | undefined
    const options = settings.runtimeOptions?.solana as SolanaOptions | undefined
    // A relayer key outside the process (SOLANA_RELAYER_PKCS11_KEY_LABEL, SOLANA_RELAYER_KMS_KEY_ID): its public key read once, shared by every chain.
    const relayerSigner =
      source && source.backend !== 'local' && chains.length > 0
        ? await (await import('../../signers/createEd25519Signer.ts')).createEd25519Signer(source)
        : undefined
    if (relayerSigner)
      logger.info({ signer: relayerSigner.backend }, 'the Solana relayer key is held outside the process')
    const adapters = chains.map((chain) =>
      createSolanaAdapter({
        chain: {
          chainId: chain.chainId,
          reference: chain.reference,
          rpcUrls: chain.rpcUrls,
          // Checked as Solana addresses at start-up (checkContractAddress); kit's Address is a brand on a string.
          programId: chain.validator as Address,
          config: chain.registry as Address,
        },
        rpcTimeoutMs: settings.rpc.timeoutMs,
        logger,
        // Checked as a Solana address by readSolanaOptions.
        simulationFeePayer: options?.simulationFeePayer as Address | undefined,
        relayerSecretKey: source?.backend === 'local' ? source.secret : undefined,
        relayerSigner,
        rpcRecorder,
        options,
      }),
    )
    return { adapters }
  },
  devnet: {
    name: 'a LiteSVM Solana chain',
    async start() {
      const { startSolanaRuntimeDevnet } = await import('./devnet/startSolanaRuntimeDevnet.ts')
      return startSolanaRuntimeDevnet()
    },
  },
}
