// Turns an IntentInput into the wire body, checking what can be checked without a chain: numbers
// are non-negative integers, hex fields are hex. Anything else is the gateway's to judge.
import type { Hex } from 'viem'
import { GatewayClientError } from './gatewayClientError.ts'
import type { IntentBody, IntentInput } from './intentInput.ts'

const fields = new Set(['sender', 'target', 'data', 'value', 'nonce', 'validAfter', 'validBefore', 'policyId', 'accounts', 'chainType', 'signature'])

export function toIntentBody(input: IntentInput): IntentBody {
  if (typeof input !== 'object' || input === null) throw invalid('intent', 'must be an object')
  const unknown = Object.keys(input).filter((k) => !fields.has(k))
  if (unknown.length > 0) throw invalid(unknown[0]!, `is not a field of an intent (fields: ${[...fields].join(', ')})`)
  const body: IntentBody = {
    sender: text(input.sender, 'sender'),
    target: text(input.target, 'target'),
    data: hex(input.data ?? '0x', 'data'),
    value: decimal(input.value ?? 0n, 'value'),
    nonce: decimal(input.nonce, 'nonce'),
    validAfter: decimal(input.validAfter ?? 0n, 'validAfter'),
    validBefore: decimal(input.validBefore ?? 0n, 'validBefore'),
    policyId: hex(input.policyId, 'policyId', "the policy's id, 0x hex"),
  }
  if (input.accounts !== undefined) {
    if (!Array.isArray(input.accounts)) throw invalid('accounts', 'must be a list of { address, signer, writable }')
    body.accounts = input.accounts.map((meta, i) => {
      if (typeof meta?.address !== 'string' || typeof meta.signer !== 'boolean' || typeof meta.writable !== 'boolean') {
        throw invalid(`accounts[${i}]`, 'must be { address: string, signer: boolean, writable: boolean }')
      }
      return { address: meta.address, signer: meta.signer, writable: meta.writable }
    })
  }
  if (input.chainType !== undefined) {
    if (!['evm', 'solana', 'sui'].includes(input.chainType)) throw invalid('chainType', 'must be evm, solana or sui')
    body.chainType = input.chainType
  }
  if (input.signature !== undefined) body.signature = hex(input.signature, 'signature')
  return body
}

function invalid(field: string, message: string) {
  return new GatewayClientError(`The intent's ${field} ${message}`, { code: 'INVALID_INTENT', field })
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalid(field, 'is required: an address of the chain')
  return value
}

function hex(value: unknown, field: string, required?: string): Hex {
  // Missing is not malformed: say which field to add, not what shape a value has.
  if (value === undefined && required !== undefined) throw invalid(field, `is required: ${required}`)
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value)) throw invalid(field, 'must be 0x followed by an even number of hex digits')
  return value as Hex
}

function decimal(value: unknown, field: string): string {
  if (typeof value === 'bigint') {
    if (value < 0n) throw invalid(field, 'must not be negative')
    return value.toString()
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw invalid(field, 'must be a non-negative integer (use a bigint or a decimal string above 2^53)')
    return value.toString()
  }
  if (typeof value === 'string' && /^(0|[1-9][0-9]*)$/.test(value)) return value
  throw invalid(field, value === undefined ? 'is required: a decimal string' : 'must be a decimal string of a non-negative integer (no sign, no leading zeros)')
}
