// GET /accounts/{address}: whether an account is delegated to this chain's account delegate
// (EIP-7702) and the nonce its authorization must carry, so that an agent knows before its first
// account-mode execute whether to send an authorization. Public, as validate is: it reads what
// anyone can read from the chain. X-Chain-Id chooses the chain as on the intent routes.
import type { FastifyInstance } from 'fastify'
import { keccak256 } from '../../../crypto/keccak256.ts'
import { InputError } from '../../../errors/inputError.ts'
import type { ChainRegistry } from '../../../intents/createChainRegistry.ts'
import { Status } from '../../../status/statusCodes.ts'
import { requestChain } from '../../requestChain.ts'
import { chainHeaderSchema, jsonResponse, outcomeResponses } from '../../schemas/httpSchemas.ts'
import { sendOutcome } from '../../sendOutcome.ts'

const address = {
  type: 'string',
  description: 'an EVM address: 0x + 40 hex digits (mixed case must be a valid EIP-55 checksum)',
} as const

const accountSchema = {
  type: 'object',
  required: ['address', 'chainId', 'accountDelegate', 'delegated', 'delegatedTo', 'code', 'nonce'],
  properties: {
    address: { ...address, description: 'the account, checksummed' },
    chainId: { type: 'string', description: 'the CAIP-2 id of the chain read' },
    accountDelegate: {
      type: ['string', 'null'],
      description: "this chain's account delegate (IntentAccount), or null where account mode is not configured",
    },
    delegated: {
      type: 'boolean',
      description:
        "whether the account's code is 0xef0100 ‖ this chain's account delegate: account mode needs no authorization",
    },
    delegatedTo: {
      type: ['string', 'null'],
      description: 'the address the account delegates its code to (EIP-7702), whichever it is, or null',
    },
    code: {
      type: 'string',
      enum: ['none', 'delegation', 'contract'],
      description:
        'none: an EOA without code; delegation: an EIP-7702 delegation; contract: other code (account mode refuses it)',
    },
    nonce: {
      type: 'string',
      pattern: '^[0-9]+$',
      description:
        "the account's transaction nonce (pending), in decimal: the nonce its EIP-7702 authorization must carry",
    },
  },
} as const

export function registerGetAccountRoute(app: FastifyInstance, { registry }: { registry: ChainRegistry }) {
  const schema = {
    operationId: 'getAccount',
    tags: ['accounts'],
    summary:
      "Whether an account is delegated to the chain's account delegate (EIP-7702), and the nonce its authorization must carry",
    description:
      'Account mode (`mode: "account"`) runs an intent from the sender\'s own address through this chain\'s IntentAccount. `delegated: false` with `code: "none"`: the first execute carries an authorization (chainId, address = accountDelegate, nonce = `nonce`). A delegation elsewhere or a contract is refused in account mode.',
    headers: chainHeaderSchema,
    // The example: the devnet's demo agent (anvil #7), undelegated until its first account-mode execute.
    params: {
      type: 'object',
      required: ['address'],
      properties: { address: { ...address, examples: ['0x14dC79964da2C08b23698B3D3cc7Ca32193d9955'] } },
    },
    response: { 200: jsonResponse('the account', accountSchema), ...outcomeResponses([400, 421, 502, 503]) },
  }
  app.get<{ Params: { address: string } }>('/accounts/:address', { schema }, async (request, reply) => {
    const selection = requestChain(registry, request)
    request.gateway.chainId = selection.chainId
    request.gateway.chainType = selection.chainType ?? ''
    if (!selection.configured) {
      return sendOutcome(request, reply, {
        status: Status.UNSUPPORTED_CHAIN,
        intentHash: keccak256(new Uint8Array()),
        chainId: selection.chainId,
        chainType: selection.chainType,
        detail: `chain ${selection.chainId} is not served by this gateway (configured: ${registry.adapters.map((a) => a.chainId).join(', ') || 'none'})`,
      })
    }
    const { adapter } = selection
    if (!adapter.readAccount) {
      throw new InputError('The chain has no accounts to read', {
        errors: [
          {
            field: 'X-Chain-Id',
            message: `chain ${adapter.chainId} is ${adapter.chainType}: account mode (EIP-7702) is EVM's`,
          },
        ],
      })
    }
    const problem = adapter.runtime.checkAddress(request.params.address)
    if (problem) throw new InputError('The address is not valid', { errors: [{ field: 'address', message: problem }] })
    return adapter.readAccount(request.params.address)
  })
}
