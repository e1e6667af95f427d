// What the API's documentation shows in the runtimes' own terms (the OpenAPI document, the MCP
// tools, x402 discovery): the X-Chain-Id descriptions naming each runtime's example chain id, and
// the worked requests and answers of the first runtime that has them. Built once by buildApp from
// the runtimes the composition root hands in (config/runtimeModule.ts' RuntimeExamples), so that
// the shared schemas (httpSchemas.ts) name no chain family.
import type { DevnetExamples, RuntimeModule } from '../../config/runtimeModule.ts'
import { parseChainId } from '../../ports/chainId.ts'
import { statusCodes } from '../../status/statusCodes.ts'
import { commonResponseHeaders } from './httpSchemas.ts'

/** A runtime as the documentation reads it. */
export type DocumentedRuntime = Pick<RuntimeModule, 'chainType' | 'name' | 'examples'>

export type ApiDocs = {
  /** The X-Chain-Id request header as the document and the MCP tools describe it. */
  chainIdHeader: { type: 'string'; description: string; examples?: string[] }
  /** The X-Chain-Id answer header, its description naming an example chain. */
  chainIdAnswerHeader: { type: 'string'; description: string }
  /** The headers every answer carries, X-Chain-Id as above. */
  responseHeaders: Record<keyof typeof commonResponseHeaders, object>
  /** Answers by operationId, then by HTTP status (validate and execute). */
  responseExamples: Record<string, Record<number, unknown[]>>
  /** What a route's x402 discovery and its MCP tool show: the request body, the answer. */
  intentExamples: { validate: unknown; execute: unknown; answer: unknown }
  /** Request bodies by operationId, path parameters by name: "Try it out" on /docs sends them. */
  requestExamples: { bodies: Record<string, unknown>; params: Record<string, string> }
}

export function createApiDocs(runtimes: readonly DocumentedRuntime[]): ApiDocs {
  const shown = runtimes.find((r) => r.examples.devnet)
  const devnet = shown?.examples.devnet
  // The decimal form is one runtime's (ports/chainId.ts): its example's reference shows it.
  const decimal = parseChainId('1')
  const decimalRuntime =
    typeof decimal === 'string' ? undefined : runtimes.find((r) => r.chainType === decimal.chainType)
  const decimalExample = decimalRuntime && parseChainId(decimalRuntime.examples.chainId)
  const forms = [
    ...(decimalRuntime && typeof decimalExample === 'object'
      ? [`an ${decimalRuntime.name} chain id in decimal (${decimalExample.reference})`]
      : []),
    `a CAIP-2 id (${runtimes.map((r) => r.examples.chainId).join(', ')})`,
  ]
  const chainIdHeader = {
    type: 'string' as const,
    description: `the chain: ${forms.join(' or ')}. Absent: DEFAULT_CHAIN_ID, else the only configured chain. Not served: 421 (0xA2).`,
    ...(devnet ? { examples: [devnet.chainId] } : {}),
  }
  const named = shown ?? runtimes[0]
  const { 'X-Chain-Id': chainIdAnswer } = commonResponseHeaders
  const chainIdAnswerHeader = {
    ...chainIdAnswer,
    description: `the CAIP-2 id of the chain${named ? ` (${named.examples.chainId})` : ''}, or the requested value when no chain could be chosen`,
  }
  const responseHeaders = { ...commonResponseHeaders, 'X-Chain-Id': chainIdAnswerHeader }
  const answers = shown && devnet ? workedAnswers(shown.chainType, shown.examples.chainId, devnet) : {}
  const mcp = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
  return {
    chainIdHeader,
    chainIdAnswerHeader,
    responseHeaders,
    responseExamples: { validateIntent: answers, executeIntent: answers },
    intentExamples: { validate: devnet?.intent, execute: devnet?.signedIntent, answer: answers[200]?.[0] },
    requestExamples: devnet
      ? {
          bodies: { validateIntent: devnet.intent, executeIntent: devnet.signedIntent, mcp },
          params: { intentHash: devnet.signedIntentHash, chainId: devnet.chainId },
        }
      : { bodies: { mcp }, params: {} },
  }
}

const outcome = (code: number) => ({
  erc1066Status: statusCodes[code]!.hex,
  statusName: statusCodes[code]!.statusName,
  description: statusCodes[code]!.description,
})
const problemType = (code: number) =>
  `urn:intent-gateway:problem:${statusCodes[code]!.statusName.toLowerCase().replace(/_/g, '-')}`

/** Answers of validate and execute by HTTP status, in the shown runtime's terms. */
function workedAnswers(chainType: string, priceChainId: string, devnet: DevnetExamples): Record<number, unknown[]> {
  const { intentHash, chainId } = devnet
  const { scheme, ...terms } = devnet.price
  const ok = { status: '0x01', ...outcome(0x01), intentHash, chainType, chainId }
  const problem = (code: number, httpStatus: number, detail: string) => ({
    type: problemType(code),
    title: statusCodes[code]!.description,
    status: httpStatus,
    detail,
    ...outcome(code),
    intentHash,
    chainType,
    chainId,
  })
  return {
    200: [ok],
    202: [{ ...ok, status: '0xF3', ...outcome(0xf3), state: 'pending', transactionHash: devnet.transactionHash }],
    400: [
      {
        type: problemType(0xa0),
        title: 'The intent is not valid',
        status: 400,
        detail: 'validBfore: is not a known field (the fields are: sender, target, …)',
        ...outcome(0xa0),
        intentHash,
        chainType,
        chainId,
        errors: [{ field: 'validBfore', message: 'is not a known field (the fields are: sender, target, …)' }],
      },
    ],
    401: [
      // No signature: what the sender signs, sent back as `signature`.
      {
        ...problem(
          0xe5,
          401,
          "the executor runs a relayed intent only with its sender's signature: sign the typed data in `signing` and send it as `signature`",
        ),
        signing: devnet.signing,
      },
      // An API key missing (WWW-Authenticate: Bearer realm="intent-gateway").
      { ...problem(0xe4, 401, 'send it as Authorization: Bearer <key>'), title: 'An API key is required' },
    ],
    402: [
      // The chain's 0x54: the sender's deposit or policy cap is short; no x402 payment can fix it.
      {
        ...problem(0x54, 402, "the sender's deposit at the executor does not cover the intent's value"),
        paymentRequired: {
          x402Version: 2,
          error: "the sender's deposit at the executor does not cover the intent's value",
          resource: {
            url: '/intents/execute',
            description: `POST /intents/execute for intent ${intentHash}`,
            mimeType: 'application/json',
          },
          accepts: [],
          extensions: devnet.fundingExtensions,
        },
      },
      // The gateway's price (0x55, funds requested): pay one of `accepts` and repeat the request with PAYMENT-SIGNATURE.
      {
        ...problem(
          0x55,
          402,
          'this gateway charges for executions: pay one of `accepts` and repeat the request with PAYMENT-SIGNATURE',
        ),
        paymentRequired: {
          x402Version: 2,
          error: 'PAYMENT-SIGNATURE header is required',
          resource: {
            url: 'https://gateway.example/intents/execute',
            description: `Execute one intent on ${priceChainId}`,
            mimeType: 'application/json',
          },
          accepts: [{ scheme, network: priceChainId, ...terms }],
        },
      },
    ],
  }
}
