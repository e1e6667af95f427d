// Turns a schema-checked intent body into a domain Intent: range checks that JSON Schema cannot
// express, and the runtime's own address and range rules.
import type { Hex } from 'viem'
import { type FieldError, InputError } from '../errors/inputError.ts'
import type { ChainRuntime } from '../ports/chainRuntime.ts'
import type { Intent, IntentBody, IntentCall } from '../ports/intent.ts'

const maxUint256 = 2n ** 256n - 1n

export function parseIntent(body: IntentBody, runtime: Pick<ChainRuntime, 'checkAddress' | 'checkIntent'>): Intent {
  const errors: FieldError[] = []
  const address = (field: string, value: string) => {
    const problem = runtime.checkAddress(value)
    if (problem) errors.push({ field, message: problem })
    return value
  }
  const uint = (field: string, raw: string | undefined) => {
    const n = BigInt(raw ?? '0')
    if (n > maxUint256) errors.push({ field, message: 'must be below 2^256' })
    return n
  }
  const calls = body.calls ? parseCalls(body, address, uint, errors) : undefined
  if (!calls) {
    for (const field of ['target', 'data', 'value'] as const) {
      if (body[field] === undefined)
        errors.push({
          field,
          message: 'is required (or `calls`, a batch in account mode, instead of target, data and value)',
        })
    }
    if (errors.length > 0) throw new InputError('The intent is not valid', { errors })
  }
  const intent: Intent = {
    sender: address('sender', body.sender),
    // A batch's single-call fields summarize it: its first target, no data, its summed value (ports/intent.ts).
    target: calls ? calls[0]!.target : address('target', body.target!),
    data: calls ? '0x' : (body.data!.toLowerCase() as Hex),
    value: calls ? calls.reduce((sum, c) => sum + c.value, 0n) : uint('value', body.value),
    nonce: uint('nonce', body.nonce),
    validAfter: uint('validAfter', body.validAfter),
    validBefore: uint('validBefore', body.validBefore),
    policyId: body.policyId.toLowerCase() as Hex,
  }
  if (calls) intent.calls = calls
  if (body.accounts && body.accounts.length > 0) {
    intent.accounts = body.accounts.map((meta, i) => ({
      address: address(`accounts[${i}].address`, meta.address),
      signer: meta.signer,
      writable: meta.writable,
    }))
  }
  // The runtime's ranges only mean something for numbers that are numbers at all.
  if (errors.length === 0) errors.push(...runtime.checkIntent(intent))
  if (errors.length > 0) throw new InputError('The intent is not valid', { errors })
  return intent
}

/** A batch's calls; target, data and value beside them are refused (one intent has one shape). */
function parseCalls(
  body: IntentBody,
  address: (field: string, value: string) => string,
  uint: (field: string, raw: string | undefined) => bigint,
  errors: FieldError[],
): IntentCall[] {
  for (const field of ['target', 'data', 'value'] as const) {
    if (body[field] !== undefined)
      errors.push({
        field,
        message: "is not sent with `calls`: a batch names each call's target, data and value in `calls`",
      })
  }
  return body.calls!.map((call, i) => ({
    target: address(`calls[${i}].target`, call.target),
    value: uint(`calls[${i}].value`, call.value),
    data: call.data.toLowerCase() as Hex,
  }))
}
