// The Solana devnet: LiteSVM behind its JSON-RPC front in a child process, the committed program
// deployed at a fixed id through Loader V3 as `solana program deploy` does (buffer, writes,
// DeployWithMaxDataLen; a devnet upgrade authority), its deployment config created by that
// authority for the front's genesis hash, demo
// policies and a funded vault seeded through real transactions, a funded relayer, and the probe
// target program (programs/solana/probe_target.c) at the demo target's address, and for x402:
// DemoDollar, an SPL mint (LiteSVM loads the SPL Token program), a demo payer holding 1000 of it,
// the treasury's token account, and a funded facilitator key. Shared by `npm start` and the e2e tests.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  type Address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  type Rpc,
  type SolanaRpcApi,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import type { PaymentsConfig } from '../../../config/paymentsConfig.ts'
import { projectFile } from '../../../config/projectFile.ts'
import { saltOf } from '../../derivePolicyId.ts'
import { createIntentGatewayProgram, type IntentGatewayProgram } from '../intentGatewayProgram.ts'
import { solanaClusterNetworks } from '../solanaClusters.ts'
import { deployWithLoaderV3 } from './deployWithLoaderV3.ts'
import { devnetSeed } from './devnetSeed.ts'
import { type SolanaDemoAgent, seedDemoAgent } from './seedDemoAgent.ts'
import { type SolanaDemoDollar, seedDemoDollar } from './seedDemoDollar.ts'
import { type LiteSvmRpcProcess, startLiteSvmRpc } from './startLiteSvmRpc.ts'

export const solanaProgramFile = fileURLToPath(projectFile('programs/solana/intent_gateway.so'))
const probeProgramFile = fileURLToPath(projectFile('programs/solana/probe_target.so'))

/** Fixed devnet keys (32-byte Ed25519 seeds), derived from public labels: never use them anywhere else. */
const devSeed = devnetSeed
const devKey = (label: string) => createKeyPairSignerFromPrivateKeyBytes(devSeed(label))

export type SolanaDemo = {
  sender: Address
  /** A target the narrow policy allows; the open policy allows any. */
  target: Address
  /** A target no narrow policy allows. */
  otherTarget: Address
  /** The instruction-data prefix the narrow policy allows. */
  allowedPrefix: `0x${string}`
  policies: { open: `0x${string}`; narrow: `0x${string}`; expired: `0x${string}`; future: `0x${string}` }
  /** What the sender's vault holds above its rent. */
  vaultLamports: bigint
  /** The sender's private key (32-byte seed): a public devnet key, so the demo can print signed intents. */
  senderSecretKey: Uint8Array
  /** A funded account to receive an execution's value (the first account meta). */
  recipient: Address
  /** Account mode: an agent with no vault, holding DemoDollar in its own token account (seedDemoAgent). */
  agent: SolanaDemoAgent
}

export type SolanaDevnet = {
  rpcUrl: string
  genesisHash: string
  /** CAIP-2: solana:<first 32 characters of the genesis hash>. */
  chainId: string
  reference: string
  programId: Address
  /** The deployment config account (the chain's `registry`). */
  config: Address
  /** A funded account to name as the fee payer of validate simulations (createSolanaAdapter's simulationFeePayer). */
  simulationFeePayer: Address
  /** The relayer's private key (32-byte seed; createSolanaAdapter's relayerSecretKey), funded with 100 SOL. */
  relayerSecretKey: Uint8Array
  demo: SolanaDemo
  program: IntentGatewayProgram
  /** x402 on this chain: DemoDollar, its payer and treasury, the facilitator key. */
  payment: SolanaDemoDollar
  /**
   * Execute priced at 0.01 DemoDollar, offered on Solana devnet's cluster id (x402's published
   * client pays on the public clusters only) and settled on this chain by the in-process facilitator.
   */
  payments: PaymentsConfig
  rpc: Rpc<SolanaRpcApi>
  accounts: { sender: KeyPairSigner; other: KeyPairSigner }
  /** Calls one of the front's `litesvm_*` controls. */
  control(
    method:
      | 'litesvm_setAccount'
      | 'litesvm_setClock'
      | 'litesvm_expireBlockhash'
      | 'litesvm_addProgram'
      | 'litesvm_setPrioritizationFees'
      | 'litesvm_setMinimumPriorityFee',
    params: unknown[],
  ): Promise<unknown>
  /** Sends and confirms a transaction paid by `payer`. */
  send(instructions: Instruction[], payer: KeyPairSigner): Promise<string>
  stop(): Promise<void>
}

export type StartSolanaDevnetParameters = {
  port?: number
  /** SIMD-0500 off, for the v0 build (clusters that have not activated it yet). */
  allowSbpfV0Deployment?: boolean
  /** The Intent Gateway ELF to deploy (the committed intent_gateway.so unless given). */
  program?: Uint8Array
}

