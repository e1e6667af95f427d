// x402 on the Solana devnet for the tests: the whole gateway (createGateway, as production builds
// it) serving the LiteSVM chain with execute priced in DemoDollar, the unmodified x402 client
// paying with @x402/svm's exact scheme, and signed Solana intents.

import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit'
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { ed25519Seed } from '../../src/chains/solana/ed25519Seed.ts'
import { defaultSolanaOptions } from '../../src/chains/solana/solanaOptions.ts'
import { createSolanaRuntime } from '../../src/chains/solana/solanaRuntime.ts'
import type { ChainConfig } from '../../src/config/gatewayConfig.ts'
import type { ExecutionGuardConfig } from '../../src/config/limitsConfig.ts'
import type { PaymentsConfig } from '../../src/config/paymentsConfig.ts'
import type { StorageConfig } from '../../src/config/storageConfig.ts'
import type { WebhooksConfig } from '../../src/config/webhooksConfig.ts'
import { createGateway } from '../../src/createGateway.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { localKey } from './relayerKeys.ts'
import { testConfig } from './testConfig.ts'
import type { TestGateway } from './testGateway.ts'

export function solanaChainOf(devnet: SolanaDevnet, rpcUrl = devnet.rpcUrl): ChainConfig {
  return {
    chainId: devnet.chainId,
    chainType: 'solana',
    reference: devnet.reference,
    rpcUrls: [rpcUrl],
    executor: devnet.programId,
    validator: devnet.programId,
    registry: devnet.config,
  } as ChainConfig
}

/** The chain's environment for a gateway process (`npm start` pointed at the devnet), with its prices. */
export function solanaChainEnv(
  devnet: SolanaDevnet,
  { rpcUrl = devnet.rpcUrl }: { rpcUrl?: string } = {},
): Record<string, string> {
  const on = (value: string) => JSON.stringify({ [devnet.chainId]: value })
  const price = devnet.payments.prices[devnet.chainId]!.execute!
  return {
    RPC_URLS: on(rpcUrl),
    EXECUTOR_ADDRESSES: on(devnet.programId),
    VALIDATOR_ADDRESSES: on(devnet.programId),
    REGISTRY_ADDRESSES: on(devnet.config),
    SOLANA_RELAYER_PRIVATE_KEY: JSON.stringify([...devnet.relayerSecretKey]),
    SOLANA_SIMULATION_FEE_PAYER: devnet.simulationFeePayer,
    X402_PRICES: JSON.stringify({
      [devnet.chainId]: {
        execute: {
          network: price.network,
          asset: devnet.payment.mint,
          amount: devnet.payment.amount.toString(),
          payTo: devnet.payment.payTo,
        },
      },
    }),
    FACILITATOR_SOLANA_PRIVATE_KEY: JSON.stringify([...devnet.payment.facilitatorSecretKey]),
    HOST: '127.0.0.1',
    PORT: '0',
    RECEIPT_POLL_MS: '50',
  }
}

