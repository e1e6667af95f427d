// Turns an intent as a caller writes it into the wire body, checking what can be checked without a
// chain: numbers are non-negative integers, hex fields are hex, a batch has 1 to 16 calls and
// runs in account mode, an authorization has its six fields. Anything else is the gateway's to judge.
import type { Hex } from 'viem'
import { GatewayClientError } from './gatewayClientError.ts'
import type {
  AnyIntentBody,
  AnyIntentInput,
  AuthorizationInput,
  BatchIntentBody,
  BatchIntentInput,
  CallBody,
  IntentAuthorization,
  IntentBody,
  IntentInput,
} from './intentInput.ts'

const fields = new Set([
  'sender',
  'target',
  'data',
  'value',
  'calls',
  'nonce',
  'validAfter',
  'validBefore',
  'policyId',
  'accounts',
  'chainType',
  'mode',
  'authorization',
  'signature',
])

/** The most calls a batch may carry (the contract's and the gateway's limit). */
export const maxBatchCalls = 16

export function toIntentBody(input: IntentInput): IntentBody
export function toIntentBody(input: BatchIntentInput): BatchIntentBody
export function toIntentBody(input: AnyIntentInput): AnyIntentBody
export function toIntentBody(input: AnyIntentInput): AnyIntentBody {
  if (typeof input !== 'object' || input === null) throw invalid('intent', 'must be an object')
  const unknown = Object.keys(input).filter(
    (k) => !fields.has(k) && (input as Record<string, unknown>)[k] !== undefined,
  )
  if (unknown.length > 0) throw invalid(unknown[0]!, `is not a field of an intent (fields: ${[...fields].join(', ')})`)
  const common = {
    sender: text(input.sender, 'sender'),
    nonce: decimal(input.nonce, 'nonce'),
    validAfter: decimal(input.validAfter ?? 0n, 'validAfter'),
    validBefore: decimal(input.validBefore ?? 0n, 'validBefore'),
    policyId: hex(input.policyId, 'policyId', "the policy's id, 0x hex"),
  }
  let body: AnyIntentBody
  if (input.calls !== undefined) {
    for (const field of ['target', 'data', 'value'] as const) {
      if (input[field] !== undefined)
        throw invalid(field, 'must be left out of a batch: each call of `calls` has its own target, data and value')
    }
    if (input.mode !== 'account')
      throw invalid('mode', 'must be "account" for a batch (`calls` run from the sender\'s own account only)')
    body = { sender: common.sender, calls: calls(input.calls), ...rest(common) } satisfies BatchIntentBody
  } else {
    body = {
      sender: common.sender,
      target: text(input.target, 'target'),
      data: hex(input.data ?? '0x', 'data'),
      value: decimal(input.value ?? 0n, 'value'),
      ...rest(common),
    } satisfies IntentBody
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
  if (input.mode !== undefined) {
    if (input.mode !== 'executor' && input.mode !== 'account') throw invalid('mode', 'must be "executor" or "account"')
    body.mode = input.mode
  }
  if (input.authorization !== undefined) {
    if (body.mode !== 'account') throw invalid('authorization', 'is taken in account mode only: set mode to "account"')
    body.authorization = authorization(input.authorization)
  }
  if (input.signature !== undefined) body.signature = hex(input.signature, 'signature')
  return body
}

/** The fields after the call(s), in the order the intent lists them. */
function rest(common: { nonce: string; validAfter: string; validBefore: string; policyId: Hex }) {
  return {
    nonce: common.nonce,
    validAfter: common.validAfter,
    validBefore: common.validBefore,
    policyId: common.policyId,
  }
}

function calls(value: unknown): CallBody[] {
  if (!Array.isArray(value)) throw invalid('calls', 'must be a list of { target, data, value }')
  if (value.length === 0 || value.length > maxBatchCalls)
    throw invalid('calls', `must hold 1 to ${maxBatchCalls} calls (it holds ${value.length})`)
  return value.map((call, i) => {
    const field = `calls[${i}]`
    if (typeof call !== 'object' || call === null || Array.isArray(call))
      throw invalid(field, 'must be { target, data, value }')
    const extra = Object.keys(call).find((k) => !['target', 'data', 'value'].includes(k))
    if (extra !== undefined)
      throw invalid(`${field}.${extra}`, 'is not a field of a call (fields: target, data, value)')
    return {
      target: text(call.target, `${field}.target`),
      data: hex(call.data ?? '0x', `${field}.data`),
      value: decimal(call.value ?? 0n, `${field}.value`),
    }
  })
}

function authorization(a: AuthorizationInput): IntentAuthorization {
  const field = 'authorization'
  if (typeof a !== 'object' || a === null)
    throw invalid(field, 'must be { chainId, address, nonce, yParity, r, s } (viem signAuthorization)')
  const int = (v: unknown, name: string) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      throw invalid(`${field}.${name}`, 'must be a non-negative integer (a JSON number)')
    return v
  }
  // viem's signature carries v (27/28) beside yParity on some paths: yParity wins, v fills in.
  const yParity = a.yParity ?? (a.v === undefined ? undefined : Number(a.v) - 27)
  if (yParity !== 0 && yParity !== 1) throw invalid(`${field}.yParity`, 'must be 0 or 1')
  const word = (v: unknown, name: string) => {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(v))
      throw invalid(`${field}.${name}`, 'must be 0x followed by up to 64 hex digits')
    return `0x${v.slice(2).padStart(64, '0')}` as Hex
  }
  if (typeof a.address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(a.address))
    throw invalid(`${field}.address`, "must be this chain's account delegate: 0x followed by 40 hex digits")
  return {
    chainId: int(a.chainId, 'chainId'),
    address: a.address,
    nonce: int(a.nonce, 'nonce'),
    yParity,
    r: word(a.r, 'r'),
    s: word(a.s, 's'),
  }
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
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value))
    throw invalid(field, 'must be 0x followed by an even number of hex digits')
  return value as Hex
}

function decimal(value: unknown, field: string): string {
  if (typeof value === 'bigint') {
    if (value < 0n) throw invalid(field, 'must not be negative')
    return value.toString()
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0)
      throw invalid(field, 'must be a non-negative integer (use a bigint or a decimal string above 2^53)')
    return value.toString()
  }
  if (typeof value === 'string' && /^(0|[1-9][0-9]*)$/.test(value)) return value
  throw invalid(
    field,
    value === undefined
      ? 'is required: a decimal string'
      : 'must be a decimal string of a non-negative integer (no sign, no leading zeros)',
  )
}
