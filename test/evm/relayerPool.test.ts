// The relayer pool against a real anvil: each execution goes to the held, funded key with the
// fewest sends in flight; a key that cannot pay for one execution is set aside with a warning
// and used again once funded.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createPublicClient, type Hex, http, parseEther, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { type Anvil, startAnvil } from '../../src/chains/evm/devnet/startAnvil.ts'
import { createRelayerPool } from '../../src/chains/evm/relayer/createRelayerPool.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import { createLocalRelayerLeases } from '../../src/ports/relayerLeases.ts'
import { eventually } from '../support/eventually.ts'
import { rpc } from '../support/testGateway.ts'

describe('createRelayerPool', () => {
  let anvil: Anvil
  before(async () => {
    anvil = await startAnvil()
  })
  after(async () => {
    await anvil?.stop()
  })

  it('spreads sends over funded keys by the fewest in flight, sets an empty key aside with a warning while a funded one is there, and uses it again once funded', async () => {
    const accounts = [generatePrivateKey(), generatePrivateKey()].map((k) => privateKeyToAccount(k))
    const setBalance = (address: Hex, ether: string) =>
      rpc(anvil.rpcUrl, 'anvil_setBalance', [address, toHex(parseEther(ether))])
    await setBalance(accounts[0]!.address, '10')
    await setBalance(accounts[1]!.address, '0')
    const logs: string[] = []
    const client = createPublicClient({ transport: http(anvil.rpcUrl) })
    const pool = createRelayerPool({
      accounts,
      client,
      chainId: anvil.chainId,
      chain: `eip155:${anvil.chainId}`,
      logger: createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } }),
      leases: createLocalRelayerLeases(),
      minBalance: async () => parseEther('1'),
      balanceIntervalMs: 100,
    })
    await pool.start()
    try {
      const taken = [pool.take(), pool.take(), pool.take()]
      assert.deepEqual(
        taken.map((t) => t.relayer.address),
        [accounts[0]!.address, accounts[0]!.address, accounts[0]!.address],
        'the empty key is not used',
      )
      assert.deepEqual(
        pool.view().map((v) => v.funded),
        [true, false],
      )
      assert.ok(
        logs.some((l) => l.includes('cannot pay for one execution: set aside')),
        'a warning names the empty key',
      )

      await setBalance(accounts[1]!.address, '10')
      await eventually('the key funded again', 5_000, async () => (pool.view()[1]!.funded ? true : undefined))
      // Three sends in flight on the first key: the next goes to the second.
      const next = pool.take()
      assert.equal(next.relayer.address, accounts[1]!.address)
      for (const t of [...taken, next]) t.done()
      assert.deepEqual(
        pool.view().map((v) => v.inFlight),
        [0, 0],
      )
      // Sends one after another, none in flight: each goes to the key taken least recently.
      const oneByOne = [0, 1, 2].map(() => {
        const t = pool.take()
        t.done()
        return t.relayer.address
      })
      assert.deepEqual(oneByOne, [accounts[0]!.address, accounts[1]!.address, accounts[0]!.address])

      // Both out of funds: one is still tried, so that the node's refusal names the problem (502) and a key funded since is used at once.
      await setBalance(accounts[0]!.address, '0')
      await setBalance(accounts[1]!.address, '0')
      await eventually('both set aside', 5_000, async () => (pool.view().every((v) => !v.funded) ? true : undefined))
      const tried = pool.take()
      assert.ok(accounts.some((a) => a.address === tried.relayer.address))
      tried.done()
    } finally {
      await pool.close()
    }
  })
})
