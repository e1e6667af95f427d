// A relayed transaction signed at its nonce, and the nonce the next one takes.
import {
  type Hex,
  numberToHex,
  type Signature,
  serializeTransaction,
  type TransactionSerializable,
  type TransactionSerializableEIP1559,
  type TransactionSerializableEIP7702,
} from 'viem'
import { evmSignedExecution } from '../evmSignedExecution.ts'
import { anchorUnmined } from './outbox.ts'
import type { Fees, RelayedTransaction, SendResult } from './relayedTransaction.ts'
import type { RelayerContext, UnminedCall } from './relayerContext.ts'

export async function signRelayed(
  { account, chainId }: RelayerContext,
  tx: RelayedTransaction,
  fees: Fees,
  nonce: number,
): Promise<Omit<SendResult, 'accepted'> & { rawTransaction: Hex; call: UnminedCall | undefined }> {
  const transaction: TransactionSerializableEIP1559 = {
    chainId,
    type: 'eip1559',
    to: tx.to,
    data: tx.data,
    value: tx.value ?? 0n,
    gas: tx.gas,
    nonce,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  }
  // Every relayer account (local key, PKCS#11, KMS) serializes through the serializer it is given.
  // Account mode's first execute carries the sender's authorization: a type-4 transaction, viem's serializer.
  const authorized: TransactionSerializableEIP7702 | undefined = tx.authorizationList?.length
    ? { ...transaction, type: 'eip7702', authorizationList: tx.authorizationList.map((a) => ({ ...a })) }
    : undefined
  const signed = authorized
    ? await account.signTransaction(authorized, { serializer: serializeTransaction })
    : await account.signTransaction(transaction, { serializer: serializeRelayed })
  const sent = evmSignedExecution.from({ relayer: account.address, txNonce: nonce, rawTransaction: signed })
  // What a simulation replays of it while it may still be mined, from the fields just signed (a
  // type-4 transaction's is read back from its bytes when first replayed: outbox.ts).
  const call: UnminedCall | undefined = authorized
    ? undefined
    : {
        from: account.address,
        to: transaction.to!,
        data: transaction.data ?? '0x',
        value: numberToHex(transaction.value ?? 0n),
        gas: numberToHex(transaction.gas ?? 0n),
        nonce: numberToHex(nonce),
        maxFeePerGas: numberToHex(transaction.maxFeePerGas ?? 0n),
        maxPriorityFeePerGas: numberToHex(transaction.maxPriorityFeePerGas ?? 0n),
      }
  return { transaction: sent, transactionHash: sent.id as Hex, txNonce: nonce, rawTransaction: signed, call }
}

/**
 * The EIP-1559 transaction a relayer sends, RLP-encoded by hand: 0x02 ‖ rlp([chainId, nonce,
 * maxPriorityFeePerGas, maxFeePerGas, gas, to, value, data, accessList, yParity, r, s]). viem's
 * general serializer checks and walks every field for every transaction, twice per signature
 * (the digest, then the signed bytes): ~100 µs an execute on the event loop. The same bytes for
 * every transaction the gateway sends (always EIP-1559, never an access list); a property test
 * compares the two.
 */
export function serializeRelayed(tx: TransactionSerializable, signature?: Signature): Hex {
  if (tx.type !== 'eip1559' || tx.accessList?.length || tx.to === undefined || tx.to === null)
    throw new Error('serializeRelayed: a relayed transaction is EIP-1559, with a recipient and no access list')
  const fields =
    rlpInteger(BigInt(tx.chainId)) +
    rlpInteger(BigInt(tx.nonce ?? 0)) +
    rlpInteger(tx.maxPriorityFeePerGas ?? 0n) +
    rlpInteger(tx.maxFeePerGas ?? 0n) +
    rlpInteger(tx.gas ?? 0n) +
    rlpBytes(tx.to.slice(2).toLowerCase()) +
    rlpInteger(tx.value ?? 0n) +
    rlpBytes((tx.data ?? '0x').slice(2).toLowerCase()) +
    // The empty access list.
    'c0' +
    (signature
      ? rlpInteger(BigInt(signature.yParity ?? Number(signature.v! - 27n))) +
        rlpInteger(BigInt(signature.r)) +
        rlpInteger(BigInt(signature.s))
      : '')
  return `0x02${rlpLength(fields.length / 2, 0xc0)}${fields}`
}

/** An integer as RLP: big-endian without leading zeros, zero as the empty string. */
function rlpInteger(n: bigint): string {
  if (n < 0n) throw new Error('serializeRelayed: a negative integer')
  if (n === 0n) return '80'
  const digits = n.toString(16)
  return rlpBytes(digits.length % 2 ? `0${digits}` : digits)
}

/** A byte string (as hex digits, even length) as RLP. */
function rlpBytes(hex: string): string {
  if (hex.length === 2 && Number.parseInt(hex, 16) < 0x80) return hex
  return rlpLength(hex.length / 2, 0x80) + hex
}

/** The RLP prefix of a string (0x80) or a list (0xc0) of this many bytes. */
function rlpLength(length: number, offset: number): string {
  if (length <= 55) return (offset + length).toString(16)
  let digits = length.toString(16)
  if (digits.length % 2) digits = `0${digits}`
  return (offset + 55 + digits.length / 2).toString(16) + digits
}

/**
 * Above the node's count, the journal's unsettled transactions, and those signed here and not
 * broadcast yet (perhaps not journaled yet either). Under the lock. The node's mined count, read
 * with it, tells whether every transaction of the key it may still mine is one this instance
 * holds the bytes of (outbox.ts, anchorUnmined).
 */
export async function readNonce(ctx: RelayerContext): Promise<number> {
  const { client, account, nonceFloor, refused, outbox } = ctx
  const [pending, latest] = await Promise.all([
    client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
    client.getTransactionCount({ address: account.address, blockTag: 'latest' }).catch(() => undefined),
  ])
  const nonce = Math.max(pending, (await nonceFloor?.(refused)) ?? 0, ...outbox.map((s) => s.nonce + 1))
  // Signed here above it (in flight to the node, or handed out before a re-read): kept, not forgotten.
  if (latest === undefined) ctx.unminedKnown = false
  else anchorUnmined(ctx, latest, Math.max(nonce, ctx.nextNonce ?? 0))
  return nonce
}