export async function startSolanaDevnet({
  port = 0,
  allowSbpfV0Deployment = false,
  program: elf = readFileSync(solanaProgramFile),
}: StartSolanaDevnetParameters = {}): Promise<SolanaDevnet> {
  const front: LiteSvmRpcProcess = await startLiteSvmRpc({ port, allowSbpfV0Deployment })
  try {
    const rpc = createSolanaRpc(front.url)
    const control = async (method: string, params: unknown[]) => {
      const response = await fetch(front.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
      const body = (await response.json()) as { result?: unknown; error?: { message: string } }
      if (body.error) throw new Error(`${method}: ${body.error.message}`)
      return body.result
    }
    const programSigner = await devKey('program')
    const [sender, other, target, otherTarget, feePayer, upgradeAuthority] = await Promise.all([
      devKey('sender'),
      devKey('other'),
      devKey('target'),
      devKey('other target'),
      devKey('simulation fee payer'),
      devKey('upgrade authority'),
    ])
    const programId = programSigner.address
    const relayerSecretKey = devSeed('relayer')
    const relayer = await createKeyPairSignerFromPrivateKeyBytes(relayerSecretKey)
    const program = createIntentGatewayProgram(programId)

    async function send(instructions: Instruction[], payer: KeyPairSigner): Promise<string> {
      const { value: latest } = await rpc.getLatestBlockhash().send()
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      )
      const tx = await signTransactionMessageWithSigners(message)
      const signature = getSignatureFromTransaction(tx)
      await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64' }).send()
      for (let i = 0; i < 50; i++) {
        const { value } = await rpc.getSignatureStatuses([signature]).send()
        if (value[0]?.confirmationStatus) return signature
        await new Promise((r) => setTimeout(r, 20))
      }
      throw new Error(`transaction ${signature} was not confirmed`)
    }

    for (const who of [sender, other, feePayer, relayer, upgradeAuthority])
      await rpc.requestAirdrop(who.address, lamports(100_000_000_000n)).send()
    const minimumBalance = async (space: bigint) => await rpc.getMinimumBalanceForRentExemption(space).send()
    await deployWithLoaderV3({ elf, payer: upgradeAuthority, program: programSigner, minimumBalance, send })
    await deployWithLoaderV3({
      elf: readFileSync(probeProgramFile),
      payer: upgradeAuthority,
      program: target,
      minimumBalance,
      send,
    })
    const genesis = Uint8Array.from(getBase58Encoder().encode(front.genesisHash))
    // A separate transaction from the deployment: the program accepts it from its upgrade authority only.
    await send([await program.initConfig(upgradeAuthority, genesis)], upgradeAuthority)
    const config = await program.configAddress(genesis)

    const allowedPrefix = '0x02000000' as const // a system-program transfer's discriminator
    const policies = {
      open: saltOf('solana-open'),
      narrow: saltOf('solana-narrow'),
      expired: saltOf('solana-expired'),
      future: saltOf('solana-future'),
    }
    const sol = 1_000_000_000n
    await send(
      [
        await program.setPolicy(sender, {
          policyId: policies.open,
          maxValuePerTx: 1n * sol,
          maxAggregateValue: 10n * sol,
        }),
        await program.setPolicy(sender, {
          policyId: policies.narrow,
          maxValuePerTx: sol / 10n,
          maxAggregateValue: sol,
          allowedTargets: [target.address],
          allowedPrefixes: [allowedPrefix],
        }),
        await program.setPolicy(sender, {
          policyId: policies.expired,
          maxValuePerTx: sol,
          maxAggregateValue: sol,
          validBefore: 1n,
        }),
        await program.setPolicy(sender, {
          policyId: policies.future,
          maxValuePerTx: sol,
          maxAggregateValue: sol,
          validAfter: 4_102_444_800n,
        }),
      ],
      sender,
    )
    const vaultLamports = 2n * sol
    await send([await program.deposit(sender, vaultLamports)], sender)

    const payment = await seedDemoDollar({ rpc, send, devKey, devSeed, funder: upgradeAuthority })
    const agent = await seedDemoAgent({
      rpc,
      send,
      devKey,
      devSeed,
      funder: upgradeAuthority,
      program,
      mint: payment.mint,
      recipient: other.address,
    })

    const reference = front.genesisHash.slice(0, 32)
    const chainId = `solana:${reference}`
    const payments: PaymentsConfig = {
      prices: {
        [chainId]: {
          execute: {
            network: solanaClusterNetworks.devnet,
            payTo: payment.payTo,
            price: { asset: payment.mint, amount: payment.amount.toString() },
            maxTimeoutSeconds: 300,
            settleOn: chainId,
          },
        },
      },
      priceApiKeyClients: false,
      facilitator: { kind: 'local', solanaSecretKey: payment.facilitatorSecretKey },
    }
    return {
      rpcUrl: front.url,
      genesisHash: front.genesisHash,
      chainId,
      reference,
      programId,
      config,
      simulationFeePayer: feePayer.address,
      relayerSecretKey,
      demo: {
        sender: sender.address,
        target: target.address,
        otherTarget: otherTarget.address,
        allowedPrefix,
        policies,
        vaultLamports,
        senderSecretKey: devSeed('sender'),
        recipient: other.address,
        agent,
      },
      program,
      payment,
      payments,
      rpc,
      accounts: { sender, other },
      control,
      send,
      stop: () => front.stop(),
    }
  } catch (err) {
    await front.stop()
    throw err
  }
}
