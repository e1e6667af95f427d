// An EVM transaction in the port's runtime-neutral shape and back: its hash as the id, its RLP
// bytes as base64, the relayer's account nonce as `details.txNonce`. The hash is the WebAssembly
// keccak (crypto/keccak256.ts): viem's JavaScript one cost ~50 µs per signed transaction.
import type { Hex } from 'viem'
import { keccak256 } from '../../crypto/keccak256.ts'
import type { SignedExecution } from '../../ports/chainAdapter.ts'

export const evmSignedExecution = {
  from({
    relayer,
    txNonce,
    rawTransaction,
  }: {
    relayer: string
    txNonce: number
    rawTransaction: Hex
  }): SignedExecution {
    return {
      id: keccak256(rawTransaction),
      bytes: Buffer.from(rawTransaction.slice(2), 'hex').toString('base64'),
      relayer,
      details: { txNonce },
    }
  },
  rawTransaction(tx: SignedExecution): Hex {
    // A bundle's call read back from the journal, which keeps the bundle's bytes once (transactionBytes).
    if (tx.bundle && tx.bytes === '')
      throw new Error(`journaled transaction ${tx.id} is a bundle: its bytes are the journal's to give`)
    return `0x${Buffer.from(tx.bytes, 'base64').toString('hex')}`
  },
  /** The relayer nonce the transaction uses; a record without one was not written by the EVM runtime. */
  txNonce(tx: SignedExecution): number {
    const { txNonce } = tx.details
    if (typeof txNonce !== 'number' || !Number.isSafeInteger(txNonce) || txNonce < 0) {
      throw new Error(`journaled transaction ${tx.id} has no EVM relayer nonce in its details`)
    }
    return txNonce
  },
}
