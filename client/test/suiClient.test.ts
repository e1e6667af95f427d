// The client's Sui hash (keccak256 of the intent's BCS bytes) against the gateway's X-Intent-Hash,
// on the Sui gateway in front of the test stand-in (no Move runs here; the hash is the gateway's).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bcs } from '@mysten/bcs'
import { bytesToHex, hexToBytes } from 'viem'
import { type SuiWorld, startSuiWorld, suiSender } from '../../test/support/suiGateway.ts'
import { createGatewayClient, hashIntent, suiIntentBytes, toIntentBody } from '../src/index.ts'

describe('client on a Sui chain', () => {
  let world: SuiWorld
  let url: string

  before(async () => {
    world = await startSuiWorld()
    url = await world.app.listen({ host: '127.0.0.1', port: 0 })
  })
  after(async () => {
    await world?.stop()
  })

  const intent = (overrides: Record<string, unknown> = {}) => ({
    sender: suiSender.toSuiAddress(),
    target: `0x${'22'.repeat(32)}`,
    data: '0x',
    value: '1000',
    nonce: '5',
    policyId: world.standIn.policyId,
    ...overrides,
  })

  it('hashes like the gateway, through the chain description and offline', async () => {
    const client = createGatewayClient({ url, chainId: 'sui:localnet' })
    for (const body of [
      intent(),
      intent({ nonce: '18446744073709551615', validAfter: '7', validBefore: '1700000000', value: '0' }),
    ]) {
      const result = await client.validate(body)
      assert.equal(result.chainType, 'sui')
      assert.match(result.intentHash ?? '', /^0x[0-9a-f]{64}$/)
      assert.equal(await client.hashIntent(body), result.intentHash)
      assert.equal(hashIntent(body, { chainType: 'sui' }), result.intentHash)
    }
  })

  it('lays out the BCS bytes as @mysten/bcs encodes the Move struct', () => {
    const Intent = bcs.struct('Intent', {
      domain: bcs.vector(bcs.u8()),
      sender: bcs.bytes(32),
      target: bcs.bytes(32),
      value: bcs.u64(),
      nonce: bcs.u64(),
      validAfter: bcs.u64(),
      validBefore: bcs.u64(),
      policyId: bcs.bytes(32),
    })
    const body = toIntentBody(intent({ validAfter: '3', validBefore: '4' }))
    const expected = Intent.serialize({
      domain: [...new TextEncoder().encode('intent-gateway/sui/v1')],
      sender: hexToBytes(body.sender as `0x${string}`),
      target: hexToBytes(body.target as `0x${string}`),
      value: body.value,
      nonce: body.nonce,
      validAfter: body.validAfter,
      validBefore: body.validBefore,
      policyId: hexToBytes(body.policyId),
    }).toBytes()
    assert.equal(bytesToHex(suiIntentBytes(body)), bytesToHex(expected))
    assert.equal(expected.length, 1 + 21 + 32 + 32 + 4 * 8 + 32)
  })
})
