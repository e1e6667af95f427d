// The journal's bytes of a signed sponsored Sui transaction (base64 of this BCS): the
// transaction's bytes and its two signatures, the sender's (the agent) then the gas owner's (the
// relayer), what reconciliation broadcasts again. Told apart from suiSignedTransaction by the
// record's details (`mode: "account"`).
import { bcs } from '@mysten/bcs'

export const suiSponsoredTransaction = bcs.struct('SuiSponsoredTransaction', {
  transaction: bcs.byteVector(),
  signatures: bcs.vector(bcs.byteVector()),
})
