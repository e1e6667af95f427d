// A LiteSVM with the committed Intent Gateway program deployed as on a real cluster (Loader V3:
// buffer, writes, DeployWithMaxDataLen, an upgrade authority), and small helpers to send and
// simulate @solana/kit transactions against it. For the program tests; the HTTP tests go through
// the JSON-RPC front instead.
import { readFileSync } from 'node:fs'
import {
  type Address,
  appendTransactionMessageInstructions,
  blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import { Clock, FailedTransactionMetadata, TransactionMetadata } from 'litesvm'
import { solanaProgramFile } from '../../scripts/buildSolanaProgram.ts'
import type { SbpfVersion } from '../../scripts/sbpfProgram.ts'
import { createClusterSvm } from '../../src/chains/solana/devnet/createClusterSvm.ts'
import { deployWithLoaderV3 } from '../../src/chains/solana/devnet/deployWithLoaderV3.ts'
import { createIntentGatewayProgram } from '../../src/chains/solana/intentGatewayProgram.ts'

export type SvmOutcome =
  | { ok: true; logs: string[]; returnData: Uint8Array; computeUnits: bigint }
  | { ok: false; logs: string[]; custom: number | undefined; error: string }

export type StartSolanaSvmParameters = {
  /**
   * Which committed build to deploy: v3 (intent_gateway.so, probe_target.so) under SIMD-0500, as
   * on the clusters' future; v0 (*.v0.so) with SIMD-0500 off, as on clusters that still take it.
   */
  version?: SbpfVersion
  /** Another Intent Gateway ELF to deploy instead. */
  program?: Uint8Array
  /** SIMD-0500 off (the default for v0, which it would refuse). */
  allowSbpfV0Deployment?: boolean
  /** The program id's key pair (a new one unless given), e.g. to compare two builds at the same id. */
  programKey?: KeyPairSigner
}

export async function startSolanaSvm({
  version = 'v3',
  program: elf,
  allowSbpfV0Deployment = version === 'v0',
  programKey,
}: StartSolanaSvmParameters = {}) {
  const svm = createClusterSvm({ allowSbpfV0Deployment })

  async function funded(sol = 10n, key?: KeyPairSigner): Promise<KeyPairSigner> {
    const signer = key ?? (await generateKeyPairSigner())
    svm.airdrop(signer.address, lamports(sol * 1_000_000_000n))
    return signer
  }

  async function build(instructions: Instruction[], payer: KeyPairSigner) {
    svm.expireBlockhash()
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash(svm.latestBlockhash()), lastValidBlockHeight: 1_000_000n },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
    )
    return signTransactionMessageWithSigners(message)
  }

  function toOutcome(
    result: TransactionMetadata | FailedTransactionMetadata | { meta(): TransactionMetadata },
  ): SvmOutcome {
    if (result instanceof FailedTransactionMetadata) {
      const err = result.err() as unknown
      const custom =
        typeof err === 'object' && err !== null && 'err' in err
          ? ((err as { err(): unknown }).err() as { code?: number }).code
          : undefined
      return { ok: false, logs: result.meta().logs(), custom, error: String(result.toString()) }
    }
    const meta = result instanceof TransactionMetadata ? result : result.meta()
    return {
      ok: true,
      logs: meta.logs(),
      returnData: meta.returnData().data(),
      computeUnits: meta.computeUnitsConsumed(),
    }
  }

  async function sendOrThrow(instructions: Instruction[], payer: KeyPairSigner) {
    const outcome = toOutcome(svm.sendTransaction(await build(instructions, payer)))
    if (!outcome.ok) throw new Error(`${outcome.error}\n${outcome.logs.join('\n')}`)
  }
  /** Deploys an ELF through Loader V3, `authority` as its upgrade authority, at a new program id. */
  async function deploy(program: Uint8Array, authority: KeyPairSigner, key?: KeyPairSigner): Promise<Address> {
    const { programId } = await deployWithLoaderV3({
      elf: program,
      payer: authority,
      program: key ?? (await generateKeyPairSigner()),
      minimumBalance: (space) => svm.minimumBalanceForRentExemption(space),
      send: sendOrThrow,
    })
    return programId
  }

  /** Deployed the programs; the only key init_config accepts. */
  const authority = await funded(100n)
  const programId = await deploy(
    elf ?? readFileSync(solanaProgramFile('intent_gateway', version)),
    authority,
    programKey,
  )
  const program = createIntentGatewayProgram(programId)
  /** The probe target program (programs/solana/probe_target.c). */
  const probeId = await deploy(readFileSync(solanaProgramFile('probe_target', version)), authority)

  return {
    svm,
    version,
    programId,
    program,
    probeId,
    authority,
    deploy,
    funded,
    async send(instructions: Instruction[], payer: KeyPairSigner): Promise<SvmOutcome> {
      return toOutcome(svm.sendTransaction(await build(instructions, payer)))
    },
    async simulate(instructions: Instruction[], payer: KeyPairSigner): Promise<SvmOutcome> {
      return toOutcome(svm.simulateTransaction(await build(instructions, payer)))
    },
    setTime(unixTimestamp: bigint) {
      const c = svm.getClock()
      svm.setClock(new Clock(c.slot, c.epochStartTimestamp, c.epoch, c.leaderScheduleEpoch, unixTimestamp))
    },
    balance: (address: Address) => svm.getBalance(address) ?? 0n,
  }
}

export type SolanaSvm = Awaited<ReturnType<typeof startSolanaSvm>>
