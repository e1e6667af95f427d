// Account mode (`mode: "account"`): the agent's own wallet signs the execute transaction, the
// relayer only pays its fee. Without a signature (or once the issued message's blockhash expired)
// the gateway builds the transaction message (fee payer = the relayer, a recent blockhash, the
// compute budget it chose, then execute_as_signer and nothing else), keeps it by intent hash and
// answers 401 0xE5 with it (signingRequest reads it). With a signature: the 64-byte Ed25519
// signature of exactly that message by the sender, never a message from the agent; the relayer
// co-signs the same bytes, the transaction is simulated as it will be sent, then journaled and
// sent. The agent pays the nonce record's rent and the value: short of them, 0x54 before anything
// is signed.
import {
  type Address,
  getBase64EncodedWireTransaction,
  getPublicKeyFromAddress,
  getSignatureFromTransaction,
  type SignatureBytes,
  type Transaction,
  type TransactionWithinSizeLimit,
  type TransactionWithLifetime,
  verifySignature,
} from '@solana/kit'
import type { Hex } from 'viem'
import { InputError } from '../../../errors/inputError.ts'
import type { Preflight, SignedExecution } from '../../../ports/chainAdapter.ts'
import type { AccountMode, Intent } from '../../../ports/intent.ts'
import { isSuccessStatus, Status } from '../../../status/statusCodes.ts'
import { maxComputeUnitLimit, setComputeUnitLimit, setComputeUnitPrice } from '../computeBudget.ts'
import { computeUnitLimitFor, computeUnitPriceFor } from '../priceComputeUnits.ts'
import type { SolanaContext, SolanaTransactionDetails } from '../solanaContext.ts'
import { assertAvailable } from './assertAvailable.ts'
import { blockHeight } from './blockHeight.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'
import { compileAccountMessage } from './compileAccountMessage.ts'
import { draftTransaction } from './draftTransaction.ts'
import { latestBlockhash } from './latestBlockhash.ts'
import { recentPriorityFee } from './recentPriorityFee.ts'
import { refineStatus } from './refineStatus.ts'
import { sendExecution } from './sendExecution.ts'
import { simulateExecution } from './simulateExecution.ts'
import { validateIntent } from './validateIntent.ts'
import { writableAccounts } from './writableAccounts.ts'

const signHere =
  'in account mode the agent signs the transaction itself: sign the bytes of `signing.message` (base64, the transaction message, fee payer the relayer) with the sender key (Ed25519) and send the 64-byte signature as `signature`, before block height `signing.lastValidBlockHeight`'

export async function prepareAccountExecution(
  ctx: SolanaContext,
  intent: Intent,
  signature: Hex | undefined,
  account: AccountMode,
): Promise<Preflight> {
  assertAvailable(ctx)
  const { relayer } = ctx
  if (!relayer) throw new Error('prepareAccountExecution called on a chain without a relayer')
  if (account.authorization) {
    throw new InputError('The intent is not valid', {
      errors: [
        {
          field: 'authorization',
          message: 'is an EIP-7702 authorization (EVM): on Solana the agent signs the transaction message itself',
        },
      ],
    })
  }
  const signatureBytes = signature === undefined ? undefined : Uint8Array.from(Buffer.from(signature.slice(2), 'hex'))
  if (signatureBytes && signatureBytes.length !== 64) {
    throw new InputError('Invalid signature', {
      errors: [
        {
          field: 'signature',
          message: `must be the sender's 64-byte Ed25519 signature of the transaction message (0x + 128 hex digits); it has ${signatureBytes.length} bytes`,
        },
      ],
    })
  }
  const status = await validateIntent(ctx, intent, { asSigner: true })
  if (!isSuccessStatus(status)) return { ok: false, status: await refineStatus(ctx, intent, status), detail: undefined }
  const short = await shortfall(ctx, intent)
  if (short) return { ok: false, status: Status.INSUFFICIENT_FUNDS, detail: short }

  const intentHash = ctx.runtime.hashIntent(intent)
  const height = await blockHeight(ctx)
  ctx.issuedMessages.prune(height)
  const issued = ctx.issuedMessages.get(intentHash)
  if (!issued) {
    const refused = await issue(ctx, intent, intentHash)
    if (refused) return refused
    const detail = signatureBytes
      ? `no message to sign is current for this intent (its blockhash expired, or it was never issued here): ${signHere}`
      : signHere
    return { ok: false, status: Status.SIGNATURE_REQUIRED, detail }
  }
  if (!signatureBytes) return { ok: false, status: Status.SIGNATURE_REQUIRED, detail: signHere }
  const sender = intent.sender as Address
  if (
    !(await verifySignature(
      await getPublicKeyFromAddress(sender),
      signatureBytes as SignatureBytes,
      issued.messageBytes,
    ))
  ) {
    return {
      ok: false,
      status: Status.UNAUTHORIZED,
      detail: "the signature is not the sender's Ed25519 signature of the transaction message in `signing.message`",
    }
  }

  // The relayer co-signs the very bytes it issued, next to the agent's signature.
  const unsigned: Transaction = {
    messageBytes: issued.messageBytes as unknown as Transaction['messageBytes'],
    signatures: { [relayer.address]: null, [sender]: signatureBytes as SignatureBytes },
  }
  // kit's signer asks for a transaction branded as within the size limit and with a lifetime, which
  // only its compile step gives; these are the bytes that step made when the message was issued.
  const [relayerSignature] = await (await relayer.signer).signTransactions([
    unsigned as Transaction & TransactionWithinSizeLimit & TransactionWithLifetime,
  ])
  const transaction: Transaction = { ...unsigned, signatures: { ...unsigned.signatures, ...relayerSignature } }
  const details: SolanaTransactionDetails = {
    blockhash: issued.blockhash,
    lastValidBlockHeight: issued.lastValidBlockHeight.toString(),
    computeUnitLimit: issued.computeUnitLimit,
    computeUnitPrice: issued.computeUnitPrice,
    mode: 'account',
  }
  const wire = getBase64EncodedWireTransaction(transaction)
  const signed: SignedExecution = {
    id: getSignatureFromTransaction(transaction),
    bytes: wire,
    relayer: relayer.address,
    details,
  }
  const simulated = await simulateExecution(ctx, intent, wire, { asSigner: true })
  if (simulated.refused) return simulated.refused
  return {
    ok: true,
    send: ({ onSigned }) => sendExecution(ctx, signed, { onSigned, signer: sender, intent }),
    recheck: async () => (await simulateExecution(ctx, intent, wire, { estimate: true, asSigner: true })).refused,
  }
}

