// The Solana part of the embedded devnet as a runtime module starts it (config/runtimeModule.ts):
// LiteSVM behind a JSON-RPC front with the program deployed, the relayer key it supplies, and what
// the start-up banner says of it.
import { getBase58Decoder } from '@solana/kit'
import type { RuntimeDevnet } from '../../../config/runtimeModule.ts'
import { solanaDemoCommands } from './solanaDemoCommands.ts'
import { startSolanaDevnet } from './startSolanaDevnet.ts'

export async function startSolanaRuntimeDevnet(): Promise<RuntimeDevnet> {
  const solana = await startSolanaDevnet()
  return {
    chain: {
      chainId: solana.chainId,
      chainType: 'solana',
      reference: solana.reference,
      rpcUrls: [solana.rpcUrl],
      executor: solana.programId,
      validator: solana.programId,
      registry: solana.config,
    },
    isDefault: false,
    settings: {
      keys: [{ backend: 'local', secret: solana.relayerSecretKey, setting: 'SOLANA_RELAYER_PRIVATE_KEY' }],
      options: { simulationFeePayer: solana.simulationFeePayer },
      payments: solana.payments,
    },
    async describe({ baseUrl, apiKey }) {
      return [
        `Devnet: Solana (LiteSVM behind a JSON-RPC front) ${solana.rpcUrl}, chain ${solana.chainId}`,
        `Program ${solana.programId}, config account ${solana.config}; demo sender ${solana.demo.sender}`,
        `x402: execute costs 0.01 DemoDollar (SPL mint ${solana.payment.mint}), offered on Solana devnet's id ${solana.payments.prices[solana.chainId]!.execute!.network} and settled on this chain; demo payer ${solana.payment.payer} holds 1000 DUSD (its public devnet key, a 32-byte seed in base58, for an x402 client of your own: ${getBase58Decoder().decode(solana.payment.payerSecretKey)})`,
        '',
        'And these (Solana):',
        '',
        solanaDemoCommands({ baseUrl, devnet: solana, apiKey }),
      ].join('\n')
    },
    stop: () => solana.stop(),
  }
}
