// The client's Solana helpers against the gateway on the LiteSVM devnet: the hash of the canonical
// bytes, bound to the chain's program and config account as GET /chains/{chainId} describes them,
// equals X-Intent-Hash; the Ed25519 signature of that hash verifies with node:crypto.
import assert from 'node:assert/strict'
import { createPublicKey, randomBytes, verify } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { base58 } from '@scure/base'
import { hexToBytes } from 'viem'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import {
  type SolanaGateway,
  solanaAdapterFor,
  startSolanaDevnet,
  startSolanaGateway,
} from '../../test/support/solanaGateway.ts'
import { post } from '../../test/support/testGateway.ts'
import { createGatewayClient, createSolanaSigner, GatewayClientError, hashIntent, signIntent } from '../src/index.ts'

describe('client on the Solana devnet', () => {
  let devnet: SolanaDevnet
  let gateway: SolanaGateway

  before(async () => {
    devnet = await startSolanaDevnet()
    gateway = await startSolanaGateway([solanaAdapterFor(devnet)])
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  const body = (overrides: Record<string, unknown> = {}) => ({
    sender: devnet.demo.sender,
    target: devnet.demo.target,
    data: `${devnet.demo.allowedPrefix}40420f0000000000`,
    value: '1000',
    nonce: '0',
    validAfter: '0',
    validBefore: '0',
    policyId: devnet.demo.policies.narrow,
    ...overrides,
  })

  it('hashes like the gateway, with and without account metas and bounds', async () => {
    const client = createGatewayClient({ url: gateway.baseUrl, chainId: devnet.chainId })
    const chain = await client.getChain()
    assert.equal(chain.chainType, 'solana')
    const cases = [
      body(),
      body({
        nonce: '18446744073709551615',
        value: '0',
        validAfter: '1',
        validBefore: '9223372036854775807',
        data: '0x',
      }),
      body({
        nonce: '3',
        accounts: [
          { address: devnet.demo.target, signer: false, writable: true },
          { address: devnet.demo.otherTarget, signer: true, writable: false },
        ],
      }),
    ]
    for (const intent of cases) {
      const answered = await post(gateway.baseUrl, '/intents/validate', intent, { 'x-chain-id': devnet.chainId })
      const expected = answered.headers.get('x-intent-hash')
      assert.match(expected ?? '', /^0x[0-9a-f]{64}$/, answered.text)
      assert.equal(hashIntent(intent, chain), expected)
      const result = await client.validate(intent)
      assert.equal(result.intentHash, expected)
      assert.equal(result.chainType, 'solana')
    }
    assert.notEqual(
      hashIntent(body(), {
        chainType: 'solana',
        contracts: { executor: chain.contracts.executor, registry: devnet.demo.target },
      }),
      hashIntent(body(), chain),
      'bound to the config account',
    )
    assert.throws(
      () => hashIntent(body({ nonce: (2n ** 64n).toString() }), chain),
      (err: unknown) => err instanceof GatewayClientError && err.field === 'nonce',
    )
    assert.throws(
      () => hashIntent(body({ sender: '0xabc' }), chain),
      (err: unknown) => err instanceof GatewayClientError && err.field === 'sender',
    )
  })

  it("signs the 32-byte hash with Ed25519, verifiable with the signer's public key", async () => {
    const client = createGatewayClient({ url: gateway.baseUrl, chainId: devnet.chainId })
    const chain = await client.getChain()
    const seed = randomBytes(32)
    const signer = createSolanaSigner(seed)
    const intent = body({ sender: signer.address })
    const signature = await signIntent({ intent, chain, signer })
    const publicKey = createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(base58.decode(signer.address))]),
      format: 'der',
      type: 'spki',
    })
    assert.equal(verify(null, hexToBytes(hashIntent(intent, chain)), publicKey, hexToBytes(signature)), true)
    assert.equal(
      verify(null, hexToBytes(hashIntent({ ...intent, nonce: '1' }, chain)), publicKey, hexToBytes(signature)),
      false,
    )
    // A keypair file's 64 bytes (seed, then public key) give the same signer.
    assert.equal(
      createSolanaSigner(JSON.stringify([...seed, ...base58.decode(signer.address)])).address,
      signer.address,
    )
    assert.throws(() => createSolanaSigner([...seed, ...new Uint8Array(32)]), /second half is not the public key/)
  })
})
