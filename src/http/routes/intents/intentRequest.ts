// What validate and execute share: choose the chain, parse and hash the intent, and answer an
// unserved chain with 421 before anything reaches a node.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ChainAdapter } from '../../../ports/chainAdapter.ts'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import type { ChainRuntime } from '../../../ports/chainRuntime.ts'
import { InputError } from '../../../errors/inputError.ts'
import type { Intent, IntentBody } from '../../../ports/intent.ts'
import { parseIntent } from '../../../intents/parseIntent.ts'
import { Status } from '../../../status/statusCodes.ts'
import { sendOutcome } from '../../sendOutcome.ts'
import type { Hex } from 'viem'
import { keccak256 } from '../../../crypto/keccak256.ts'

export type IntentRequest = { adapter: ChainAdapter; intent: Intent; intentHash: Hex; signature: Hex | undefined }

type ParsedIntent = { intent: Intent; intentHash: Hex }

/** Each request's intent, parsed and hashed once even when pricing reads it before the route does. */
const parsedIntents = new WeakMap<FastifyRequest, ParsedIntent>()

/** Parses and hashes the request's intent for its chain's runtime (throws InputError when it does not parse). */
export function parseRequestIntent(request: FastifyRequest<{ Body: IntentBody }>, runtime: ChainRuntime): ParsedIntent {
  let parsed = parsedIntents.get(request)
  if (!parsed) {
    const intent = parseIntent(request.body, runtime)
    parsed = { intent, intentHash: runtime.hashIntent(intent) }
    parsedIntents.set(request, parsed)
  }
  return parsed
}

/** Returns the request's chain and intent, or undefined once it has answered the request itself. */
export function readIntentRequest(registry: ChainRegistry, request: FastifyRequest<{ Body: IntentBody }>, reply: FastifyReply): IntentRequest | undefined {
  const header = request.headers['x-chain-id']
  const selection = registry.select(Array.isArray(header) ? header[0] : header)
  const body = request.body

  if (!selection.configured) {
    // Hash the intent the way its runtime would when the runtime is known and the body fits it;
    // otherwise, as for any body that is not an intent, hash the raw bytes.
    let intentHash = keccak256(request.rawBody ?? new Uint8Array())
    if (selection.runtime) {
      try {
        intentHash = selection.runtime.hashIntent(parseIntent(body, selection.runtime))
      } catch {}
    }
    sendOutcome(request, reply, {
      status: Status.UNSUPPORTED_CHAIN,
      intentHash,
      chainId: selection.chainId,
      chainType: selection.chainType,
      detail: `chain ${selection.chainId} is not served by this gateway (configured: ${registry.adapters.map((a) => a.chainId).join(', ') || 'none'})`,
    })
    return undefined
  }

  request.gateway.chainId = selection.chainId
  request.gateway.chainType = selection.chainType
  if (body.chainType && body.chainType !== selection.chainType) {
    throw new InputError('The intent is not valid', {
      errors: [{ field: 'chainType', message: `is ${body.chainType} but chain ${selection.chainId} is ${selection.chainType}` }],
    })
  }
  const { intent, intentHash } = parseRequestIntent(request, selection.runtime)
  request.gateway.intentHash = intentHash
  return { adapter: selection.adapter, intent, intentHash, signature: body.signature?.toLowerCase() as Hex | undefined }
}
