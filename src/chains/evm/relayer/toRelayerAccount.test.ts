import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { getAddress, type Hex, parseTransaction, recoverTransactionAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { toRelayerAccount } from './toRelayerAccount.ts'

const hex = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex)
// A valid secp256k1 private key: 1 .. n-1, n the curve's order (2^256 - 0x14551231950b75fc4402da1732fc9bebf).
const curveOrder = 2n ** 256n - 0x14551231950b75fc4402da1732fc9bebfn
const privateKeys = fc
  .bigInt({ min: 1n, max: curveOrder - 1n })
  .map((k) => `0x${k.toString(16).padStart(64, '0')}` as Hex)
const transactions = fc.record({
  chainId: fc.integer({ min: 1, max: 2 ** 32 }),
  to: hex(20, 20).map((a) => getAddress(a)),
  data: hex(0, 300),
  value: fc.bigInt({ min: 0n, max: 2n ** 96n }),
  gas: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
  nonce: fc.integer({ min: 0, max: 2 ** 31 }),
  maxFeePerGas: fc.bigInt({ min: 1n, max: 2n ** 64n }),
})

describe('toRelayerAccount', () => {
  it("signs every transaction exactly as viem's own account does (same bytes), and the signer recovers to the key's address", async () => {
    await fc.assert(
      fc.asyncProperty(privateKeys, transactions, async (key, tx) => {
        const transaction = { ...tx, type: 'eip1559' as const, maxPriorityFeePerGas: tx.maxFeePerGas / 2n }
        const ours = await toRelayerAccount(key).signTransaction(transaction)
        assert.equal(ours, await privateKeyToAccount(key).signTransaction(transaction))
        assert.equal(
          await recoverTransactionAddress({ serializedTransaction: ours as never }),
          privateKeyToAccount(key).address,
        )
        assert.equal(parseTransaction(ours).nonce, tx.nonce)
      }),
      { numRuns: 300 },
    )
  })

  it('uses the native binding here, not the JavaScript fallback', async () => {
    const { createRequire } = await import('node:module')
    const require = createRequire(import.meta.url)
    // The package loads ./bindings when its prebuilt addon loads, ./elliptic otherwise.
    assert.equal(require('secp256k1'), require('secp256k1/bindings.js'))
  })
})
