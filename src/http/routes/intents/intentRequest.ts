// What validate and execute share: the request's chain, its parsed intent and its hash, resolved
// once per request (resolveIntentRequest, a preHandler: after the body's schema) and carried on the
// request, so that pricing, the early answers and the route all read the same resolution. An
// unserved chain is answered 421 before anything reaches a node.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Hex } from 'viem'
import { keccak256 } from '../../../crypto/keccak256.ts'
import { InputError } from '../../../errors/inputError.ts'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import { parseIntent } from '../../../intents/parseIntent.ts'
import type { ChainAdapter } from '../../../ports/chainAdapter.ts'
import type { ChainType } from '../../../ports/chainId.ts'
import type { AccountMode, Intent, IntentBody } from '../../../ports/intent.ts'
import { Status } from '../../../status/statusCodes.ts'
import { requestChain } from '../../requestChain.ts'
import { sendOutcome } from '../../sendOutcome.ts'

/** `account`: account mode (`mode: "account"`), with the sender's authorization when it brought one. */
export type IntentRequest = {
  adapter: ChainAdapter
  intent: Intent
  intentHash: Hex
  signature: Hex | undefined
  account?: AccountMode | undefined
}

/** A request's chain and intent as resolved once: ready, for a chain not served here (421), or not an intent (4xx). */
export type ResolvedIntent =
  | { kind: 'ready'; chainId: string; chainType: ChainType; req: IntentRequest }
  | { kind: 'unserved'; chainId: string; chainType: ChainType | undefined; intentHash: Hex; detail: string }
  | { kind: 'refused'; error: unknown }

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by resolveIntentRequest on the intent routes. */
    intentRequest: ResolvedIntent | undefined
  }
}

/** Resolves the request's chain and intent once; never throws (a refusal is kept and thrown by readIntentRequest). */
export function resolveIntentRequest(
  registry: ChainRegistry,
  request: FastifyRequest<{ Body: IntentBody }>,
): ResolvedIntent {
  if (request.intentRequest) return request.intentRequest
  let resolved: ResolvedIntent
  try {
    resolved = resolve(registry, request)
  } catch (error) {
    resolved = { kind: 'refused', error }
  }
  request.intentRequest = resolved
  return resolved
}

function resolve(registry: ChainRegistry, request: FastifyRequest<{ Body: IntentBody }>): ResolvedIntent {
  const selection = requestChain(registry, request)
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
    const detail = `chain ${selection.chainId} is not served by this gateway (configured: ${registry.adapters.map((a) => a.chainId).join(', ') || 'none'})`
    return { kind: 'unserved', chainId: selection.chainId, chainType: selection.chainType, intentHash, detail }
  }
  // The chain is known from here on, for the headers of whatever the answer is.
  request.gateway.chainId = selection.chainId
  request.gateway.chainType = selection.chainType
  if (body.chainType && body.chainType !== selection.chainType) {
    throw new InputError('The intent is not valid', {
      errors: [
        {
          field: 'chainType',
          message: `is ${body.chainType} but chain ${selection.chainId} is ${selection.chainType}`,
        },
      ],
    })
  }
  const intent = parseIntent(body, selection.runtime)
  const intentHash = selection.runtime.hashIntent(intent)
  request.gateway.intentHash = intentHash
  const req = {
    adapter: selection.adapter,
    intent,
    intentHash,
    signature: body.signature?.toLowerCase() as Hex | undefined,
    account: accountModeOf(body, selection.adapter),
  }
  return { kind: 'ready', chainId: selection.chainId, chainType: selection.chainType, req }
}

/** The request's chain and intent, or undefined once it has answered the request itself (421); throws a refusal (4xx). */
export function readIntentRequest(
  registry: ChainRegistry,
  request: FastifyRequest<{ Body: IntentBody }>,
  reply: FastifyReply,
): IntentRequest | undefined {
  const resolved = resolveIntentRequest(registry, request)
  switch (resolved.kind) {
    case 'ready':
      return resolved.req
    case 'refused':
      throw resolved.error
    case 'unserved':
      sendOutcome(request, reply, {
        status: Status.UNSUPPORTED_CHAIN,
        intentHash: resolved.intentHash,
        chainId: resolved.chainId,
        chainType: resolved.chainType,
        detail: resolved.detail,
      })
      return undefined
  }
}

/** Account mode as the body asks for it; an authorization without it, or a chain without a delegate, is refused naming the field. */
function accountModeOf(body: IntentBody, adapter: ChainAdapter): AccountMode | undefined {
  if (body.mode !== 'account') {
    const errors = [
      ...(body.authorization
        ? [
            {
              field: 'authorization',
              message: 'is sent only with `mode: "account"` (an EIP-7702 authorization to the account delegate)',
            },
          ]
        : []),
      // The executor calls its target as itself: a batch runs only from the sender's own account.
      ...(body.calls
        ? [
            {
              field: 'calls',
              message:
                'a batch runs only in account mode: send `mode: "account"` (EVM, the sender delegated to this chain\'s IntentAccount), or one call as target/data/value',
            },
            { field: 'mode', message: `is ${body.mode ?? 'absent (executor)'}; \`calls\` needs "account"` },
          ]
        : []),
    ]
    if (errors.length > 0) throw new InputError('The intent is not valid', { errors })
    return undefined
  }
  if (!adapter.accountMode) {
    throw new InputError('The intent is not valid', {
      errors: [
        {
          field: 'mode',
          // The runtime says why (Sui: no relayer key to sponsor it); else no account delegate configured.
          message:
            adapter.accountModeUnavailable ??
            `chain ${adapter.chainId} has no account delegate configured here (ACCOUNT_DELEGATE_ADDRESSES): only executor mode`,
        },
      ],
    })
  }
  const a = body.authorization
  return a
    ? {
        authorization: {
          chainId: a.chainId,
          address: a.address,
          nonce: a.nonce,
          yParity: a.yParity,
          r: a.r.toLowerCase() as Hex,
          s: a.s.toLowerCase() as Hex,
        },
      }
    : {}
}
