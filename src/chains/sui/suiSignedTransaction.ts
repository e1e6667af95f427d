// The journal's bytes of a signed Sui transaction (base64 of this BCS): the transaction's bytes
// and the relayer's signature, what reconciliation broadcasts again.
import { bcs } from '@mysten/bcs'

export const suiSignedTransaction = bcs.struct('SuiSignedTransaction', {
  transaction: bcs.byteVector(),
  signature: bcs.byteVector(),
})
