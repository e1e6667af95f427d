import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { evmRuntime } from '../chains/evm/evmRuntime.ts'
import { createSolanaRuntime } from '../chains/solana/solanaRuntime.ts'
import { suiRuntime } from '../chains/sui/suiRuntime.ts'
import { InputError } from '../errors/inputError.ts'
import type { IntentBody } from '../ports/intent.ts'
import { parseIntent } from './parseIntent.ts'

const solanaBody: IntentBody = {
  sender: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
  target: 'BPFLoaderUpgradeab1e11111111111111111111111',
  data: '0x01',
  value: '5',
  nonce: '1',
  policyId: `0x${'ab'.repeat(32)}`,
}

function fieldsOf(fn: () => unknown): string[] {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof InputError)
    return err.errors.map((e) => `${e.field}: ${e.message}`)
  }
  assert.fail('expected an InputError')
}

describe('parseIntent: account metas', () => {
  it('keeps Solana account metas in order and makes them part of the hash', () => {
    const runtime = createSolanaRuntime()
    const accounts = [
      { address: solanaBody.target!, signer: false, writable: true },
      { address: solanaBody.sender, signer: true, writable: false },
    ]
    const withAccounts = parseIntent({ ...solanaBody, accounts }, runtime)
    assert.deepEqual(withAccounts.accounts, accounts)
    const swapped = parseIntent({ ...solanaBody, accounts: [accounts[1]!, accounts[0]!] }, runtime)
    const none = parseIntent(solanaBody, runtime)
    assert.equal(none.accounts, undefined)
    assert.deepEqual(
      parseIntent({ ...solanaBody, accounts: [] }, runtime),
      none,
      'an empty list is the same intent as none',
    )
    const hashes = new Set([withAccounts, swapped, none].map((i) => runtime.hashIntent(i)))
    assert.equal(hashes.size, 3)
  })

  it('names the account whose address is not a key of the chain', () => {
    assert.deepEqual(
      fieldsOf(() =>
        parseIntent(
          { ...solanaBody, accounts: [{ address: '0OIl', signer: false, writable: false }] },
          createSolanaRuntime(),
        ),
      ),
      ['accounts[0].address: must be a base58 public key (characters 1-9, A-Z, a-z without 0, O, I, l)'],
    )
  })

  it('is refused on EVM and Sui, which cannot carry account metas', () => {
    const evmBody: IntentBody = {
      ...solanaBody,
      sender: `0x${'11'.repeat(20)}`,
      target: `0x${'22'.repeat(20)}`,
      accounts: [{ address: `0x${'33'.repeat(20)}`, signer: false, writable: true }],
    }
    assert.deepEqual(
      fieldsOf(() => parseIntent(evmBody, evmRuntime)),
      [
        "accounts: must be absent or empty on EVM chains: only Solana intents carry the target instruction's account metas",
      ],
    )
    const suiBody: IntentBody = {
      ...solanaBody,
      data: '0x',
      sender: `0x${'11'.repeat(32)}`,
      target: `0x${'22'.repeat(32)}`,
      accounts: [{ address: `0x${'33'.repeat(32)}`, signer: false, writable: true }],
    }
    assert.deepEqual(
      fieldsOf(() => parseIntent(suiBody, suiRuntime)),
      ["accounts: must be absent or empty on Sui: only Solana intents carry the target instruction's account metas"],
    )
  })
})
