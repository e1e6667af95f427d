// A LiteSVM with the committed Intent Gateway program loaded, and small helpers to send and
// simulate @solana/kit transactions against it. For the program tests; the HTTP tests go through
// the JSON-RPC front instead.
import { readFileSync } from 'node:fs'
import {
  type Address,
  type Instruction,
  type KeyPairSigner,
  appendTransactionMessageInstructions,
  blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import { Clock, FailedTransactionMetadata, LiteSVM, TransactionMetadata } from 'litesvm'
import { solanaProgramFile, solanaProgramPath } from '../../scripts/buildSolanaProgram.ts'
import { createIntentGatewayProgram } from '../../src/chains/solana/intentGatewayProgram.ts'

export type SvmOutcome =
  | { ok: true; logs: string[]; returnData: Uint8Array; computeUnits: bigint }
  | { ok: false; logs: string[]; custom: number | undefined; error: string }

export async function startSolanaSvm() {
  const svm = new LiteSVM()
  const programSigner = await generateKeyPairSigner()
  const programId = programSigner.address
  svm.addProgram(programId, readFileSync(solanaProgramPath))
  const program = createIntentGatewayProgram(programId)
  /** The probe target program (programs/solana/probe_target.c). */
  const probeId = (await generateKeyPairSigner()).address
  svm.addProgram(probeId, readFileSync(solanaProgramFile('probe_target')))

  async function funded(sol = 10n): Promise<KeyPairSigner> {
    const signer = await generateKeyPairSigner()
    svm.airdrop(signer.address, lamports(sol * 1_000_000_000n))
    return signer
  }

  async function build(instructions: Instruction[], payer: KeyPairSigner) {
    svm.expireBlockhash()
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(svm.latestBlockhash()), lastValidBlockHeight: 1_000_000n }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    )
    return signTransactionMessageWithSigners(message)
  }

  function toOutcome(result: TransactionMetadata | FailedTransactionMetadata | { meta(): TransactionMetadata }): SvmOutcome {
    if (result instanceof FailedTransactionMetadata) {
      const err = result.err() as unknown
      const custom = typeof err === 'object' && err !== null && 'err' in err ? ((err as { err(): unknown }).err() as { code?: number }).code : undefined
      return { ok: false, logs: result.meta().logs(), custom, error: String(result.toString()) }
    }
    const meta = result instanceof TransactionMetadata ? result : result.meta()
    return { ok: true, logs: meta.logs(), returnData: meta.returnData().data(), computeUnits: meta.computeUnitsConsumed() }
  }

  return {
    svm,
    programId,
    program,
    probeId,
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
