// The Solana relayer's key as @solana/kit signs with it: a partial signer over an Ed25519Signer
// (a key in the process, a PKCS#11 token, KMS), which signs each transaction's message bytes.
import { type Address, getBase58Decoder, type SignatureBytes, type TransactionPartialSigner } from '@solana/kit'
import type { Ed25519Signer } from '../../signers/ed25519Signer.ts'

export function toSolanaSigner(signer: Ed25519Signer): TransactionPartialSigner {
  const address = getBase58Decoder().decode(signer.publicKey) as Address
  return Object.freeze({
    address,
    async signTransactions(transactions) {
      return Promise.all(
        transactions.map(async (transaction) =>
          Object.freeze({
            [address]: (await signer.sign(Uint8Array.from(transaction.messageBytes))) as SignatureBytes,
          }),
        ),
      )
    },
  } satisfies TransactionPartialSigner)
}
