// Execute, with a relayer key: the sender's (or a delegate's) Ed25519 signature goes into the
// Ed25519 program's instruction, followed by the program's execute, behind the compute budget
// (limit measured by a simulation, price from the market within the ceiling); the relayer signs
// and pays. The signed transaction is simulated before anything is journaled or sent.
import { getBase58Encoder } from '@solana/kit'
import type { Hex } from 'viem'
import { InputError } from '../../../errors/inputError.ts'
import type { ExecutionOptions, Preflight } from '../../../ports/chainAdapter.ts'
import type { Intent } from '../../../ports/intent.ts'
import { isSuccessStatus, Status } from '../../../status/statusCodes.ts'
import { maxComputeUnitLimit, setComputeUnitLimit, setComputeUnitPrice } from '../computeBudget.ts'
import { ed25519Instruction } from '../intentGatewayProgram.ts'
import { computeUnitLimitFor, computeUnitPriceFor } from '../priceComputeUnits.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { assertAvailable } from './assertAvailable.ts'
import { draftTransaction } from './draftTransaction.ts'
import { latestBlockhash } from './latestBlockhash.ts'
import { prepareAccountExecution } from './prepareAccountExecution.ts'
import { recentPriorityFee } from './recentPriorityFee.ts'
import { refineStatus } from './refineStatus.ts'
import { sendExecution } from './sendExecution.ts'
import { signExecuteTransaction } from './signExecuteTransaction.ts'
import { signerOf } from './signerOf.ts'
import { simulateExecution } from './simulateExecution.ts'
import { validateIntent } from './validateIntent.ts'
import { writableAccounts } from './writableAccounts.ts'

export async function prepareExecution(
  ctx: SolanaContext,
  intent: Intent,
  signature?: Hex,
  options: ExecutionOptions = {},
): Promise<Preflight> {
  // Account mode: the agent's own wallet signs the transaction (prepareAccountExecution.ts).
  if (options.account) return prepareAccountExecution(ctx, intent, signature, options.account)
  assertAvailable(ctx)
  const { relayer } = ctx
  if (!relayer) throw new Error('prepareExecution called on a chain without a relayer')
  if (!signature) {
    return {
      ok: false,
      status: Status.SIGNATURE_REQUIRED,
      detail:
        'the Solana program executes only intents signed by their sender (or a delegate of the policy): sign the 32 bytes of `signing.message` with Ed25519 and send the 64-byte signature as `signature`',
    }
  }
  const signatureBytes = Uint8Array.from(Buffer.from(signature.slice(2), 'hex'))
  if (signatureBytes.length !== 64) {
    throw new InputError('Invalid signature', {
      errors: [
        {
          field: 'signature',
          message: `must be a 64-byte Ed25519 signature on Solana (0x + 128 hex digits); it has ${signatureBytes.length} bytes`,
        },
      ],
    })
  }
  const status = await validateIntent(ctx, intent)
  if (!isSuccessStatus(status)) return { ok: false, status: await refineStatus(ctx, intent, status), detail: undefined }

  const message = Uint8Array.from(Buffer.from(ctx.runtime.hashIntent(intent).slice(2), 'hex'))
  const signer = await signerOf(ctx, intent, message, signatureBytes)
  if (!signer) {
    return {
      ok: false,
      status: Status.UNAUTHORIZED,
      detail:
        "the signature is neither the sender's nor a delegate's (of the policy) Ed25519 signature of `signing.message`",
    }
  }
  const instructions = [
    ed25519Instruction(Uint8Array.from(getBase58Encoder().encode(signer)), signatureBytes, message),
    await ctx.program.execute(intent, ctx.chain.config),
  ]
  const price = computeUnitPriceFor(
    await recentPriorityFee(ctx, writableAccounts(relayer.address, instructions)),
    ctx.maxPriorityFee,
  )
  // The compute units it uses, measured on an unsigned draft with the most it could be given.
  const draft = await simulateExecution(
    ctx,
    intent,
    draftTransaction(relayer.address, [
      setComputeUnitLimit(maxComputeUnitLimit),
      setComputeUnitPrice(price),
      ...instructions,
    ]),
    { estimate: true },
  )
  if (draft.refused) return draft.refused
  const budget = [setComputeUnitLimit(computeUnitLimitFor(draft.unitsConsumed)), setComputeUnitPrice(price)]
  const signed = await signExecuteTransaction(relayer, [...budget, ...instructions], await latestBlockhash(ctx))
  const simulated = await simulateExecution(ctx, intent, signed.bytes)
  if (simulated.refused) return simulated.refused
  return {
    ok: true,
    send: ({ onSigned }) => sendExecution(ctx, signed, { onSigned, signer, intent }),
    // After a payment's settlement confirmed: the same instructions at the state it left (its
    // signature was checked above; the blockhash may be older by now, so the node's stands in).
    recheck: async () => (await simulateExecution(ctx, intent, signed.bytes, { estimate: true })).refused,
  }
}
