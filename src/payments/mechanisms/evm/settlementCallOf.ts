// The transaction an EIP-3009 settlement is: the payer's signed authorization as a call to the
// token, whoever sends it (the route's simulation, and the re-check sending it again after a reorg).
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddress,
  isHex,
  parseErc6492Signature,
  parseSignature,
  zeroAddress,
} from 'viem'
import type { PrecedingTransaction } from '../../../ports/chainAdapter.ts'

/**
 * The call the exact EVM scheme's settlement sends (x402's executeTransferWithAuthorization):
 * `transferWithAuthorization` on the asset, with (v, r, s) for a 65-byte signature, else the bytes
 * variant. Sent from the in-process facilitator's account; a remote facilitator's is not known, and
 * the payment's recipient stands in (EIP-3009's transfer does not depend on who sends it).
 * Undefined for an EIP-6492 signature that deploys the payer's wallet
 * first (the settlement is then two transactions).
 */
export function settlementCallOf(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  facilitatorAddress: Address | undefined,
): PrecedingTransaction | undefined {
  const { authorization: a, signature } = payload.payload as {
    authorization?: Record<string, string>
    signature?: unknown
  }
  if (
    !a ||
    typeof signature !== 'string' ||
    !isHex(signature) ||
    !isAddress(requirements.asset) ||
    !isAddress(requirements.payTo)
  )
    return undefined
  const parsed = parseErc6492Signature(signature)
  if (parsed.address !== undefined && parsed.address !== zeroAddress) return undefined
  const args = [
    getAddress(a.from!),
    getAddress(a.to!),
    BigInt(a.value!),
    BigInt(a.validAfter!),
    BigInt(a.validBefore!),
    a.nonce as Hex,
  ] as const
  const inner = parsed.signature
  let data: Hex
  if (inner.length === 132) {
    const { r, s, v, yParity } = parseSignature(inner)
    data = encodeFunctionData({
      abi: eip3009Abi,
      functionName: 'transferWithAuthorization',
      args: [...args, Number(v ?? BigInt(yParity)), r, s],
    })
  } else {
    data = encodeFunctionData({ abi: eip3009Abi, functionName: 'transferWithAuthorization', args: [...args, inner] })
  }
  return { from: facilitatorAddress ?? getAddress(requirements.payTo), to: getAddress(requirements.asset), data }
}

const authorizationInputs = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const
const eip3009Abi = [
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      ...authorizationInputs,
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [...authorizationInputs, { name: 'signature', type: 'bytes' }],
    outputs: [],
  },
] as const
