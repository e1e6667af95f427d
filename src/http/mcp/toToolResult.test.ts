import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encodePaymentResponseHeader } from '@x402/core/http'
import { toToolResult } from './toToolResult.ts'

describe('toToolResult', () => {
  it('keeps the status, the code, the headers that matter and the body; isError from 400 on', () => {
    const ok = toToolResult({
      httpStatus: 202,
      headers: {
        'x-erc1066-status': '0xF3',
        location: '/intents/0xab',
        'content-type': 'application/json',
        'set-cookie': ['a', 'b'],
      },
      body: { status: '0xF3' },
    })
    assert.deepEqual(ok.structuredContent, {
      httpStatus: 202,
      erc1066Status: '0xF3',
      headers: { 'x-erc1066-status': '0xF3', location: '/intents/0xab' },
      body: { status: '0xF3' },
    })
    assert.equal(ok.isError, undefined)
    assert.deepEqual(ok.content, [{ type: 'text', text: JSON.stringify(ok.structuredContent) }])
    const refused = toToolResult({ httpStatus: 403, headers: { 'x-erc1066-status': '0x10' }, body: { title: 'no' } })
    assert.equal(refused.isError, true)
  })

  it("puts a 402's PaymentRequired at the top (x402 MCP transport), and a settlement in _meta", () => {
    const paymentRequired = {
      x402Version: 2,
      error: 'pay',
      resource: { url: 'https://g.example/intents/execute' },
      accepts: [{ scheme: 'exact' }],
    }
    const demand = toToolResult({
      httpStatus: 402,
      headers: { 'x-erc1066-status': '0x55', 'payment-required': 'e30=' },
      body: { status: 402, paymentRequired },
    })
    assert.equal(demand.isError, true)
    assert.deepEqual(demand.structuredContent, {
      ...paymentRequired,
      httpStatus: 402,
      erc1066Status: '0x55',
      headers: { 'x-erc1066-status': '0x55', 'payment-required': 'e30=' },
      body: { status: 402, paymentRequired },
    })
    assert.deepEqual(JSON.parse((demand.content[0] as { text: string }).text), demand.structuredContent)

    const settlement = {
      success: true,
      transaction: `0x${'1'.repeat(64)}`,
      network: 'eip155:84532' as const,
      payer: `0x${'2'.repeat(40)}`,
    }
    const paid = toToolResult({
      httpStatus: 200,
      headers: { 'x-erc1066-status': '0x11', 'payment-response': encodePaymentResponseHeader(settlement as never) },
      body: {},
    })
    assert.deepEqual(paid._meta, { 'x402/payment-response': settlement })
    const garbled = toToolResult({ httpStatus: 200, headers: { 'payment-response': '%%%' }, body: {} })
    assert.equal(garbled._meta, undefined)
    assert.equal((garbled.structuredContent as { headers: Record<string, string> }).headers['payment-response'], '%%%')
  })

  it('words a 402 for MCP: pay in _meta["x402/payment"], not with a PAYMENT-SIGNATURE header', () => {
    const paymentRequired = {
      x402Version: 2,
      error: 'PAYMENT-SIGNATURE header is required',
      resource: { url: 'https://g.example/intents/execute' },
      accepts: [{ scheme: 'exact' }],
    }
    const detail =
      'pay with x402: repeat the request with a PAYMENT-SIGNATURE header for one of paymentRequired.accepts'
    const demand = toToolResult({
      httpStatus: 402,
      headers: { 'x-erc1066-status': '0x55' },
      body: { status: 402, detail, paymentRequired },
    })
    const content = demand.structuredContent as any
    assert.equal(
      content.body.detail,
      'pay with x402: call the tool again with the PaymentPayload for one of `accepts` in `_meta["x402/payment"]`',
    )
    assert.equal(content.error, 'a PaymentPayload in the tool call\'s `_meta["x402/payment"]` is required')
    assert.equal(content.body.paymentRequired.error, content.error)
    const refused = toToolResult({
      httpStatus: 402,
      headers: {},
      body: {
        detail:
          'the payment was refused: invalid_payment_payload: PAYMENT-SIGNATURE is not a base64 JSON PaymentPayload',
      },
    })
    assert.equal(
      (refused.structuredContent as any).body.detail,
      'the payment was refused: invalid_payment_payload: `_meta["x402/payment"]` is not a base64 JSON PaymentPayload',
    )
    // Other statuses keep the route's words.
    const other = toToolResult({ httpStatus: 400, headers: {}, body: { detail } })
    assert.equal((other.structuredContent as any).body.detail, detail)
  })
})
