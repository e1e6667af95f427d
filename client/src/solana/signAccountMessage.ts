// Account mode on Solana (agent as signer, relayer as fee payer): the agent's signature of the
// transaction message a gateway's 401 0xE5 carries in `signing.message`. The agent signs a whole
// transaction with its own key, so the message is read before it is signed, and refused unless it
// is exactly what the intent asks: a v0 message with no address lookup tables, whose fee payer is
// not the agent, whose instructions are the compute budget program's and one execute_as_signer of
// the chain's program carrying the intent's canonical bytes, nothing else (a gateway that slipped
// in another instruction would otherwise spend the agent's authority).
import { base58, base64 } from '@scure/base'
import { bytesToHex } from 'viem'
import { GatewayClientError } from '../gatewayClientError.ts'
import type { IntentBody } from '../intentInput.ts'
import type { SolanaIntentSigner } from '../intentSigner.ts'
import { solanaIntentBytes } from './solanaIntentBytes.ts'

const computeBudgetProgram = 'ComputeBudget111111111111111111111111111111'
/** execute_as_signer's instruction tag (programs/solana/README.md). */
const executeAsSigner = 7

export async function signAccountMessage({
  message,
  intent,
  deployment,
  signer,
}: {
  /** `signing.message` as the gateway sent it (base64). */
  message: string
  intent: IntentBody
  /** The chain's program and config account (GET /chains/{chainId}: `contracts.executor`, `contracts.registry`). */
  deployment: { programId: string; config: string }
  signer: SolanaIntentSigner
}): Promise<`0x${string}`> {
  if (signer.address !== intent.sender)
    refuse(`the signer ${signer.address} is not the intent's sender ${intent.sender}`)
  let bytes: Uint8Array
  try {
    bytes = base64.decode(message)
  } catch {
    refuse('it is not base64')
  }
  const parsed = parseMessage(bytes!)
  if (parsed.keys[0] === signer.address) refuse('its fee payer is the agent: the relayer pays the fee in account mode')
  const expected = Uint8Array.of(executeAsSigner, ...solanaIntentBytes(intent, deployment))
  let executes = 0
  for (const ix of parsed.instructions) {
    const program = parsed.keys[ix.program]
    if (program === computeBudgetProgram) continue
    if (program === deployment.programId && equal(ix.data, expected)) {
      executes++
      continue
    }
    refuse(`it holds an instruction of program ${program} that is not the intent's execute_as_signer`)
  }
  if (executes !== 1) refuse(`it holds ${executes} execute_as_signer instructions of the intent, not one`)
  return bytesToHex(await signer.signMessage(bytes!))
}

type ParsedMessage = { keys: string[]; instructions: { program: number; data: Uint8Array }[] }

/** A v0 transaction message: prefix 0x80, header, keys, blockhash, instructions, lookups (none allowed). */
function parseMessage(m: Uint8Array): ParsedMessage {
  let at = 0
  const take = (n: number) => {
    if (at + n > m.length) refuse('it ends early')
    const out = m.subarray(at, at + n)
    at += n
    return out
  }
  const compact = () => {
    let value = 0
    for (let shift = 0; shift < 21; shift += 7) {
      const b = take(1)[0]!
      value |= (b & 0x7f) << shift
      if (!(b & 0x80)) return value
    }
    return refuse('a length is malformed')
  }
  if (take(1)[0] !== 0x80) refuse('it is not a v0 transaction message')
  take(3)
  const keys = Array.from({ length: compact() }, () => base58.encode(take(32)))
  take(32)
  const instructions = Array.from({ length: compact() }, () => {
    const program = take(1)[0]!
    take(compact())
    return { program, data: Uint8Array.from(take(compact())) }
  })
  if (compact() !== 0) refuse('it uses address lookup tables')
  if (at !== m.length) refuse('it has trailing bytes')
  for (const ix of instructions)
    if (ix.program >= keys.length) refuse('an instruction names an account it does not list')
  return { keys, instructions }
}

function equal(a: Uint8Array, b: Uint8Array) {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

function refuse(why: string): never {
  throw new GatewayClientError(`Refusing to sign the account-mode transaction message: ${why}`, {
    code: 'INVALID_ARGUMENT',
    field: 'signing.message',
  })
}
