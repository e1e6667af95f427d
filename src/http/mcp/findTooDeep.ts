// Finds the first value of a tool call (an argument, a `_meta` entry) nested deeper than the
// gateway ever reads: what JSON.stringify, the payment header's encoder and the routes' own
// parsing would otherwise hit as a stack overflow. Walks with its own stack, never recursion.
import type { FieldError } from '../../errors/inputError.ts'

/** Deeper than any intent (4: intent, accounts, an account meta) or x402 PaymentPayload (~5). */
const maxToolValueDepth = 32

/** `values` by the name to report (an argument, `_meta.x402/payment`): the first one too deep, named. */
export function findTooDeep(values: Record<string, unknown>, maxDepth = maxToolValueDepth): FieldError | undefined {
  for (const [field, value] of Object.entries(values)) {
    const pending: Array<[unknown, number]> = [[value, 1]]
    while (pending.length > 0) {
      const [next, depth] = pending.pop()!
      if (typeof next !== 'object' || next === null) continue
      if (depth > maxDepth) return { field, message: `is nested more than ${maxDepth} levels deep` }
      for (const child of Object.values(next))
        if (typeof child === 'object' && child !== null) pending.push([child, depth + 1])
    }
  }
  return undefined
}
