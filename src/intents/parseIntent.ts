// Turns a schema-checked intent body into a domain Intent: range checks that JSON Schema cannot
// express, and the runtime's own address and range rules.
import type { Hex } from 'viem'
import type { ChainRuntime } from '../ports/chainRuntime.ts'
import { InputError, type FieldError } from '../errors/inputError.ts'
import type { Intent, IntentBody } from '../ports/intent.ts'

const maxUint256 = 2n ** 256n - 1n

export function parseIntent(body: IntentBody, runtime: Pick<ChainRuntime, 'checkAddress' | 'checkIntent'>): Intent {
  const errors: FieldError[] = []
  const address = (field: 'sender' | 'target') => {
    const problem = runtime.checkAddress(body[field])
    if (problem) errors.push({ field, message: problem })
    return body[field]
  }
  const uint = (field: 'value' | 'nonce' | 'validAfter' | 'validBefore') => {
    const raw = body[field] ?? '0'
    const n = BigInt(raw)
    if (n > maxUint256) errors.push({ field, message: 'must be below 2^256' })
    return n
  }
  const intent: Intent = {
    sender: address('sender'),
    target: address('target'),
    data: body.data.toLowerCase() as Hex,
    value: uint('value'),
    nonce: uint('nonce'),
    validAfter: uint('validAfter'),
    validBefore: uint('validBefore'),
    policyId: body.policyId.toLowerCase() as Hex,
  }
  if (body.accounts && body.accounts.length > 0) {
    intent.accounts = body.accounts.map((meta, i) => {
      const problem = runtime.checkAddress(meta.address)
      if (problem) errors.push({ field: `accounts[${i}].address`, message: problem })
      return { address: meta.address, signer: meta.signer, writable: meta.writable }
    })
  }
  // The runtime's ranges only mean something for numbers that are numbers at all.
  if (errors.length === 0) errors.push(...runtime.checkIntent(intent))
  if (errors.length > 0) throw new InputError('The intent is not valid', { errors })
  return intent
}
