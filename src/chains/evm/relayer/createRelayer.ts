// Sends transactions from one relayer key. Nonces are handed out and transactions signed under a
// lock; the rest is pipelined outside it. Each signed transaction is handed to `onSigned` (the
// journal: concurrent writes share one fsync) and broadcast only once that resolved and every
// transaction below its nonce went out: in nonce order, what became ready while one group was at
// the node going as the next group, in one request the node runs in order. A broadcast whose
// answer is lost keeps its nonce (the journal delivers that very transaction again). A refused
// broadcast's nonce is re-read when nothing after it was handed out; when later nonces are out,
// it is filled with a no-op transaction instead, never handed back, since the node would hold
// every later transaction behind the gap.
import type { Logger } from 'pino'
import {
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  BaseError,
  InsufficientFundsError,
  NonceTooLowError,
} from 'viem'
import type { SignedExecution } from '../../../ports/chainAdapter.ts'
import { evmSignedExecution } from '../evmSignedExecution.ts'
import { RelayerError } from '../../../errors/relayerError.ts'
import { createMutex } from '../../createMutex.ts'
import { isTransportError } from './isTransportError.ts'

export { isTransportError } from './isTransportError.ts'

const feeReuseMs = 1000
/** The most broadcasts in one request. */
const maxGroup = 50
/** How many refused transactions the nonce floor keeps ignoring (their records are released soon after). */
const refusedKept = 256
/** Gas of a plain value transfer: what a filler transaction uses. */
const fillerGas = 21_000n

export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** `fees`: those the transaction was simulated with (default: the market's now). */
export type RelayedTransaction = { to: Address; data: Hex; gas: bigint; value?: bigint; fees?: Fees | undefined }

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
  /** The fees a transaction sent now would carry (one estimate shared for a second): simulate with these, then send with them. */
  fees(): Promise<Fees>
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
  /**
   * The lowest nonce a new transaction may use besides the node's view: above every journaled,
   * unsettled one but those in `ignore` (refused by the node: their records are being released).
   */
  nonceFloor?: (ignore: ReadonlySet<string>) => Promise<number | undefined>
  /** By default one after another through `client`. */
  broadcastMany?: BroadcastMany | undefined
}

/** Broadcasts signed transactions in one request, in this order; one settled answer each. */
export type BroadcastMany = (rawTransactions: readonly Hex[]) => Promise<PromiseSettledResult<unknown>[]>

