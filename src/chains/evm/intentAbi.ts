// The Intent tuple as an ABI parameter, taken from the compiled validator so the gateway and the
// contracts cannot drift apart.
import type { Hex } from 'viem'
import { intentValidatorArtifact } from '../../contracts/intentValidatorArtifact.ts'

const canExecute = intentValidatorArtifact.abi.find((item) => item.type === 'function' && item.name === 'canExecute')
if (canExecute?.type !== 'function') throw new Error('canExecute missing from the validator ABI')

export const intentAbiParameter = canExecute.inputs[0]

const zeros = '0'.repeat(64)
const word = (hex: string) => zeros.slice(hex.length) + hex
const signedHead = word('40')

/**
 * abi.encode(intent, signature), the arguments of checkSigned and executeSigned, written out from
 * `encodedIntent` (evmRuntime's encodeIntent: the tuple's offset word, then the tuple): the two
 * offsets, the tuple, then the signature's length and padded bytes. viem's general encoder cost
 * ~50 µs a call and runs twice per execute (the check, then the transaction's calldata); a
 * property test compares the two.
 */
export function encodeSignedIntent(encodedIntent: Hex, signature: Hex): Hex {
  const tuple = encodedIntent.slice(2 + 64)
  const bytes = signature.slice(2).toLowerCase()
  return `0x${signedHead}${word((64 + tuple.length / 2).toString(16))}${tuple}${word((bytes.length / 2).toString(16))}${bytes}${zeros.slice(0, (64 - (bytes.length % 64)) % 64)}`
}