/**
 * Builds and keeps the message the agent is to sign: the compute units measured on an unsigned
 * draft, the price from the market within the ceiling, the latest blockhash. A refusal of the
 * draft's simulation is the answer instead.
 */
async function issue(
  ctx: SolanaContext,
  intent: Intent,
  intentHash: string,
): Promise<Extract<Preflight, { ok: false }> | undefined> {
  const relayer = ctx.relayer!
  const execute = await ctx.program.executeAsSigner(intent, ctx.chain.config)
  const price = computeUnitPriceFor(
    await recentPriorityFee(ctx, writableAccounts(relayer.address, [execute])),
    ctx.maxPriorityFee,
  )
  const draft = await simulateExecution(
    ctx,
    intent,
    draftTransaction(relayer.address, [setComputeUnitLimit(maxComputeUnitLimit), setComputeUnitPrice(price), execute]),
    {
      estimate: true,
      asSigner: true,
    },
  )
  if (draft.refused) return draft.refused
  const limit = computeUnitLimitFor(draft.unitsConsumed)
  const lifetime = await latestBlockhash(ctx)
  const messageBytes = compileAccountMessage(
    relayer.address,
    [setComputeUnitLimit(limit), setComputeUnitPrice(price), execute],
    lifetime,
  )
  ctx.issuedMessages.put(intentHash, {
    messageBytes,
    lastValidBlockHeight: lifetime.lastValidBlockHeight,
    blockhash: lifetime.blockhash,
    computeUnitLimit: String(limit),
    computeUnitPrice: String(price),
  })
  return undefined
}

/**
 * What the sender's own account lacks to pay the nonce record's rent and the value and stay
 * rent-exempt (a system account may not be left between zero and its minimum), as a sentence; undefined when it has enough.
 */
async function shortfall(ctx: SolanaContext, intent: Intent): Promise<string | undefined> {
  const sender = intent.sender as Address
  const [balance, recordRent, ownRent] = await Promise.all([
    callSolanaRpc(ctx, 'getBalance', 'sender balance request', (rpc, abortSignal) =>
      rpc.getBalance(sender, { commitment: 'confirmed' }).send({ abortSignal }),
    ).then((r) => BigInt(r.value)),
    callSolanaRpc(ctx, 'getMinimumBalanceForRentExemption', 'rent request', (rpc, abortSignal) =>
      rpc.getMinimumBalanceForRentExemption(48n).send({ abortSignal }),
    ).then(BigInt),
    callSolanaRpc(ctx, 'getMinimumBalanceForRentExemption', 'rent request', (rpc, abortSignal) =>
      rpc.getMinimumBalanceForRentExemption(0n).send({ abortSignal }),
    ).then(BigInt),
  ])
  const needed = intent.value + recordRent
  const after = balance - needed
  if (after === 0n || after >= ownRent) return undefined
  return `in account mode the sender's own account pays the nonce record's rent (${recordRent} lamports) and the value (${intent.value}), and keeps its own rent-exempt minimum (${ownRent}): it holds ${balance} lamports; the relayer pays only the transaction fee`
}
