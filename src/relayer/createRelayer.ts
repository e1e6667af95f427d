// Sends transactions from the gateway's one relayer wallet. Nonces are handed out under a lock.
// Each signed transaction is handed to `onSigned` (the journal) before it is broadcast. A node
// that refuses the broadcast gets its nonce back (re-read from the node); a broadcast whose answer
// is lost keeps its nonce, since the journal will deliver that very transaction again.
import type { Logger } from 'pino'
import {
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  BaseError,
  HttpRequestError,
  InsufficientFundsError,
  RpcRequestError,
  TimeoutError,
  NonceTooLowError,
} from 'viem'
import type { SignedExecution } from '../chains/chainAdapter.ts'
import { evmSignedExecution } from '../chains/evm/evmSignedExecution.ts'
import { ChainUnavailableError } from '../errors/chainUnavailableError.ts'
import { RelayerError } from '../errors/relayerError.ts'
import { createMutex } from './createMutex.ts'

const feeReuseMs = 1000

export type RelayedTransaction = { to: Address; data: Hex; gas: bigint; value?: bigint }

export type SendResult = {
  /** What `onSigned` was given. */
  transaction: SignedExecution
  transactionHash: Hex
  txNonce: number
  /** False when the broadcast's answer was lost (timeout, connection reset): the node may or may not have it. */
  accepted: boolean
}

export type Relayer = {
  address: Address
  /**
   * Signs, calls `onSigned` (which may throw to stop the send), and broadcasts. Resolves once the
   * node has accepted the transaction or its answer was lost; rejects when the node refused it.
   */
  send(tx: RelayedTransaction, options?: { onSigned?: (tx: SignedExecution) => void | Promise<void> }): Promise<SendResult>
  /**
   * Forgets the next nonce it would hand out, so the next send reads it again from the node and
   * the journal (after a chain reset, or once a journaled transaction was found unable to mine):
   * a nonce above a gap would never mine.
   */
  resync(): void
}

export type CreateRelayerParameters = {
  account: LocalAccount
  client: PublicClient
  chainId: number
  logger: Logger
  /** The lowest nonce a new transaction may use besides the node's view: above every journaled, unsettled one. */
  nonceFloor?: () => Promise<number | undefined>
}

export function createRelayer({ account, client, chainId, logger, nonceFloor }: CreateRelayerParameters): Relayer {
  const lock = createMutex()
  let nextNonce: number | undefined
  // Concurrent sends share one fee estimate, reused for a second: fees move per block, not per call.
  let fees: { value: Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>; at: number } | undefined
  const currentFees = () => {
    if (!fees || Date.now() - fees.at > feeReuseMs) {
      const value = client.estimateFeesPerGas()
      const entry = { value, at: Date.now() }
      fees = entry
      value.catch(() => {
        if (fees === entry) fees = undefined // never reuse a failure
      })
    }
    return fees.value
  }

  const readNonce = async () => {
    const pending = await client.getTransactionCount({ address: account.address, blockTag: 'pending' })
    return Math.max(pending, (await nonceFloor?.()) ?? 0)
  }

  async function sign(tx: RelayedTransaction, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }, nonce: number): Promise<Omit<SendResult, 'accepted'> & { rawTransaction: Hex }> {
    const signed = await account.signTransaction({
      chainId,
      type: 'eip1559',
      to: tx.to,
      data: tx.data,
      value: tx.value ?? 0n,
      gas: tx.gas,
      nonce,
      ...fees,
    })
    const transaction = evmSignedExecution.from({ relayer: account.address, txNonce: nonce, rawTransaction: signed })
    return { transaction, transactionHash: transaction.id as Hex, txNonce: nonce, rawTransaction: signed }
  }

  return {
    address: account.address,
    resync() {
      // Under the lock: a send under way finishes with the nonce it has, the next one re-reads.
      void lock.run(async () => {
        nextNonce = undefined
      })
    },
    async send(tx, { onSigned } = {}) {
      const txFees = await currentFees().catch((cause) => {
        throw new RelayerError('Could not read gas prices from the chain', { cause })
      })
      return lock.run(async () => {
        for (let attempt = 0; ; attempt++) {
          nextNonce ??= await readNonce()
          const nonce = nextNonce
          const { rawTransaction, ...signed } = await sign(tx, txFees, nonce)
          await onSigned?.(signed.transaction)
          try {
            await broadcastRaw(client, rawTransaction)
            nextNonce = nonce + 1
            return { ...signed, accepted: true }
          } catch (err) {
            if (isTransportError(err)) {
              // The node may have it: keep the nonce for this transaction, which the journal's
              // reconciler will broadcast again if the node turns out not to have it.
              nextNonce = nonce + 1
              logger.warn({ nonce, transactionHash: signed.transactionHash }, 'no answer to the broadcast; the transaction stays in the journal and will be delivered by reconciliation')
              return { ...signed, accepted: false }
            }
            nextNonce = undefined // re-read from the node on the next send
            if (isNodeError(err, NonceTooLowError, /nonce too low/i) && attempt === 0) {
              logger.warn({ nonce }, 'relayer nonce was behind the node; re-reading it and sending again')
              continue
            }
            if (isNodeError(err, InsufficientFundsError, /insufficient funds/i)) {
              throw new RelayerError('The relayer wallet cannot pay for gas', {
                cause: err,
                details: `relayer ${account.address} is out of funds`,
              })
            }
            throw new RelayerError('The relayer could not send the transaction', { cause: err })
          }
        }
      })
    },
  }
}

/** Broadcasts a signed transaction; a node that already has it counts as accepted. */
export async function broadcastRaw(client: PublicClient, rawTransaction: Hex): Promise<void> {
  try {
    await client.sendRawTransaction({ serializedTransaction: rawTransaction })
  } catch (err) {
    if (isNodeError(err, undefined, /already known|known transaction/i)) return
    throw err
  }
}

/** No answer from any node (as opposed to a node's refusal): what was sent may have arrived. */
export function isTransportError(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) if (e instanceof ChainUnavailableError) return true
  if (!(err instanceof BaseError)) return false
  if (err.walk((e) => e instanceof RpcRequestError)) return false
  return Boolean(err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError))
}

/**
 * viem classifies node errors only on some paths (not for eth_sendRawTransaction), so match its
 * class where it did, and the node's own message where it did not.
 */
function isNodeError(err: unknown, kind: (new (...args: never[]) => Error) | undefined, message: RegExp): boolean {
  if (!(err instanceof BaseError)) return false
  return Boolean(err.walk((e) => (kind !== undefined && e instanceof kind) || (e instanceof BaseError && message.test(e.details ?? ''))))
}
