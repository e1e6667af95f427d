import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { claimed, claimOf, signedTx } from '../../test/support/journalContract.ts'
import { evmSignedExecution } from '../chains/evm/evmSignedExecution.ts'
import { createLogger } from '../logging/createLogger.ts'
import type { ChainAdapter, ReconcileRequest } from '../ports/chainAdapter.ts'
import type { Journal } from '../ports/journal.ts'
import { openJournal } from '../store/sqlite/openJournal.ts'
import { createReconciler } from './createReconciler.ts'

/** A reconciler over `journal` for one EVM chain whose node says every transaction it is shown (`shown`) is still pending. */
function reconcilerOf(journal: Journal, shown: (tx: ReconcileRequest) => void) {
  const adapter = {
    chainId: 'eip155:1',
    sequenceOf: evmSignedExecution.txNonce,
    async reconcile(tx: ReconcileRequest) {
      shown(tx)
      return { kind: 'pending' } as const
    },
  } as unknown as ChainAdapter
  return createReconciler({
    journal,
    adapters: [adapter],
    intervalMs: 60_000,
    logger: createLogger({ level: 'silent' }),
  })
}

describe('createReconciler', () => {
  it("reconciles one relayer's transactions in nonce order even when the journal wrote them out of it, and other relayers' in signing order", async () => {
    const journal = openJournal({ path: ':memory:' })
    const other = '0x00000000000000000000000000000000000000Bb'
    // Journal writes can commit out of nonce order (they are started in order, and may finish in any).
    const written = [signedTx(7), signedTx(5), signedTx(9, other), signedTx(6), signedTx(3, other)]
    for (const [i, tx] of written.entries()) await journal.recordSigned(await claimed(journal, claimOf(i + 1)), tx)
    const seen: string[] = []
    const reconciler = reconcilerOf(journal, (tx) => seen.push(`${tx.relayer.slice(-2)}:${tx.details.txNonce}`))
    await reconciler.runOnce()
    assert.deepEqual(seen, ['Aa:5', 'Aa:6', 'Bb:3', 'Aa:7', 'Bb:9'])
    journal.close()
  })

  it("reads a bundle's bytes once a pass, not once for each of its calls, and gives every call the bundle whole", async () => {
    const journal = openJournal({ path: ':memory:' })
    const bundle = signedTx(4)
    for (const index of [0, 1, 2])
      await journal.recordSigned(await claimed(journal, claimOf(index + 1)), { ...bundle, bundle: { index } })
    let reads = 0
    const read = journal.transactionBytes.bind(journal)
    journal.transactionBytes = (chainId, id) => {
      reads++
      return read(chainId, id)
    }
    const given: string[] = []
    const reconciler = reconcilerOf(journal, (tx) => given.push(`${tx.bundle?.index}:${tx.bytes}`))
    await reconciler.runOnce()
    assert.deepEqual(
      given.sort(),
      [0, 1, 2].map((i) => `${i}:${bundle.bytes}`),
    )
    assert.equal(reads, 1, 'one read of the bundle for its three calls')
    await reconciler.runOnce()
    assert.equal(reads, 2, 'a pass reads it afresh')
    journal.close()
  })
})
