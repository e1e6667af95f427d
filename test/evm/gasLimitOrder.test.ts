// The gas limit an execution is sent with holds whichever of the gateway's transactions the chain
// mines first. Two intents of one sender on a fresh counter and a fresh nonce word, sent by two
// keys of one instance: the second is simulated after the first (replayed from its signed bytes),
// so it meets both storage slots already written. The chain keeps no order between keys: here the
// first is dropped from the pool and the second mined alone, paying for both empty slots (2 ×
// 17,100 gas over what it was simulated with, past the 25,000 of head-room). CI run 82 saw this in
// the fleet test as a 502 0xF0 (out of the gas this gateway gave it): the relayer paid for a
// transaction that did nothing. Real anvil with the reference contracts, automine off.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Hex } from 'viem'
import { signedIncrement } from '../../bench/anvilProbe.ts'
import { limitFor, neededFor } from '../../src/chains/evm/adapter/executionGas.ts'
import { createEvmAdapter } from '../../src/chains/evm/createEvmAdapter.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { resolveChains } from '../../src/chains/evm/discovery/resolveChains.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { ChainAdapter } from '../../src/ports/chainAdapter.ts'

/** anvil's tenth funded account: a second relayer key no other part of the devnet uses. */
const secondKey: Hex = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6'

describe('an execution’s gas limit holds when the chain mines it before a transaction it was simulated after', () => {
  let devnet: Devnet
  let adapter: ChainAdapter
  let clients: ReturnType<typeof createDevClients>
  const rpc = (method: string, params: unknown[] = []) => clients.publicClient.request({ method, params } as never)

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const [resolved] = await resolveChains({
      chains: [devnet.chain],
      chainList: undefined,
      production: false,
      logger: createLogger({ level: 'silent' }),
    })
    adapter = createEvmAdapter({
      chain: resolved!,
      relayerPrivateKey: undefined,
      relayerPrivateKeys: [devnetAccounts.relayer, secondKey],
      rpcTimeoutMs: 5_000,
      pollingIntervalMs: 20,
      logger: createLogger({ level: 'silent' }),
    })
    await rpc('evm_setAutomine', [false])
  })
  after(async () => {
    await adapter?.close()
    await devnet?.stop()
  })

  it('two intents of one sender, two keys: the one simulated second and mined first is not out of gas', async () => {
    const count = () =>
      clients.publicClient.readContract({
        address: devnet.demo.counter,
        abi: demoCounterArtifact.abi,
        functionName: 'count',
      }) as Promise<bigint>
    assert.equal(await count(), 0n, 'a fresh counter: its first increment writes an empty slot')
    // 128 nonces to a ledger word: 512,000 opens a word nothing has used.
    const send = async (nonce: bigint) => {
      const { intent, signature } = await signedIncrement(devnet, nonce)
      const prepared = await adapter.prepareExecution(intent, signature)
      assert.ok(
        prepared.ok,
        JSON.stringify(prepared, (_, v) => (typeof v === 'bigint' ? v.toString() : v)),
      )
      const sent = await prepared.send({ onSigned: () => {} })
      assert.equal(sent.accepted, true)
      return { sent, tx: await clients.publicClient.getTransaction({ hash: sent.transactionHash as Hex }) }
    }

    const first = await send(512_000n)
    const second = await send(512_001n)
    assert.notEqual(first.tx.from, second.tx.from, 'sent by the two keys')
    // The chain mines the second first: the first leaves the pool.
    const firstRaw = (await rpc('eth_getRawTransactionByHash', [first.sent.transactionHash])) as Hex
    assert.equal(await rpc('anvil_dropTransaction', [first.sent.transactionHash]), first.sent.transactionHash)
    await rpc('evm_mine')
    const mined = await second.sent.receipt
    assert.equal(mined.outOfGas, undefined, mined.detail)
    assert.equal(mined.state, 'mined', mined.detail)
    assert.equal(mined.status, 0x11)
    assert.equal(await count(), 1n)

    // The first, mined after it, meets both slots written: the gas the second was simulated with.
    await rpc('eth_sendRawTransaction', [firstRaw])
    await rpc('evm_mine')
    const later = await first.sent.receipt
    assert.equal(later.state, 'mined', later.detail)
    assert.equal(await count(), 2n)
    assert.ok(
      neededFor(mined.gasUsed) > limitFor(neededFor(later.gasUsed), { cap: undefined } as never),
      `mined first it used ${mined.gasUsed}: more than the limit its simulated gas (${later.gasUsed}) gives with head-room`,
    )
    assert.ok(second.tx.gas >= neededFor(mined.gasUsed), `sent with ${second.tx.gas}`)
  })
})