export async function startSolanaPaidGateway(
  devnet: SolanaDevnet,
  {
    rpcUrl,
    payments = devnet.payments,
    storage,
    journalPath,
    receiptTimeoutMs = 5_000,
    reconcileIntervalMs = 200,
    rpcTimeoutMs = 2_000,
    otherChains = [],
    relayerPrivateKey,
    limits,
    webhooks,
  }: {
    rpcUrl?: string
    payments?: PaymentsConfig
    storage?: Partial<StorageConfig>
    journalPath?: string
    receiptTimeoutMs?: number
    reconcileIntervalMs?: number
    rpcTimeoutMs?: number
    otherChains?: ChainConfig[]
    relayerPrivateKey?: `0x${string}`
    limits?: ExecutionGuardConfig
    webhooks?: WebhooksConfig
  } = {},
): Promise<TestGateway> {
  const logs: string[] = []
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } })
  const gateway = await createGateway({
    config: testConfig({
      chains: [solanaChainOf(devnet, rpcUrl), ...otherChains],
      keys: {
        evm: relayerPrivateKey ? [localKey(relayerPrivateKey, 'RELAYER_PRIVATE_KEY')] : [],
        solana: [localKey(devnet.relayerSecretKey, 'SOLANA_RELAYER_PRIVATE_KEY')],
      },
      runtimeOptions: { solana: { ...defaultSolanaOptions, simulationFeePayer: devnet.simulationFeePayer } },
      payments,
      ...(limits ? { limits } : {}),
      ...(webhooks ? { webhooks } : {}),
      ...(storage ? { storage } : {}),
      ...(journalPath ? { storageOptions: { sqlite: { path: journalPath, synchronous: 'full' } } } : {}),
      execution: { reconcileIntervalMs, receiptTimeoutMs },
      rpc: { timeoutMs: rpcTimeoutMs, pollMs: 20 },
      // Every test client is 127.0.0.1: one client may hold every connection.
      server: { maxConnectionsPerClient: 512 },
    }),
    logger,
  })
  const baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...gateway, baseUrl, logs }
}

/** The unmodified x402 client with @x402/svm's exact scheme, told the devnet's RPC (its own config option). */
export async function solanaPayingClient(devnet: SolanaDevnet, secretKey = devnet.payment.payerSecretKey) {
  const signer = await createKeyPairSignerFromPrivateKeyBytes(secretKey)
  const network = devnet.payments.prices[devnet.chainId]!.execute!.network
  const client = new x402Client()
  client.register(network, new ExactSvmScheme(signer, { rpcUrl: devnet.rpcUrl }))
  client.setSpendControls({ allowedAssets: [{ network, asset: devnet.payment.mint }] })
  return { client, signer, http: new x402HTTPClient(client), fetch: wrapFetchWithPayment(fetch, client) }
}

let nextNonce = BigInt(Date.now()) * 1000n

/** A Solana intent signed by the demo sender (the probe target echoes; 1000 lamports go to the recipient). */
export function signedSolanaIntent(
  devnet: SolanaDevnet,
  overrides: Partial<Intent> = {},
): { body: Record<string, unknown>; intentHash: `0x${string}` } {
  const intent: Intent = {
    sender: devnet.demo.sender,
    target: devnet.demo.target,
    data: '0x00cafe',
    value: 1_000n,
    nonce: nextNonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId: devnet.demo.policies.open,
    accounts: [{ address: devnet.demo.recipient, signer: false, writable: true }],
    ...overrides,
  }
  const intentHash = createSolanaRuntime({ programId: devnet.programId, config: devnet.config }).hashIntent(intent)
  const signature = `0x${Buffer.from(ed25519Seed.sign(devnet.demo.senderSecretKey, Buffer.from(intentHash.slice(2), 'hex'))).toString('hex')}`
  return {
    intentHash,
    body: {
      ...intent,
      value: intent.value.toString(),
      nonce: intent.nonce.toString(),
      validAfter: intent.validAfter.toString(),
      validBefore: intent.validBefore.toString(),
      signature,
    },
  }
}

/**
 * One new demo intent paid for through `gatewayUrl` with the unmodified x402 client (`execute` sends
 * it, and pays when asked), and what the chain says of it: the price, the payer's balance and the
 * demo recipient's (the intent moves 1000 lamports to it).
 */
export async function paidSolanaIntent(devnet: SolanaDevnet, gatewayUrl: string) {
  const paying = await solanaPayingClient(devnet)
  const { body } = signedSolanaIntent(devnet)
  return {
    price: devnet.payment.amount,
    payerBalance: () => devnet.payment.balanceOf(devnet.payment.payer),
    recipient: async () => (await devnet.rpc.getBalance(devnet.demo.recipient).send()).value,
    execute: () =>
      paying.fetch(`${gatewayUrl}/intents/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-chain-id': devnet.chainId },
        body: JSON.stringify(body),
      }),
  }
}
