// The relayer's bundles on anvil (sendBundled.ts): executions of one key that claim together, of
// one chunk, go as one IntentBundler transaction, each journaled as its call with the bytes kept
// once; chunks never share a bundle; a member that cannot claim, comes late or does not fit is
// simulated again; and a bundle one of whose executions cannot be journaled is never broadcast.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pino from 'pino'
import { encodeFunctionData, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { bundledReceipt } from '../../src/chains/evm/adapter/bundledReceipt.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { evmRuntime, toIntentTuple } from '../../src/chains/evm/evmRuntime.ts'
import { createRelayer, NotClaimedError, type Relayer } from '../../src/chains/evm/relayer/createRelayer.ts'
import { type BundleChunk, bundleBytesAtMost } from '../../src/chains/evm/relayer/sendBundled.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { ClaimWithdrawnError } from '../../src/errors/claimWithdrawnError.ts'
import { RelayerLeaseMovedError } from '../../src/errors/relayerLeaseMovedError.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import type { Journal } from '../../src/ports/journal.ts'
import { Status } from '../../src/status/statusCodes.ts'
import { openJournal } from '../../src/store/sqlite/openJournal.ts'
import { demoReads } from '../support/demoReads.ts'
import { demoIntent, signIntent } from '../support/testGateway.ts'

describe("the relayer's bundles", () => {
  let devnet: Devnet
  let clients: ReturnType<typeof createDevClients>
  let relayer: Relayer
  let journal: Journal
  let nonce = 8_000_000n

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    relayer = createRelayer({
      account: privateKeyToAccount(devnetAccounts.relayer),
      client: clients.publicClient,
      chainId: devnet.anvil.chainId,
      logger: pino({ level: 'silent' }),
    })
    journal = openJournal({ path: ':memory:' })
  })
  after(async () => {
    await journal?.close()
    await devnet?.stop()
  })

  /** A claimed execution of the demo increment (or `targetData`), signed by `signer`, ready to send as a bundle's member of `chunk`. */
  async function member(
    chunk: BundleChunk,
    { signer = devnetAccounts.sender, targetData }: { signer?: Hex; targetData?: Hex } = {},
  ) {
    const n = nonce++
    const body = await signIntent(
      devnet,
      demoIntent(devnet, { nonce: String(n), ...(targetData ? { data: targetData } : {}) }),
      signer,
    )
    const intent = parseIntent(body as never, evmRuntime)
    const claim = await journal.claim({
      chainId: 'eip155:31337',
      intentHash: evmRuntime.hashIntent(intent) as Hex,
      intent,
    })
    assert.ok(claim.ok)
    const record = claim.record
    const data = encodeFunctionData({
      abi: intentExecutorArtifact.abi,
      functionName: 'executeSigned',
      args: [toIntentTuple(intent), body.signature as Hex],
    })
    return {
      nonce: n,
      record,
      send: (options: { take?: () => boolean; via?: Relayer } = {}) =>
        (options.via ?? relayer).sendBundled(devnet.contracts.bundler, {
          tx: { to: devnet.contracts.executor, data, gas: 200_000n, fees },
          chunk,
          claim: { take: options.take ?? (() => true), failed: () => {} },
          onSigned: (tx) => journal.recordSigned(record, tx),
        }),
    }
  }
  let fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  before(async () => {
    fees = await clients.publicClient.estimateFeesPerGas()
  })
  const { nonceUsed } = demoReads(() => ({ devnet, clients }))

  it('sends the members of one chunk that claim together as one transaction, each journaled as its call, the bytes once', async () => {
    const chunk = { size: 3 }
    const members = [await member(chunk), await member(chunk, { signer: devnetAccounts.other }), await member(chunk)]
    const sent = await Promise.all(members.map((m) => m.send()))
    assert.equal(new Set(sent.map((s) => s.transactionHash)).size, 1, 'one transaction')
    assert.deepEqual(
      sent.map((s) => [s.accepted, s.membership.index, s.transaction.bundle?.index]),
      [
        [true, 0, 0],
        [true, 1, 1],
        [true, 2, 2],
      ],
    )
    const hash = sent[0]!.transactionHash
    for (const [i, m] of members.entries()) {
      const record = await journal.get(m.record.intentHash)
      assert.deepEqual(
        [record?.state, record?.transaction?.id, record?.transaction?.bundle, record?.transaction?.bytes],
        ['pending', hash, { index: i }, ''],
      )
    }
    const raw = await journal.transactionBytes('eip155:31337', hash)
    assert.ok(raw && raw.length > 0, 'the bundle kept once')
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash })
    assert.equal(receipt.to?.toLowerCase(), devnet.contracts.bundler.toLowerCase())
    assert.deepEqual(
      sent.map((s) => {
        const r = bundledReceipt(receipt, s.membership)
        return [r.state, r.status]
      }),
      [
        ['mined', Status.EXECUTED],
        ['reverted', Status.UNAUTHORIZED],
        ['mined', Status.EXECUTED],
      ],
    )
    assert.deepEqual([await nonceUsed(members[0]!.nonce), await nonceUsed(members[2]!.nonce)], [true, true])
  })

  it("waits for its chunk's members that come over several turns of the loop, and not for ever for one given up before its send", async () => {
    // An execution's way from its simulation to its send may cross I/O (the journal, the loop's other
    // work): its batch-mates come over several turns of the loop. The fourth never comes. Turns, not a
    // clock: a loaded machine must not make them later than the bundle waits.
    const chunk = { size: 4 }
    const members = [await member(chunk), await member(chunk), await member(chunk)]
    const sends = []
    for (const m of members) {
      sends.push(m.send())
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve))
    }
    const sent = await Promise.all(sends)
    assert.equal(new Set(sent.map((s) => s.transactionHash)).size, 1, 'one transaction for the three')
    assert.deepEqual(
      sent.map((s) => s.membership.index),
      [0, 1, 2],
    )
    await clients.publicClient.waitForTransactionReceipt({ hash: sent[0]!.transactionHash })
  })

  it('never puts two chunks in one bundle, and refuses a member that cannot claim, or comes after its chunk closed', async () => {
    const a = { size: 3 }
    const b = { size: 1 }
    const [a1, a2, b1] = [await member(a), await member(a), await member(b)]
    const refused = await member(a)
    const results = await Promise.allSettled([a1.send(), a2.send(), refused.send({ take: () => false }), b1.send()])
    const [r1, r2, r3, r4] = results
    assert.ok(r1.status === 'fulfilled' && r2.status === 'fulfilled' && r4.status === 'fulfilled')
    assert.ok(r3.status === 'rejected' && r3.reason instanceof NotClaimedError, 'could not claim: simulated again')
    assert.equal(r1.value.transactionHash, r2.value.transactionHash)
    assert.notEqual(r1.value.transactionHash, r4.value.transactionHash, 'another chunk, another bundle')
    assert.equal(r4.value.txNonce, r1.value.txNonce + 1)
    assert.equal((await journal.get(refused.record.intentHash))?.state, 'claimed', 'nothing signed for it')
    // Chunk a's bundle closed: a member of it now would run apart from the calls simulated before it.
    const late = await member(a)
    await assert.rejects(late.send(), NotClaimedError)
    await clients.publicClient.waitForTransactionReceipt({ hash: r4.value.transactionHash })
  })

  it("answers every waiting member of a chunk when its bundle cannot be made (the key's lease moved), and does not try them again at once", async () => {
    // The lease is gone for the first 50 asks, then back. The queue used to leave a chunk's members
    // waiting when its bundle failed before taking them, and try them again at once, for ever within
    // one turn of the loop (a gateway of the fault campaign spun so, CI run 163); with the lease back
    // after 50 asks, that retry ends by sending them.
    let asked = 0
    const moved = createRelayer({
      account: privateKeyToAccount(devnetAccounts.relayer),
      client: clients.publicClient,
      chainId: devnet.anvil.chainId,
      logger: pino({ level: 'silent' }),
      leaseEpoch: () => (++asked > 50 ? 1 : undefined),
    })
    const chunk = { size: 2 }
    const [m1, m2] = [await member(chunk), await member(chunk)]
    const results = await Promise.allSettled([m1.send({ via: moved }), m2.send({ via: moved })])
    for (const r of results)
      assert.ok(
        r.status === 'rejected' && r.reason instanceof RelayerLeaseMovedError,
        r.status === 'rejected' ? String(r.reason) : 'sent',
      )
    assert.equal(asked, 1, 'one bundle tried, once')
    for (const m of [m1, m2]) assert.equal((await journal.get(m.record.intentHash))?.state, 'claimed', 'nothing signed')
  })

  it(`caps a bundle at ${bundleBytesAtMost} bytes of calldata: what does not fit is simulated again`, async () => {
    const chunk = { size: 3 }
    // The demo increment with two fifths of the cap in data after its argument (the counter ignores the
    // extra bytes): two fit in a bundle, a third does not.
    const big = `0x7cf5dab0${'0'.repeat(63)}1${'ab'.repeat(Math.floor((bundleBytesAtMost * 2) / 5))}` as Hex
    const members = [
      await member(chunk, { targetData: big }),
      await member(chunk, { targetData: big }),
      await member(chunk, { targetData: big }),
    ]
    const results = await Promise.allSettled(members.map((m) => m.send()))
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected'],
    )
    assert.ok(results[2]!.status === 'rejected' && results[2]!.reason instanceof NotClaimedError)
  })

  it('never broadcasts a bundle one of whose executions cannot be journaled: no member runs, and its nonce does not block the key', async () => {
    const chunk = { size: 3 }
    const members = [await member(chunk), await member(chunk), await member(chunk)]
    // The middle one's claim withdrawn (an MCP tasks/cancel) before its signature is journaled.
    assert.ok(await journal.withdraw(members[1]!.record))
    const before = await clients.publicClient.getTransactionCount({
      address: privateKeyToAccount(devnetAccounts.relayer).address,
    })
    const results = await Promise.allSettled(members.map((m) => m.send()))
    assert.ok(results.every((r) => r.status === 'rejected'))
    assert.ok(results[1]!.status === 'rejected' && results[1]!.reason instanceof ClaimWithdrawnError)
    // The others are not answered the cancel of another: simulated again, to go in a later bundle.
    for (const i of [0, 2]) {
      const r = results[i]!
      assert.ok(r.status === 'rejected' && r.reason instanceof NotClaimedError, `member ${i}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
    for (const m of members) assert.equal(await nonceUsed(m.nonce), false, 'no execution of the bundle ran')
    // Its nonce was given back (nothing was handed out after it) or filled: the key is not stuck behind it.
    const next = await member({ size: 1 })
    const sent = await next.send()
    assert.ok(sent.txNonce <= before + 1)
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash: sent.transactionHash })
    assert.equal(bundledReceipt(receipt, sent.membership).status, Status.EXECUTED)
  })
})
