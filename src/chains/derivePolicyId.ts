// Policy ids as the reference PolicyRegistry derives them: keccak256(abi.encode(owner, salt)), so
// an id names one owner's policy for good and nobody else can register it.
import { type Address, encodeAbiParameters, type Hex, keccak256, stringToHex } from 'viem'

export function derivePolicyId(owner: Address, salt: Hex): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [owner, salt]))
}

/** A readable salt: keccak256 of a name such as "demo.open". */
export function saltOf(name: string): Hex {
  return keccak256(stringToHex(name))
}
