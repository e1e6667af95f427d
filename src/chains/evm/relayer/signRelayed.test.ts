import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { getAddress, type Hex, serializeTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { toUnminedCall } from './outbox.ts'
import type { RelayerContext } from './relayerContext.ts'
import { serializeRelayed, signRelayed } from './signRelayed.ts'

const hex = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex)
// Small and huge values alike: RLP's edge cases are 0, single bytes below 0x80, and lengths past 55 and 255 bytes.
const amount = fc.oneof(
  fc.constantFrom(0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n),
  fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
)
const transactions = fc.record({
  chainId: fc.oneof(fc.constantFrom(1, 127, 128, 31337), fc.integer({ min: 1, max: 2 ** 32 })),
  to: hex(20, 20).map((a) => getAddress(a)),
  data: fc.oneof(hex(0, 2), hex(50, 60), hex(0, 1100)),
  value: amount,
  gas: fc.bigInt({ min: 0n, max: 2n ** 64n }),
  nonce: fc.oneof(fc.constantFrom(0, 1, 127, 128), fc.integer({ min: 0, max: 2 ** 31 })),
  maxFeePerGas: amount,
  maxPriorityFeePerGas: amount,
})
// r and s with leading zero bytes (viem trims them) and zero itself.
const word = fc
  .oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 2n ** 64n }), fc.bigInt({ min: 1n, max: 2n ** 256n - 1n }))
  .map((n) => `0x${n.toString(16).padStart(64, '0')}` as Hex)
const signatures = fc.record({ r: word, s: word, yParity: fc.constantFrom(0, 1) })

describe('serializeRelayed', () => {
  it("writes the same bytes as viem's serializeTransaction, unsigned and signed", () => {
    fc.assert(
      fc.property(transactions, signatures, (tx, sig) => {
        // viem refuses a tip above the fee cap (so does the chain).
        const transaction = {
          ...tx,
          type: 'eip1559' as const,
          maxPriorityFeePerGas: tx.maxPriorityFeePerGas > tx.maxFeePerGas ? tx.maxFeePerGas : tx.maxPriorityFeePerGas,
        }
        assert.equal(serializeRelayed(transaction), serializeTransaction(transaction))
        const signature = { ...sig, v: BigInt(27 + sig.yParity) }
        assert.equal(serializeRelayed(transaction, signature), serializeTransaction(transaction, signature))
      }),
      { numRuns: 2000 },
    )
  })

  it('refuses what a relayer never sends: another type, an access list, no recipient', () => {
    const base = {
      chainId: 1,
      to: getAddress(`0x${'11'.repeat(20)}`),
      data: '0x' as Hex,
      value: 0n,
      gas: 21000n,
      nonce: 0,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    }
    assert.throws(() =>
      serializeRelayed({
        ...base,
        type: 'eip2930',
        gasPrice: 1n,
        maxFeePerGas: undefined,
        maxPriorityFeePerGas: undefined,
      } as never),
    )
    assert.throws(() =>
      serializeRelayed({ ...base, type: 'eip1559', accessList: [{ address: base.to, storageKeys: [] }] }),
    )
    assert.throws(() => serializeRelayed({ ...base, type: 'eip1559', to: null }))
  })
})

describe('signRelayed', () => {
  it('gives the call a simulation replays from the fields it signed: the same as read back from the signed bytes', async () => {
    const account = privateKeyToAccount(`0x${'42'.repeat(32)}`)
    const lower = (c: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(c).map(([k, v]) => [k, typeof v === 'string' ? v.toLowerCase() : v]))
    await fc.assert(
      fc.asyncProperty(transactions, async ({ chainId, nonce, maxFeePerGas, maxPriorityFeePerGas, ...tx }) => {
        const ctx = { account, chainId } as unknown as RelayerContext
        const fees = {
          maxFeePerGas,
          maxPriorityFeePerGas: maxPriorityFeePerGas > maxFeePerGas ? maxFeePerGas : maxPriorityFeePerGas,
        }
        const signed = await signRelayed(ctx, tx, fees, nonce)
        assert.ok(signed.call, 'an EIP-1559 transaction comes with its call')
        assert.deepEqual(lower(signed.call), lower(toUnminedCall(account.address, signed.rawTransaction)))
      }),
      { numRuns: 200 },
    )
  })
})
