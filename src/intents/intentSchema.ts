// JSON Schema of the intent body: compiled by Fastify at the route and the source of the field
// descriptions that error messages and the API document use.
import { chainTypes } from '../ports/chainId.ts'

const decimal = (what: string) =>
  ({
    type: 'string',
    pattern: '^[0-9]+$',
    description: `${what}: an integer from 0 to 2^256-1 written in decimal, e.g. "1000"`,
  }) as const

/** Most calls one batch may carry (IntentLedger.MAX_CALLS). */
export const maxBatchCalls = 16

export const intentSchema = {
  $id: 'Intent',
  type: 'object',
  additionalProperties: false,
  required: ['sender', 'nonce', 'policyId'],
  // target, data and value are required unless `calls` (a batch) replaces them; parseIntent refuses
  // both at once. (`calls: false` in `if`: calls is absent. The `then` names its fields as open
  // schemas, which OpenAPI linters want of a required field, without closing the object there.)
  if: { properties: { calls: false } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable
  then: {
    required: ['target', 'data', 'value'],
    properties: { target: true, data: true, value: true },
    additionalProperties: true,
  },
  properties: {
    sender: {
      type: 'string',
      maxLength: 128,
      description: 'the account the intent acts for: an address of the chain (EVM: 0x + 40 hex digits)',
    },
    target: {
      type: 'string',
      maxLength: 128,
      description: 'the contract to call: an address of the chain (EVM: 0x + 40 hex digits)',
    },
    data: {
      type: 'string',
      pattern: '^0x(?:[0-9a-fA-F]{2})*$',
      description: 'call data: 0x followed by an even number of hex digits ("0x" is empty)',
    },
    value: decimal('native value to send with the call, in the smallest unit (wei)'),
    calls: {
      type: 'array',
      minItems: 1,
      maxItems: maxBatchCalls,
      description: `EVM account mode only: a batch of 1 to ${maxBatchCalls} calls run in order from the sender's account, all or nothing, instead of target/data/value; hashed as keccak256(abi.encode(BatchIntent)) and signed as BatchIntent(address sender,Call[] calls,uint256 nonce,uint256 validAfter,uint256 validBefore,bytes32 policyId) with Call(address target,uint256 value,bytes data)`,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['target', 'data', 'value'],
        properties: {
          target: { type: 'string', maxLength: 128, description: 'the contract this call calls: 0x + 40 hex digits' },
          data: {
            type: 'string',
            pattern: '^0x(?:[0-9a-fA-F]{2})*$',
            description: 'the call data: 0x followed by an even number of hex digits',
          },
          value: decimal("wei this call sends, from the account's own balance"),
        },
      },
    },
    nonce: decimal("the sender's nonce for this intent; each (sender, nonce) executes at most once"),
    validAfter: decimal('unix seconds after which the intent is valid; "0" (the default) means no lower bound'),
    validBefore: decimal('unix seconds before which the intent is valid; "0" (the default) means no upper bound'),
    policyId: {
      type: 'string',
      pattern: '^0x[0-9a-fA-F]{64}$',
      description: 'the policy the intent runs under: 0x + 64 hex digits (bytes32)',
    },
    accounts: {
      type: 'array',
      maxItems: 24,
      description:
        "Solana only: the target instruction's account metas, in order (part of the signed bytes and of X-Intent-Hash); the other runtimes take none",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['address', 'signer', 'writable'],
        properties: {
          address: {
            type: 'string',
            maxLength: 128,
            description: 'the account: an address of the chain (Solana: base58 32-byte key)',
          },
          signer: {
            type: 'boolean',
            description:
              'whether the target instruction needs this account to sign (only the sender vault can, through the program)',
          },
          writable: { type: 'boolean', description: 'whether the target instruction writes this account' },
        },
      },
    },
    chainType: {
      type: 'string',
      enum: [...chainTypes],
      description: 'optional runtime check: must match the chain chosen by X-Chain-Id',
    },
    mode: {
      type: 'string',
      enum: ['executor', 'account'],
      description:
        "EVM: how the intent runs. `executor` (the default): through the executor contract, paid from the deposit. `account`: from the sender's own address through its EIP-7702 delegate (IntentAccount); the sender's code must be that delegate, or empty with an `authorization` in the body; signed under the domain { name: \"IntentAccount\", version: \"1\", chainId, verifyingContract: sender }. Solana: `account` has the agent's own wallet sign the transaction and the relayer only pay its fee; execute without `signature` answers 401 0xE5 with `signing.message` (the base64 transaction message, fee payer the relayer) and `signing.lastValidBlockHeight`; send the sender's 64-byte Ed25519 signature of those bytes as `signature`. Sui: `account` is a sponsored transaction, the agent its sender and the relayer its gas owner; execute without `signature` answers 401 0xE5 with `signing.txBytes` (base64 TransactionData); send the sender's serialized signature (signTransaction: flag ‖ signature ‖ public key) of those bytes as 0x hex in `signature`",
    },
    authorization: {
      type: 'object',
      additionalProperties: false,
      required: ['chainId', 'address', 'nonce', 'yParity', 'r', 's'],
      description:
        "account mode, first execute of an undelegated EOA: the sender's EIP-7702 authorization (viem signAuthorization) to this chain's delegate at its current account nonce; the relayer sends it in a type-4 transaction",
      properties: {
        chainId: {
          type: 'integer',
          minimum: 0,
          maximum: Number.MAX_SAFE_INTEGER,
          description: "this chain's id (0, any chain, is refused)",
        },
        address: {
          type: 'string',
          pattern: '^0x[0-9a-fA-F]{40}$',
          description: "this chain's account delegate (GET /chains/{chainId})",
        },
        nonce: {
          type: 'integer',
          minimum: 0,
          maximum: Number.MAX_SAFE_INTEGER,
          description: "the sender's current account nonce (its transaction count)",
        },
        yParity: { type: 'integer', enum: [0, 1], description: 'the signature parity: 0 or 1' },
        r: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$', description: 'the signature r: 0x + 64 hex digits' },
        s: {
          type: 'string',
          pattern: '^0x[0-9a-fA-F]{64}$',
          description: 'the signature s: 0x + 64 hex digits, in the lower half of the curve order',
        },
      },
    },
    signature: {
      type: 'string',
      pattern: '^0x(?:[0-9a-fA-F]{2})+$',
      maxLength: 2 + 2 * 4096,
      description:
        "the sender's (or a delegate's) signature of the intent: EVM, the EIP-712 signature of the typed data GET /chains/{chainId} describes (65 or 64 bytes from a key, or what the sender contract accepts through ERC-1271); Solana, the 64-byte Ed25519 signature of the 32-byte intent hash (X-Intent-Hash) by the sender or a delegate of the policy; Sui, the serialized signPersonalMessage signature of the intent's BCS bytes; 0x + hex",
    },
  },
} as const

export const intentFields = Object.keys(intentSchema.properties)
export const accountMetaFields = Object.keys(intentSchema.properties.accounts.items.properties)

/** The path parameter of GET /intents/{intentHash}. */
export const intentHashParamsSchema = {
  type: 'object',
  required: ['intentHash'],
  properties: {
    intentHash: {
      type: 'string',
      pattern: '^0x[0-9a-fA-F]{64}$',
      description: 'the X-Intent-Hash of an execute request: 0x + 64 hex digits',
    },
  },
} as const
