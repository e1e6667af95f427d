// The intent of a CLI call: a JSON file (or - for stdin) given by --intent, then any field flag.
import { readFileSync } from 'node:fs'
import type { AnyIntentInput } from '../intentInput.ts'
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
  mode: { type: 'string' },
  calls: { type: 'string' },
  authorization: { type: 'string' },
  signature: { type: 'string' },
} as const

const fieldOf: Record<string, keyof AnyIntentInput> = {
  sender: 'sender',
  target: 'target',
  data: 'data',
  value: 'value',
  nonce: 'nonce',
  'valid-after': 'validAfter',
  'valid-before': 'validBefore',
  'policy-id': 'policyId',
  mode: 'mode',
  signature: 'signature',
}

/** The flag that sets each field of the intent. */
export const flagOf: Record<string, string> = Object.fromEntries([
  ...Object.entries(fieldOf).map(([flag, field]) => [field, `--${flag}`]),
  ['accounts', '--accounts'],
  ['calls', '--calls'],
  ['authorization', '--authorization'],
])

export function readIntent(values: Record<string, unknown>, stdin: () => string): AnyIntentInput {
  let intent: Record<string, unknown> = {}
  if (typeof values.intent === 'string') {
    const source = values.intent
    let text: string
    try {
      text = source === '-' ? stdin() : readFileSync(source, 'utf8')
    } catch (err) {
      throw new UsageError(
        `cannot read the intent file ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      )
    }
    try {
      intent = JSON.parse(text)
    } catch (err) {
      throw new UsageError(`the intent file ${source} is not JSON: ${(err as Error).message}`)
    }
    if (typeof intent !== 'object' || intent === null || Array.isArray(intent))
      throw new UsageError(`the intent file ${source} must hold one JSON object`)
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
  if (typeof values.calls === 'string') {
    const calls = jsonOrFile(
      values.calls,
      '--calls',
      'a JSON list of { "target", "data", "value" }, or a file holding one',
      stdin,
    )
    if (!Array.isArray(calls))
      throw new UsageError(
        '--calls must be a JSON list of { "target", "data", "value" } (1 to 16 calls), or a file holding one',
      )
    intent.calls = calls
    // A batch has no target/data/value of its own: those of --intent's file give way to --calls.
    for (const field of ['target', 'data', 'value']) if (typeof values[field] !== 'string') delete intent[field]
  }
  if (typeof values.authorization === 'string') {
    const authorization = jsonOrFile(
      values.authorization,
      '--authorization',
      'a JSON object { "chainId", "address", "nonce", "yParity", "r", "s" }, or a file holding one',
      stdin,
    )
    if (typeof authorization !== 'object' || authorization === null || Array.isArray(authorization)) {
      throw new UsageError(
        '--authorization must be a JSON object { "chainId", "address", "nonce", "yParity", "r", "s" }, or a file holding one',
      )
    }
    intent.authorization = authorization
  }
  if (Object.keys(intent).length === 0)
    throw new UsageError(
      'no intent given: use --intent <file.json> (or - for stdin) and/or --sender, --target, --data, --value, --nonce, --policy-id ...',
    )
  return intent as AnyIntentInput
}

/** A flag's JSON: inline when it starts as JSON does, else a file (- for stdin). */
function jsonOrFile(value: string, flag: string, what: string, stdin: () => string): unknown {
  const inline = /^\s*[[{]/.test(value)
  let text = value
  if (!inline) {
    try {
      text = value === '-' ? stdin() : readFileSync(value, 'utf8')
    } catch (err) {
      throw new UsageError(
        `${flag} ${value}: not JSON, and no file can be read there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give ${what}`,
      )
    }
  }
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new UsageError(`${flag}${inline ? '' : ` ${value}`} is not JSON (${(err as Error).message}); give ${what}`)
  }
}
