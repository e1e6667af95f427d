// The ERC-1066 status table and its total mapping to HTTP statuses: the one place that decides
// what every one of the 256 codes means to an HTTP client (docs/api-contract.md §4).

export type StatusCode = {
  /** The byte, 0-255. */
  code: number
  /** `0x` + two upper-case hex digits, as written in headers. */
  hex: `0x${string}`
  statusName: string
  description: string
  httpStatus: number
  reserved: boolean
}

/** ERC-1066 1.0.0 meanings by category (high nibble) and reason (low nibble). */
const meanings: Record<number, Record<number, string>> = {
  0x0: {
    0x0: 'Failure',
    0x1: 'Success',
    0x2: 'Awaiting Others',
    0x3: 'Accepted',
    0x4: 'Lower Limit or Insufficient',
    0x5: 'Receiver Action Requested',
    0x6: 'Upper Limit',
    0x8: 'Duplicate, Unnecessary, or Inapplicable',
    0xf: 'Informational or Metadata',
  },
  0x1: {
    0x0: 'Disallowed or Stop',
    0x1: 'Allowed or Go',
    0x2: "Awaiting Other's Permission",
    0x3: 'Permission Requested',
    0x4: 'Too Open / Insecure',
    0x5: 'Needs Your Permission',
    0x6: 'Revoked or Banned',
    0x8: 'Not Applicable to Current State',
    0xf: 'Permission Details or Control Conditions',
  },
  0x2: {
    0x0: 'Not Found, Unequal, or Out of Range',
    0x1: 'Found, Equal or In Range',
    0x2: 'Awaiting Match',
    0x3: 'Match Request Sent',
    0x4: 'Below Range or Underflow',
    0x5: 'Request for Match',
    0x6: 'Above Range or Overflow',
    0x8: 'Duplicate, Conflict, or Collision',
    0xf: 'Matching Meta or Info',
  },
  0x3: {
    0x0: 'Sender Disagrees or Nay',
    0x1: 'Sender Agrees or Yea',
    0x2: 'Awaiting Ratification',
    0x3: 'Offer Sent or Voted',
    0x4: 'Quorum Not Reached',
    0x5: "Receiver's Ratification Requested",
    0x6: 'Offer or Vote Limit Reached',
    0x8: 'Already Voted',
    0xf: 'Negotiation Rules or Participation Info',
  },
  0x4: {
    0x0: 'Unavailable',
    0x1: 'Available',
    0x2: 'Paused',
    0x3: 'Queued',
    0x4: 'Not Available Yet',
    0x5: 'Awaiting Your Availability',
    0x6: 'Expired',
    0x8: 'Already Done',
    0xf: 'Availability Rules or Info',
  },
  0x5: {
    0x0: 'Transfer Failed',
    0x1: 'Transfer Successful',
    0x2: 'Awaiting Payment From Others',
    0x3: 'Hold or Escrow',
    0x4: 'Insufficient Funds',
    0x5: 'Funds Requested',
    0x6: 'Transfer Volume Exceeded',
    0x8: 'Funds Not Required',
    0xf: 'Token or Financial Information',
  },
  0xa: {
    0x0: 'App-Specific Failure',
    0x1: 'App-Specific Success',
    0x2: 'App-Specific Awaiting Others',
    0x3: 'App-Specific Acceptance',
    0x4: 'App-Specific Below Condition',
    0x5: 'App-Specific Receiver Action Requested',
    0x6: 'App-Specific Expiry or Limit',
    0x8: 'App-Specific Inapplicable Condition',
    0xf: 'App-Specific Meta or Info',
  },
  0xe: {
    0x0: 'Decrypt Failure',
    0x1: 'Decrypt Success',
    0x2: 'Awaiting Other Signatures or Keys',
    0x3: 'Signed',
    0x4: 'Unsigned or Untrusted',
    0x5: 'Signature Required',
    0x6: 'Known to be Compromised',
    0x8: 'Already Signed or Not Encrypted',
    0xf: 'Cryptography, ID, or Proof Metadata',
  },
  0xf: {
    0x0: 'Off-Chain Failure',
    0x1: 'Off-Chain Success',
    0x2: 'Awaiting Off-Chain Process',
    0x3: 'Off-Chain Process Started',
    0x4: 'Off-Chain Service Unreachable',
    0x5: 'Off-Chain Action Required',
    0x6: 'Off-Chain Expiry or Limit Reached',
    0x8: 'Duplicate Off-Chain Request',
    0xf: 'Off-Chain Info or Meta',
  },
}

