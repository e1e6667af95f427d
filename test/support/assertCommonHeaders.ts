// The headers every response must carry (docs/api-contract.md §3), checked in one place.
import assert from 'node:assert/strict'
import type { HttpResult } from './testGateway.ts'

export function assertCommonHeaders(
  res: HttpResult,
  expected: { status: string; chainId?: string; chainType?: string; intentHash?: string },
) {
  const h = res.headers
  assert.equal(h.get('x-erc1066-status'), expected.status, `X-ERC1066-Status (body: ${res.text.slice(0, 300)})`)
  assert.equal(h.get('x-status-code'), expected.status, 'X-Status-Code')
  assert.match(h.get('x-intent-hash') ?? '', /^0x[0-9a-f]{64}$/, 'X-Intent-Hash')
  if (expected.intentHash) assert.equal(h.get('x-intent-hash'), expected.intentHash, 'X-Intent-Hash value')
  assert.equal(h.get('x-chain-id'), expected.chainId ?? 'eip155:31337', 'X-Chain-Id')
  assert.equal(h.get('x-chain-type'), expected.chainType ?? 'evm', 'X-Chain-Type')
  assert.equal(h.get('x-payment-required'), res.status === 402 ? 'true' : 'false', 'X-Payment-Required')
}
