// The in-process facilitator's Solana side: x402's own SVM facilitator signer on the endpoints
// each Solana network's runtime lends (ports/chainEndpoints.ts), with two changes of ours. Its confirmation wait is bounded
// by the gateway's settlement timeout (x402 answers `settlement_pending` past it, never a failure),
// and it can tell beforehand which transaction id a payment's settlement will have: Ed25519 is
// deterministic, so the fee payer's signature of the payer's message is the settlement's id. The
// fee payer's key is an Ed25519Signer: in the process, in a PKCS#11 token or in KMS.
//
// A broadcast whose answer was lost (a reset, a timeout, a proxy's 5xx) is not a failure: the
// node may have the transaction and land it. x402 would answer such a send as failed, the
// reservation would be released, the client would pay again with a new transaction, and both
// would land (a payer charged twice). So only the node's own refusal fails a send; otherwise the
// send answers the transaction's id (known from its bytes) and the confirmation decides: confirmed
// is settled, not seen in time is `settlement_pending` for the resolver, like any slow settlement.
// While it waits, the same bytes are broadcast again every second, as Solana's own clients do: one
// lost on the way lands then, and a signature lands at most once, however often it is sent. Past
// the wait they are sent again in the background for as long as any blockhash lives, so that a
// `settlement_pending` settlement lands for the resolver to find rather than wait out its bound.
// Every RPC call has a timeout: an endpoint that never answers holds nothing past it.
import {
  type Address,
  getBase58Decoder,
  isSolanaError,
  type MessagePartialSigner,
  type Signature,
  type SignatureBytes,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
} from '@solana/kit'
import {
  decodeTransactionFromPayload,
  type FacilitatorSvmSigner,
  TransactionOnchainFailureError,
  toFacilitatorSvmSigner,
} from '@x402/svm'
import type { Logger } from 'pino'
import type { LentEndpoints } from '../../../ports/chainEndpoints.ts'
import type { Ed25519Signer } from '../../../signers/ed25519Signer.ts'
import { facilitatorSignerUnavailable } from '../../../signers/facilitatorSignerUnavailable.ts'
import { type SvmFeeLimits, svmFeeOf, svmFeeProblem } from '../../svmFeeLimits.ts'
import { settlementInLedger } from './settlementInLedger.ts'
import { solanaErrorText } from './solanaErrorText.ts'
import { toSolanaRpc } from './toSolanaRpc.ts'

/**
 * Whether a failed sendTransaction is the node's own answer (a JSON-RPC error: it refused the
 * transaction) rather than a lost one (no answer, a reset, an HTTP error from whatever is between).
 */
export function refusedByNode(err: unknown): boolean {
  if (!isSolanaError(err)) return false
  const code = Number(err.context.__code)
  return code >= -32768 && code <= -32000
}

/** A node that already has the transaction says so in its preflight: it was sent. */
function alreadyProcessed(err: unknown): boolean {
  return (
    isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE) &&
    isSolanaError(err.cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)
  )
}

export type SolanaFacilitatorSigner = {
  signer: FacilitatorSvmSigner
  /** The fee payer's address (base58). */
  address: string
  settlementIdOf(transaction: string): Promise<string | undefined>
  /**
   * What the fee payer paid for a settlement it signed and sent, and whether it failed: the
   * chain's `meta.fee` (undefined while the transaction is not found). A node without transaction
   * history is asked its status and the fee is the one the message sets, which is what Solana
   * charges; there a settlement whose sending threw counts as landed and failed (as a settlement
   * sent with skipPreflight that fails in execution lands and pays its fee).
   */
  spendOf(settlement: {
    signature: string
    transaction: string
    network: string
    sendFailed: boolean
  }): Promise<{ fee: bigint; failed: boolean } | undefined>
}

/** x402's error for a settlement that ran and failed on chain. */
const onchainFailure = (err: unknown) =>
  new TransactionOnchainFailureError(`Transaction failed onchain: ${solanaErrorText(err)}`)

