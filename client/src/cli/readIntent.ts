// The intent of a CLI call: a JSON file (or - for stdin) given by --intent, then any field flag.
import { readFileSync } from 'node:fs'
import type { IntentInput } from '../intentInput.ts'
import { UsageError } from './usageError.ts'

export const intentFlags = {
  intent: { type: 'string', short: 'i' },
  sender: { type: 'string' },
  target: { type: 'string' },
  data: { type: 'string' },
  value: { type: 'string' },
  nonce: { type: 'string' },
  'valid-after': { type: 'string' },
  'valid-before': { type: 'string' },
  'policy-id': { type: 'string' },
  accounts: { type: 'string' },
  signature: { type: 'string' },
} as const

const fieldOf: Record<string, keyof IntentInput> = {
  sender: 'sender',
  target: 'target',
  data: 'data',
  value: 'value',
  nonce: 'nonce',
  'valid-after': 'validAfter',
  'valid-before': 'validBefore',
  'policy-id': 'policyId',
  signature: 'signature',
}

/** The flag that sets each field of the intent. */
export const flagOf: Record<string, string> = Object.fromEntries([...Object.entries(fieldOf).map(([flag, field]) => [field, `--${flag}`]), ['accounts', '--accounts']])

export function readIntent(values: Record<string, unknown>, stdin: () => string): IntentInput {
  let intent: Record<string, unknown> = {}
  if (typeof values.intent === 'string') {
    const source = values.intent
    let text: string
    try {
      text = source === '-' ? stdin() : readFileSync(source, 'utf8')
    } catch (err) {
      throw new UsageError(`cannot read the intent file ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
    }
    try {
      intent = JSON.parse(text)
    } catch (err) {
      throw new UsageError(`the intent file ${source} is not JSON: ${(err as Error).message}`)
    }
    if (typeof intent !== 'object' || intent === null || Array.isArray(intent)) throw new UsageError(`the intent file ${source} must hold one JSON object`)
  }
  for (const [flag, field] of Object.entries(fieldOf)) {
    if (typeof values[flag] === 'string') intent[field] = values[flag]
  }
  if (typeof values.accounts === 'string') {
    try {
      intent.accounts = JSON.parse(values.accounts)
    } catch {
      throw new UsageError('--accounts must be a JSON list of { "address", "signer", "writable" }')
    }
  }
  if (Object.keys(intent).length === 0) throw new UsageError('no intent given: use --intent <file.json> (or - for stdin) and/or --sender, --target, --data, --value, --nonce, --policy-id ...')
  return intent as IntentInput
}
