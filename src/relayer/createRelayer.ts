// Sends transactions from the gateway's one relayer wallet. Nonces are handed out under a lock
// and advanced only once the node has accepted the broadcast; any doubt re-reads the node's
// pending nonce, so a failed send never leaves a gap and an accepted one is never sent twice.
import type { Logger } from 'pino'
import {
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  BaseError,
  InsufficientFundsError,
  NonceTooLowError,
  keccak256,
} from 'viem'
import { RelayerError } from '../errors/relayerError.ts'
import { createMutex } from './createMutex.ts'

const feeReuseMs = 1000

export type RelayedTransaction = { to: Address; data: Hex; gas: bigint; value?: bigint }

export type Relayer = {
  address: Address
  /** Signs and broadcasts; resolves with the transaction hash once the node has accepted it. */
  send(tx: RelayedTransaction): Promise<Hex>
}

export type CreateRelayerParameters = {
  account: LocalAccount
  client: PublicClient
  chainId: number
  logger: Logger
}

export function createRelayer({ account, client, chainId, logger }: CreateRelayerParameters): Relayer {
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

  const readNonce = () => client.getTransactionCount({ address: account.address, blockTag: 'pending' })

  async function broadcast(tx: RelayedTransaction, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }, nonce: number) {
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
    const hash = keccak256(signed)
    try {
      await client.sendRawTransaction({ serializedTransaction: signed })
    } catch (err) {
      // The node already has this exact transaction: it was accepted, do not send it again.
      if (isNodeError(err, undefined, /already known|known transaction/i)) return hash
      throw err
    }
    return hash
  }

  return {
    address: account.address,
    async send(tx) {
      const txFees = await currentFees().catch((cause) => {
        throw new RelayerError('Could not read gas prices from the chain', { cause })
      })
      return lock.run(async () => {
        for (let attempt = 0; ; attempt++) {
          nextNonce ??= await readNonce()
          const nonce = nextNonce
          try {
            const hash = await broadcast(tx, txFees, nonce)
            nextNonce = nonce + 1
            return hash
          } catch (err) {
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

/**
 * viem classifies node errors only on some paths (not for eth_sendRawTransaction), so match its
 * class where it did, and the node's own message where it did not.
 */
function isNodeError(err: unknown, kind: (new (...args: never[]) => Error) | undefined, message: RegExp): boolean {
  if (!(err instanceof BaseError)) return false
  return Boolean(err.walk((e) => (kind !== undefined && e instanceof kind) || (e instanceof BaseError && message.test(e.details ?? ''))))
}