/** How many recent signatures are kept: the settlement id signed before a reservation is the settlement's own signature. */
const keptSignatures = 64
/** How often a settlement whose broadcast answer was lost is sent again while its confirmation is awaited. */
const rebroadcastMs = 1_000
/** How long it is sent again in the background once the wait is over: longer than a blockhash lives (150 blocks). */
const rebroadcastForMs = 120_000

export function createSolanaFacilitatorSigner({
  key,
  endpoints,
  confirmTimeoutMs,
  pollMs = 200,
  feeLimits,
  logger,
  rpcTimeoutMs = 5_000,
}: {
  /** The fee payer's key: in the process, a PKCS#11 token or KMS (signers/createEd25519Signer.ts). */
  key: Ed25519Signer
  /** Each network's endpoints, as its chain's runtime lends them. */
  endpoints: Record<string, LentEndpoints>
  confirmTimeoutMs: number
  pollMs?: number
  /** The fee a transaction may make the key pay: one asking more is never signed, whoever asks. */
  feeLimits: SvmFeeLimits
  /** Where a lost broadcast is told. */
  logger?: Logger | undefined
  /** How long one RPC call may take before it counts as unanswered. */
  rpcTimeoutMs?: number
}): SolanaFacilitatorSigner {
  const rpcs = Object.fromEntries(
    Object.entries(endpoints).map(([network, lent]) => [network, toSolanaRpc(lent, { timeoutMs: rpcTimeoutMs })]),
  )
  const base58 = getBase58Decoder()
  const address = base58.decode(key.publicKey) as Address
  // Ed25519 is deterministic: the signature made for the settlement id is the one the settlement
  // needs, so a key outside the process (a round trip each) signs each payment once.
  const recent = new Map<string, Uint8Array>()
  // Settlements whose broadcast answer was lost, by id: their bytes, sent again while awaited.
  const unanswered = new Map<string, string>()
  const sign = async (message: Uint8Array) => {
    const id = Buffer.from(message).toString('base64')
    const kept = recent.get(id)
    if (kept) return kept
    const signature = await key.sign(message)
    recent.set(id, signature)
    if (recent.size > keptSignatures) recent.delete(recent.keys().next().value!)
    return signature
  }
  const kitSigner: MessagePartialSigner = Object.freeze({
    address,
    signMessages: (messages) =>
      Promise.all(
        messages.map(async (m) =>
          Object.freeze({ [address]: (await sign(Uint8Array.from(m.content))) as SignatureBytes }),
        ),
      ),
  })
  // `as never`: @x402/svm's toFacilitatorSvmSigner types its signer as @solana/kit's TransactionSigner
  // union and its RPCs as its own RpcClient map; x402 calls only signMessages and the RPC methods.
  const inner = toFacilitatorSvmSigner(kitSigner as never, rpcs as never)

  const signer: FacilitatorSvmSigner = {
    getAddresses: () => [address],
    async signTransaction(transaction, feePayer, network) {
      const problem = svmFeeProblem(transaction, feeLimits)
      if (problem) throw new Error(`${problem.reason}: ${problem.message}; not signed`)
      return inner.signTransaction(transaction, feePayer, network)
    },
    simulateTransaction: (transaction, network, options) => inner.simulateTransaction(transaction, network, options),
    async sendTransaction(transaction, network) {
      try {
        return await inner.sendTransaction(transaction, network)
      } catch (err) {
        const id = svmFeeOf(transaction)?.signature
        if (!id || (refusedByNode(err) && !alreadyProcessed(err))) throw err
        logger?.warn(
          { err, transaction: id, network },
          'x402 settlement broadcast got no answer: the node may have it, so its confirmation decides (not a failure)',
        )
        unanswered.set(id, transaction)
        if (unanswered.size > keptSignatures) unanswered.delete(unanswered.keys().next().value!)
        return id
      }
    },
    async confirmTransaction(signature, network) {
      const rpc = rpcs[network]
      if (!rpc) throw new Error(`no RPC for ${network}`)
      const deadline = Date.now() + confirmTimeoutMs
      let resendAt = Date.now() + rebroadcastMs
      let doubted = false
      try {
        for (;;) {
          const { value } = await rpc.getSignatureStatuses([signature as Signature]).send()
          const status = value[0]
          if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') {
            if (status.err) throw onchainFailure(status.err)
            // The status alone is not believed: the node must hand the transaction back (settlementInLedger.ts).
            const inLedger = await settlementInLedger(rpc, signature)
            if (inLedger.found === true && inLedger.err !== null) throw onchainFailure(inLedger.err)
            if (inLedger.found !== false) return
            if (!doubted) {
              doubted = true
              logger?.warn(
                { transaction: signature, network },
                'the endpoint says the x402 settlement confirmed, but the node does not hold the transaction: not believed yet',
              )
            }
          }
          if (Date.now() >= deadline)
            throw new Error(`settlement ${signature} not confirmed within ${confirmTimeoutMs} ms`)
          const wire = unanswered.get(signature)
          if (wire && !status && Date.now() >= resendAt) {
            resendAt = Date.now() + rebroadcastMs
            // Whatever it answers (taken, already processed, lost again), the status decides.
            await inner.sendTransaction(wire, network).catch(() => undefined)
          }
          await new Promise((resolve) => setTimeout(resolve, pollMs))
        }
      } finally {
        const wire = unanswered.get(signature)
        unanswered.delete(signature)
        if (wire) keepSending(signature, wire, network)
      }
    },
    getTokenAccountBalance: (account, network) => inner.getTokenAccountBalance!(account, network),
  }

  /** A lost settlement not seen by the end of its wait: sent again now and then, until seen or no blockhash can still be valid. */
  function keepSending(signature: string, wire: string, network: string) {
    const rpc = rpcs[network]
    if (!rpc) return
    const until = Date.now() + rebroadcastForMs
    const again = async () => {
      const status = await rpc
        .getSignatureStatuses([signature as Signature])
        .send()
        .then(
          ({ value }) => value[0],
          () => null,
        )
      if (status || Date.now() >= until) return
      await inner.sendTransaction(wire, network).catch(() => undefined)
      setTimeout(() => void again(), rebroadcastMs * 2).unref()
    }
    setTimeout(() => void again(), rebroadcastMs).unref()
  }

  return {
    signer,
    address,
    async spendOf({ signature, transaction, network, sendFailed }) {
      const rpc = rpcs[network]
      if (!rpc) throw new Error(`no RPC for ${network}`)
      const byMessage = svmFeeOf(transaction)?.lamports
      const inLedger = await settlementInLedger(rpc, signature)
      // Not there (yet): looked for again until it lands or the wait ends, a send that threw included.
      if (inLedger.found === true) return { fee: inLedger.fee, failed: inLedger.err !== null }
      if (inLedger.found === false) return undefined
      // A node without transaction history: its status, and the fee the message sets.
      const { value } = await rpc
        .getSignatureStatuses([signature as Signature], { searchTransactionHistory: true })
        .send()
      const status = value[0]
      if (byMessage === undefined) return undefined
      if (status && (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized'))
        return { fee: byMessage, failed: status.err !== null }
      return sendFailed ? { fee: byMessage, failed: true } : undefined
    },
    async settlementIdOf(transaction) {
      if (svmFeeProblem(transaction, feeLimits)) return undefined
      let message: Uint8Array
      try {
        message = Uint8Array.from(decodeTransactionFromPayload({ transaction }).messageBytes)
      } catch {
        return undefined
      }
      // A key that cannot sign now answers 503 before anything is reserved: the settlement could not be signed either.
      try {
        return base58.decode(await sign(message))
      } catch (err) {
        throw facilitatorSignerUnavailable('settle', err)
      }
    },
  }
}