export function createRelayer({ account, client, chainId, logger, nonceFloor, broadcastMany = oneByOne(client) }: CreateRelayerParameters): Relayer {
  const lock = createMutex()
  let nextNonce: number | undefined
  const refused = new Set<string>()
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

  // Above the node's count, the journal's unsettled transactions, and those signed here and not
  // broadcast yet (perhaps not journaled yet either).
  const readNonce = async () => {
    const pending = await client.getTransactionCount({ address: account.address, blockTag: 'pending' })
    return Math.max(pending, (await nonceFloor?.(refused)) ?? 0, ...outbox.map((s) => s.nonce + 1))
  }

  // Signed transactions in nonce order (a slot is taken under the lock), each broadcast once its
  // journal write is durable and every one before it was sent: nothing goes out above a
  // transaction that might never be sent. What became ready while one group was at the node goes
  // as the next group, in one request.
  type Slot = { rawTransaction: Hex; nonce: number; ready: boolean; settle(answer: PromiseSettledResult<unknown>): void; answer: Promise<PromiseSettledResult<unknown>> }
  const outbox: Slot[] = []
  let draining = false
  function reserve(rawTransaction: Hex, nonce: number): Slot {
    let settle!: Slot['settle']
    const answer = new Promise<PromiseSettledResult<unknown>>((resolve) => (settle = resolve))
    const slot = { rawTransaction, nonce, ready: false, settle, answer }
    outbox.push(slot)
    return slot
  }
  function release(slot: Slot, send: boolean) {
    if (send) slot.ready = true
    else outbox.splice(outbox.indexOf(slot), 1)
    if (!draining) void drain()
  }
  async function drain() {
    draining = true
    for (;;) {
      let n = 0
      while (n < outbox.length && n < maxGroup && outbox[n]!.ready) n++
      if (n === 0) break
      const group = outbox.splice(0, n)
      const answers = await broadcastMany(group.map((g) => g.rawTransaction)).catch((reason: unknown) => group.map((): PromiseSettledResult<unknown> => ({ status: 'rejected', reason })))
      group.forEach((g, i) => g.settle(answers[i] ?? { status: 'rejected', reason: new Error('no answer to this broadcast') }))
    }
    draining = false
  }
  const post = (rawTransaction: Hex, nonce: number) => {
    const slot = reserve(rawTransaction, nonce)
    release(slot, true)
    return slot.answer
  }

  /** A transaction that will never be sent (refused, or its journal write failed): its nonce is closed, under the lock. */
  async function gaveUp(transactionHash: Hex, nonce: number, err: unknown) {
    refused.add(transactionHash)
    if (refused.size > refusedKept) refused.delete(refused.values().next().value!)
    await lock.run(() => afterRefusal(nonce, err))
  }

  /**
   * Under the lock, after the node refused the transaction at `nonce`: nothing of it is at the
   * node. Its nonce is read again when it was the last handed out; a nonce too low was taken
   * already; otherwise later transactions wait behind it, so it is filled. The filler is not
   * journaled: a crash before it is sent leaves the later transactions above a gap, which the
   * reconciler settles as dropped (their intents not executed, and sendable again: the executor's
   * nonce check stops a second execution) although the node may still hold and later mine them.
   */
  async function afterRefusal(nonce: number, err: unknown) {
    if (nextNonce === undefined || nextNonce <= nonce) return // read again since: nothing to close
    if (nextNonce === nonce + 1 || isNodeError(err, NonceTooLowError, /nonce too low/i)) {
      nextNonce = undefined
      return
    }
    const filler = await currentFees()
      .then((fees) => account.signTransaction({ chainId, type: 'eip1559', to: account.address, value: 0n, gas: fillerGas, nonce, ...fees }))
      .then((raw) => post(raw, nonce))
      .catch((reason: unknown): PromiseSettledResult<unknown> => ({ status: 'rejected', reason }))
    if (filler.status === 'fulfilled' || isAlreadyKnown(filler.reason)) {
      logger.warn({ nonce, later: nextNonce - nonce - 1 }, 'a refused broadcast left a nonce gap under later transactions; filled it with a no-op transaction')
      return
    }
    logger.error({ nonce, err: filler.reason }, 'a refused broadcast left a nonce gap under later transactions and the no-op transaction to fill it was refused too; the relayer reads its nonce again and reconciliation settles what cannot mine')
    nextNonce = undefined
  }

  async function sign(tx: RelayedTransaction, fees: Fees, nonce: number): Promise<Omit<SendResult, 'accepted'> & { rawTransaction: Hex }> {
    const signed = await account.signTransaction({
      chainId,
      type: 'eip1559',
      to: tx.to,
      data: tx.data,
      value: tx.value ?? 0n,
      gas: tx.gas,
      nonce,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    })
    const transaction = evmSignedExecution.from({ relayer: account.address, txNonce: nonce, rawTransaction: signed })
    return { transaction, transactionHash: transaction.id as Hex, txNonce: nonce, rawTransaction: signed }
  }

  return {
    address: account.address,
    fees: currentFees,
    resync() {
      // Under the lock: a send under way finishes with the nonce it has, the next one re-reads.
      void lock.run(async () => {
        nextNonce = undefined
      })
    },
    async send(tx, { onSigned } = {}) {
      const txFees = tx.fees ?? await currentFees().catch((cause) => {
        throw new RelayerError('Could not read gas prices from the chain', { cause })
      })
      for (let attempt = 0; ; attempt++) {
        const { signed, nonce, slot, journaled } = await lock.run(async () => {
          nextNonce ??= await readNonce()
          const nonce = nextNonce
          const { rawTransaction, ...signed } = await sign(tx, txFees, nonce)
          nextNonce = nonce + 1
          // The journal write starts under the lock, so the journal records transactions in nonce
          // order; it is waited for outside it (several writes share one fsync).
          let journaled: Promise<void>
          try {
            journaled = Promise.resolve(onSigned?.(signed.transaction))
          } catch (err) {
            journaled = Promise.reject(err)
          }
          journaled.catch(() => {}) // handled below, after the lock
          return { signed, nonce, slot: reserve(rawTransaction, nonce), journaled }
        })
        // Broadcast once journaled, in nonce order.
        try {
          await journaled
        } catch (err) {
          release(slot, false)
          await gaveUp(signed.transactionHash, nonce, err)
          throw err
        }
        release(slot, true)
        const sent = await slot.answer
        if (sent.status === 'fulfilled' || isAlreadyKnown(sent.reason)) return { ...signed, accepted: true }
        const err = sent.reason
        if (isTransportError(err)) {
          // The node may have it: keep the nonce for this transaction, which the journal's
          // reconciler will broadcast again if the node turns out not to have it.
          logger.warn({ nonce, transactionHash: signed.transactionHash }, 'no answer to the broadcast; the transaction stays in the journal and will be delivered by reconciliation')
          return { ...signed, accepted: false }
        }
        await gaveUp(signed.transactionHash, nonce, err)
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
    },
  }
}

/** Broadcasts a signed transaction; a node that already has it counts as accepted. */
export async function broadcastRaw(client: PublicClient, rawTransaction: Hex): Promise<void> {
  try {
    await client.sendRawTransaction({ serializedTransaction: rawTransaction })
  } catch (err) {
    if (isAlreadyKnown(err)) return
    throw err
  }
}

const isAlreadyKnown = (err: unknown) => isNodeError(err, undefined, /already known|known transaction/i)

/** Broadcasts in order, each after the previous one's answer. */
function oneByOne(client: PublicClient): BroadcastMany {
  return async (rawTransactions) => {
    const answers: PromiseSettledResult<unknown>[] = []
    for (const serializedTransaction of rawTransactions) {
      answers.push(await client.sendRawTransaction({ serializedTransaction }).then((value): PromiseSettledResult<unknown> => ({ status: 'fulfilled', value }), (reason: unknown): PromiseSettledResult<unknown> => ({ status: 'rejected', reason })))
    }
    return answers
  }
}

/**
 * viem classifies node errors only on some paths (not for eth_sendRawTransaction), so match its
 * class where it did, and the node's own message where it did not.
 */
function isNodeError(err: unknown, kind: (new (...args: never[]) => Error) | undefined, message: RegExp): boolean {
  if (!(err instanceof BaseError)) return false
  return Boolean(err.walk((e) => (kind !== undefined && e instanceof kind) || (e instanceof BaseError && message.test(e.details ?? ''))))
}
