// A batch's abi.encode(BatchIntent): what its X-Intent-Hash covers (the account's IntentExecuted
// carries keccak256 of it) and, after a selector and beside the signature, the arguments of
// checkBatch and executeBatch. The tuple's ABI comes from the compiled IntentAccount, so the
// gateway and the contract cannot drift apart.
import { type Address, encodeAbiParameters, type Hex } from 'viem'
import { intentAccountArtifact } from '../../contracts/intentAccountArtifact.ts'
import type { Intent } from '../../ports/intent.ts'

const executeBatch = intentAccountArtifact.abi.find((item) => item.type === 'function' && item.name === 'executeBatch')
if (executeBatch?.type !== 'function') throw new Error('executeBatch missing from the IntentAccount ABI')

/** The BatchIntent tuple as an ABI parameter. */
export const batchIntentAbiParameter = executeBatch.inputs[0]

/** The batch as the ABI encoder and the EIP-712 signer take it. */
export function toBatchTuple(intent: Intent) {
  if (!intent.calls) throw new Error('not a batch: the intent has no calls')
  return {
    sender: intent.sender as Address,
    calls: intent.calls.map((c) => ({ target: c.target as Address, value: c.value, data: c.data })),
    nonce: intent.nonce,
    validAfter: intent.validAfter,
    validBefore: intent.validBefore,
    policyId: intent.policyId,
  }
}

export function encodeBatchIntent(intent: Intent): Hex {
  return encodeAbiParameters([batchIntentAbiParameter], [toBatchTuple(intent)])
}
