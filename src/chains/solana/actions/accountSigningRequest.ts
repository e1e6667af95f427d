// What an agent signs in account mode: the transaction message the gateway issued for the intent
// (base64) and the block height its blockhash lives to, with vault mode's `scheme` and the intent
// hash. Before a message is issued (validate, or an execute refused before one was built), how to
// get one.
import type { SigningRequest } from '../../../ports/chainAdapter.ts'
import type { Intent } from '../../../ports/intent.ts'
import type { SolanaContext } from '../solanaContext.ts'

export function accountSigningRequest(ctx: SolanaContext, intent: Intent): SigningRequest {
  const intentHash = ctx.runtime.hashIntent(intent)
  const issued = ctx.issuedMessages.get(intentHash)
  const base = { scheme: 'ed25519', mode: 'account', intentHash, feePayer: ctx.relayer?.address }
  if (!issued) {
    return {
      ...base,
      instructions:
        'account mode: POST the intent to /intents/execute with `mode: "account"` and no signature; the 401 answer carries the transaction message to sign in `signing.message`',
    }
  }
  return {
    ...base,
    message: Buffer.from(issued.messageBytes).toString('base64'),
    encoding: 'base64',
    lastValidBlockHeight: issued.lastValidBlockHeight.toString(),
    instructions:
      'account mode: an Ed25519 signature by the sender of the bytes of `message` (a Solana transaction message whose fee payer is `feePayer`, the relayer), sent as `signature` (0x + 128 hex digits) with the same intent and `mode: "account"` before block height `lastValidBlockHeight`; the relayer co-signs only this message',
  }
}
