// One relayer key against a real anvil, through the gateway's own endpoint pool: broadcasts are
// pipelined (sent in nonce order outside the nonce lock, grouped while the node answers the
// previous group), and a refused broadcast never leaves a nonce gap under later transactions.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createPublicClient, custom, type Hex, type LocalAccount, parseEther, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createEndpointPool } from '../../src/chains/createEndpointPool.ts'
import { type Anvil, startAnvil } from '../../src/chains/evm/devnet/startAnvil.ts'
import { createRelayer } from '../../src/chains/evm/relayer/createRelayer.ts'
import { RelayerError } from '../../src/errors/relayerError.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { eventually } from '../support/eventually.ts'
import { rpc } from '../support/testGateway.ts'

describe('createRelayer', () => {
  let anvil: Anvil
  let endpoints: ReturnType<typeof createEndpointPool>
  const logs: string[] = []
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } })
  before(async () => {
    anvil = await startAnvil()
    endpoints = createEndpointPool({
      chainId: `eip155:${anvil.chainId}`,
      reference: anvil.chainId,
      endpoints: [{ url: anvil.rpcUrl, source: 'config' }],
      timeoutMs: 5_000,
      logger,
    })
  })
  after(async () => {
    await endpoints?.close()
    await anvil?.stop()
  })

  const client = () => createPublicClient({ transport: custom({ request: endpoints.request }, { retryCount: 0 }) })

  /** A funded key, a relayer on it with a journal stand-in (what `onSigned` recorded, released on refusal), and what its broadcasts looked like. */
  async function relayerWithJournal({ releaseRefused = true } = {}) {
    const account: LocalAccount = privateKeyToAccount(generatePrivateKey())
    await rpc(anvil.rpcUrl, 'anvil_setBalance', [account.address, toHex(parseEther('10'))])
    const journal = new Map<string, number>()
    const groups: number[] = []
    const relayer = createRelayer({
      account,
      client: client(),
      chainId: anvil.chainId,
      logger,
      nonceFloor: async (ignore) => {
        const held = [...journal].filter(([id]) => !ignore.has(id)).map(([, nonce]) => nonce)
        return held.length === 0 ? undefined : Math.max(...held) + 1
      },
      broadcastMany: (raws: readonly Hex[]) => {
        groups.push(raws.length)
        return endpoints.sequence(raws.map((raw) => ({ method: 'eth_sendRawTransaction', params: [raw] })))
      },
    })
    const send = async (gas: bigint) => {
      let id: string | undefined
      try {
        return await relayer.send(
          { to: account.address, data: '0x', gas },
          { onSigned: (tx) => void journal.set((id = tx.id), Number(tx.details.txNonce)) },
        )
      } catch (err) {
        if (id && releaseRefused) journal.delete(id) // as executeIntent releases a refused attempt
        throw err
      }
    }
    return { account, send, groups }
  }

  const mined = (hash: Hex) =>
    eventually(`receipt of ${hash}`, 10_000, () =>
      client()
        .getTransactionReceipt({ hash })
        .catch(() => undefined),
    )
  // anvil's block gas limit is 30M: a transaction asking for more is refused at broadcast.
  const refusedGas = 40_000_000n

  it('sends concurrent transactions with consecutive nonces, in fewer requests than transactions, every one mined', async () => {
    const { account, send, groups } = await relayerWithJournal()
    const sent = await Promise.all(Array.from({ length: 30 }, () => send(21_000n)))
    assert.deepEqual(
      sent.map((s) => s.txNonce),
      Array.from({ length: 30 }, (_, i) => i),
    )
    assert.ok(sent.every((s) => s.accepted))
    assert.ok(groups.length < 30, `30 broadcasts went out in ${groups.length} requests (${groups.join(', ')})`)
    for (const s of sent) assert.equal((await mined(s.transactionHash)).status, 'success')
    assert.equal(await client().getTransactionCount({ address: account.address }), 30)
  })

  it('fills the nonce of a refused broadcast when later ones are out: the later transactions mine, the refused one fails', async () => {
    const { account, send } = await relayerWithJournal()
    const before = logs.length
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => send(i === 3 ? refusedGas : 21_000n)))
    const refused = results[3]!
    assert.equal(refused.status, 'rejected')
    assert.ok((refused as PromiseRejectedResult).reason instanceof RelayerError)
    const accepted = results
      .filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof send>>> => r.status === 'fulfilled')
      .map((r) => r.value)
    assert.equal(accepted.length, 9)
    for (const s of accepted) assert.equal((await mined(s.transactionHash)).status, 'success')
    // Nonce 3 was filled by the no-op transaction: nothing waits behind a gap.
    assert.equal(await client().getTransactionCount({ address: account.address }), 10)
    assert.ok(logs.slice(before).some((l) => /filled it with a no-op transaction/.test(l) && /"nonce":3/.test(l)))
    // And the next send goes on from there.
    const next = await send(21_000n)
    assert.equal(next.txNonce, 10)
    await mined(next.transactionHash)
  })

  it('gives a refused nonce back when nothing after it was handed out, even while its record is still journaled', async () => {
    // The refused attempt's record is never released here: the floor must not count it.
    const { account, send } = await relayerWithJournal({ releaseRefused: false })
    const before = logs.length
    const first = await send(21_000n)
    await assert.rejects(send(refusedGas), RelayerError)
    const next = await send(21_000n)
    assert.equal(next.txNonce, first.txNonce + 1, 'the refused nonce is used again, not skipped')
    await mined(next.transactionHash)
    assert.equal(await client().getTransactionCount({ address: account.address }), 2)
    assert.ok(!logs.slice(before).some((l) => /no-op transaction/.test(l)), 'no filler was needed')
  })
})