/** Codes with a name and meaning of their own in this gateway (the seed's, then ours). */
const fixed: Record<number, { statusName?: string; description: string; httpStatus: number }> = {
  0x01: { statusName: 'SUCCESS', description: 'Intent validated', httpStatus: 200 },
  0x11: { statusName: 'EXECUTED', description: 'Intent executed successfully', httpStatus: 200 },
  0x20: {
    statusName: 'TOO_EARLY',
    description: 'Intent is pending: its validity window has not opened yet',
    httpStatus: 202,
  },
  0x21: { statusName: 'TOO_LATE', description: 'Intent has expired', httpStatus: 410 },
  0x54: { statusName: 'INSUFFICIENT_FUNDS', description: 'Payment required: insufficient funds', httpStatus: 402 },
  0x10: { statusName: 'DISALLOWED', description: 'Intent explicitly disallowed by policy', httpStatus: 403 },
  0xa2: { statusName: 'UNSUPPORTED_CHAIN', description: 'Unsupported chain or network', httpStatus: 421 },
  // An Idempotency-Key the caller already used with another body: the request is not a retry, and a
  // retry's body cannot be changed after the fact (the draft's and Stripe's 422, not 409: nothing is in conflict, the request is wrong).
  0xa8: {
    statusName: 'IDEMPOTENCY_KEY_REUSED',
    description: 'Idempotency-Key already used with another request body',
    httpStatus: 422,
  },
  0x00: { description: 'Generic failure reported by the chain', httpStatus: 400 },
  0x22: {
    statusName: 'NONCE_USED',
    description: 'Nonce already used: the intent was already executed',
    httpStatus: 409,
  },
  0x50: { description: 'The target call failed on-chain', httpStatus: 422 },
  0xa0: { statusName: 'INVALID_FORMAT', description: 'Malformed intent or request', httpStatus: 400 },
  0xa1: { statusName: 'UNSUPPORTED_ACTION', description: 'Unsupported action, route or method', httpStatus: 501 },
  0xf0: { description: 'Gateway-side failure', httpStatus: 502 },
  0xf3: { description: 'Execution submitted, not yet confirmed', httpStatus: 202 },
  0xf4: { description: 'Chain RPC unreachable or timed out', httpStatus: 503 },
  0xf6: { description: 'Gateway limit reached', httpStatus: 429 },
  0xf8: { description: 'The same intent is already in flight', httpStatus: 409 },
  0x40: { description: 'Unavailable', httpStatus: 503 },
  0x42: { description: 'Paused', httpStatus: 503 },
  0x44: { description: 'Not available yet', httpStatus: 202 },
  0x46: { description: 'Expired', httpStatus: 410 },
  0x52: { description: 'Awaiting payment from others', httpStatus: 402 },
  0x55: { description: 'Funds requested', httpStatus: 402 },
  0x14: { description: 'Too open or insecure', httpStatus: 403 },
  0x15: { description: 'Needs your permission', httpStatus: 403 },
  0x16: { description: 'Revoked or banned', httpStatus: 403 },
  0xe4: { description: 'Unsigned or untrusted', httpStatus: 401 },
  0xe5: { description: 'Signature required', httpStatus: 401 },
}

const reservedReasons = new Set([0x7, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe])

/** HTTP status by reason nibble for codes that are neither fixed nor reserved. */
const byReason: Record<number, number> = {
  0x0: 400,
  0x1: 200,
  0x2: 202,
  0x3: 202,
  0x4: 422,
  0x5: 428,
  0x6: 422,
  0x8: 409,
  0xf: 200,
}

function isReserved(code: number): boolean {
  const category = code >> 4
  const reservedCategory = (category >= 0x6 && category <= 0x9) || (category >= 0xb && category <= 0xd)
  return reservedCategory || reservedReasons.has(code & 0xf)
}

export function toStatusHex(code: number): `0x${string}` {
  return `0x${code.toString(16).toUpperCase().padStart(2, '0')}`
}

function toStatusName(meaning: string): string {
  return meaning
    .toUpperCase()
    .replace(/'/g, '')
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
}

function describe(code: number): StatusCode {
  const hex = toStatusHex(code)
  if (isReserved(code)) {
    // A contract that answers a reserved code is at fault, not the client.
    return { code, hex, statusName: 'RESERVED', description: 'Reserved ERC-1066 code', httpStatus: 502, reserved: true }
  }
  const meaning = meanings[code >> 4]![code & 0xf]!
  const own = fixed[code]
  return {
    code,
    hex,
    statusName: own?.statusName ?? toStatusName(meaning),
    description: own?.description ?? meaning,
    httpStatus: own?.httpStatus ?? byReason[code & 0xf]!,
    reserved: false,
  }
}

/** All 256 codes, indexed by their byte value. */
export const statusCodes: readonly StatusCode[] = Object.freeze(
  Array.from({ length: 256 }, (_, code) => describe(code)),
)

export function getStatusCode(code: number): StatusCode {
  const entry = statusCodes[code]
  if (!entry) throw new RangeError(`not an ERC-1066 code: ${code}`)
  return entry
}

/** The codes that allow execution to go ahead (the origin project's `isSuccess`). */
export function isSuccessStatus(code: number): boolean {
  return code === 0x01 || code === 0x11 || code === 0x51
}

/** The well-known codes by name, so that code reads `Status.DISALLOWED`, not `0x10`. */
export const Status = {
  FAILURE: 0x00,
  SUCCESS: 0x01,
  /** Upper limit: the gateway's gas cap per execution. */
  UPPER_LIMIT: 0x06,
  DISALLOWED: 0x10,
  EXECUTED: 0x11,
  /** A nonce its sender cancelled. */
  REVOKED: 0x16,
  TOO_EARLY: 0x20,
  TOO_LATE: 0x21,
  NONCE_USED: 0x22,
  UNAVAILABLE: 0x40,
  TRANSFER_FAILED: 0x50,
  INSUFFICIENT_FUNDS: 0x54,
  /** The gateway's own x402 price is unpaid. */
  FUNDS_REQUESTED: 0x55,
  INVALID_FORMAT: 0xa0,
  UNSUPPORTED_ACTION: 0xa1,
  UNSUPPORTED_CHAIN: 0xa2,
  /** An Idempotency-Key the caller recorded with another request body (422). */
  IDEMPOTENCY_KEY_REUSED: 0xa8,
  /** A missing or wrong API key, or a signature that does not authorize the intent. */
  UNAUTHORIZED: 0xe4,
  SIGNATURE_REQUIRED: 0xe5,
  GATEWAY_FAILURE: 0xf0,
  SUBMITTED: 0xf3,
  CHAIN_UNREACHABLE: 0xf4,
  RATE_LIMITED: 0xf6,
  IN_FLIGHT: 0xf8,
} as const
