// Signed Solana execution end to end: the HTTP app with a relayer key, the adapter's real
// @solana/kit client, the LiteSVM JSON-RPC front in its own process and the committed program.
// Executed once (200 0x11, then the same answer replayed; or 202 0xF3 once sent, with Prefer: respond-async), unsigned (401 0xE5 with `signing`), refusals journaled as
// nothing, a journaled transaction the gateway never broadcast delivered by reconciliation, and
// one whose blockhash expired dropped so that a second attempt runs once.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Address, getBase58Decoder } from '@solana/kit'
import { solanaDemoCommands } from '../../src/chains/solana/devnet/solanaDemoCommands.ts'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { ed25519Seed } from '../../src/chains/solana/ed25519Seed.ts'
import { createReconciler } from '../../src/intents/createReconciler.ts'
import type { ChainAdapter, SignedExecution } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import {
  demoIntents,
  quietLogger,
  type SolanaGateway,
  solanaAdapterFor,
  startSolanaDevnet,
  startSolanaGateway,
} from '../support/solanaGateway.ts'
import { post, request } from '../support/testGateway.ts'

describe('Solana signed execution through the gateway', () => {
  let devnet: SolanaDevnet
  let gateway: SolanaGateway
  let adapter: ChainAdapter

  before(async () => {
    devnet = await startSolanaDevnet()
    adapter = solanaAdapterFor(devnet, { relayer: true })
    assert.equal(adapter.canExecute, true)
    gateway = await startSolanaGateway([adapter])
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  const { intent, hashOf, sign } = demoIntents(() => devnet, 1_000n)
  const body = (i: Intent, signature?: string) => ({
    ...i,
    value: i.value.toString(),
    nonce: i.nonce.toString(),
    validAfter: i.validAfter.toString(),
    validBefore: i.validBefore.toString(),
    ...(signature ? { signature } : {}),
  })
  const execute = (b: unknown) => post(gateway.baseUrl, '/intents/execute', b, { 'x-chain-id': devnet.chainId })
  const balance = async (address: Address) => (await devnet.rpc.getBalance(address).send()).value
  const vault = () => devnet.program.vaultAddress(devnet.demo.sender as Address)

  it('executes a signed intent once: 200 EXECUTED (0x11) with the transaction, then the same answer replayed; the journal row is settled', async () => {
    const i = intent()
    const [recipientBefore, vaultBefore] = [await balance(devnet.demo.recipient), await balance(await vault())]
    const res = await execute(body(i, sign(i)))
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(res.body.intentHash, hashOf(i))
    assert.equal(res.body.state, 'mined')
    assert.match(res.body.transactionHash, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
    assert.match(res.body.blockNumber, /^\d+$/)
    assert.equal(await balance(devnet.demo.recipient), recipientBefore + 1_000n)
    const rent = await devnet.rpc.getMinimumBalanceForRentExemption(48n).send()
    assert.equal(await balance(await vault()), vaultBefore - 1_000n - rent)
    const row = await gateway.journal.get(hashOf(i), devnet.chainId)
    assert.equal(row?.state, 'mined')
    assert.equal(row?.status, 0x11)
    assert.equal(row?.transaction?.id, res.body.transactionHash)
    assert.deepEqual(row?.intent.accounts, i.accounts)

    const again = await execute(body(i, sign(i)))
    assert.equal(again.status, 200, again.text)
    assertCommonHeaders(again, { status: '0x11', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(again.body.replayed, true)
    assert.equal(again.body.transactionHash, res.body.transactionHash)
    assert.equal(await balance(devnet.demo.recipient), recipientBefore + 1_000n)
  })

  it('answers 202 (0xF3) once sent with Prefer: respond-async, then the Location reports it executed, once', async () => {
    const i = intent()
    const recipientBefore = await balance(devnet.demo.recipient)
    const res = await post(gateway.baseUrl, '/intents/execute', body(i, sign(i)), {
      'x-chain-id': devnet.chainId,
      prefer: 'respond-async',
    })
    assert.equal(res.status, 202, res.text)
    assertCommonHeaders(res, { status: '0xF3', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(res.headers.get('preference-applied'), 'respond-async')
    const location = res.headers.get('location')
    assert.equal(location, `/intents/${hashOf(i)}`)
    assert.match(res.body.transactionHash, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
    let done = await request(gateway.baseUrl, location!)
    for (let n = 0; done.status === 202 && n < 200; n++) {
      await new Promise((r) => setTimeout(r, 25))
      done = await request(gateway.baseUrl, location!)
    }
    assert.equal(done.status, 200, done.text)
    assert.equal(done.body.state, 'mined')
    assert.equal(done.body.transactionHash, res.body.transactionHash)
    const again = await execute(body(i, sign(i)))
    assert.equal(again.status, 200, again.text)
    assert.equal(again.body.replayed, true)
    assert.equal(await balance(devnet.demo.recipient), recipientBefore + 1_000n)
  })

  it('names its relayer in /chains', async () => {
    const chains = await request(gateway.baseUrl, '/chains')
    const chain = chains.body.chains.find((c: { chainId: string }) => c.chainId === devnet.chainId)
    assert.equal(chain.relayer, getBase58Decoder().decode(ed25519Seed.publicKey(devnet.relayerSecretKey)))
    assert.ok((await adapter.relayerBalance!()) > 0n)
  })

  it('answers 401 SIGNATURE_REQUIRED (0xE5) without a signature, with `signing` naming the message', async () => {
    const i = intent()
    const res = await execute(body(i))
    assert.equal(res.status, 401, res.text)
    assertCommonHeaders(res, { status: '0xE5', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(res.body.signing.scheme, 'ed25519')
    assert.equal(res.body.signing.message, hashOf(i))
    assert.equal(await gateway.journal.get(hashOf(i), devnet.chainId), undefined, 'nothing journaled')
  })

  it("answers 401 UNAUTHORIZED (0xE4) to a stranger's signature, a signature of another intent, and swapped account metas; nothing moves", async () => {
    const i = intent()
    const vaultBefore = await balance(await vault())
    const stranger = new Uint8Array(32).fill(42)
    for (const b of [
      body(i, sign(i, stranger)),
      body(i, sign(intent())),
      body({ ...i, accounts: [{ address: devnet.demo.otherTarget, signer: false, writable: true }] }, sign(i)),
    ]) {
      const res = await execute(b)
      assert.equal(res.status, 401, res.text)
      assertCommonHeaders(res, { status: '0xE4', chainId: devnet.chainId, chainType: 'solana' })
      assert.ok(res.body.signing, 'the 401 says what to sign')
    }
    assert.equal(await balance(await vault()), vaultBefore)
    assert.equal(await gateway.journal.get(hashOf(i), devnet.chainId), undefined)
  })

  it('answers 400 naming `signature` when it is not 64 bytes', async () => {
    const i = intent()
    const res = await execute(body(i, `0x${'ab'.repeat(65)}`))
    assert.equal(res.status, 400, res.text)
    assert.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['signature'],
    )
  })

  it('answers 400 naming `accounts` when the transaction would not fit in 1,232 bytes; nothing journaled', async () => {
    const i = intent({
      accounts: Array.from({ length: 16 }, () => ({ address: devnet.demo.recipient, signer: false, writable: true })),
      data: `0x00${'ab'.repeat(300)}`,
    })
    const res = await execute(body(i, sign(i)))
    assert.equal(res.status, 400, res.text)
    assert.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['accounts'],
    )
    assert.match(res.body.errors[0].message, /above Solana's 1232/)
    assert.equal(await gateway.journal.get(hashOf(i), devnet.chainId), undefined)
  })

  it('answers 422 (0x50) when the target fails, even with a code that looks like NONCE_USED', async () => {
    const i = intent({ data: '0x03' })
    const res = await execute(body(i, sign(i)))
    assert.equal(res.status, 422, res.text)
    assert.match(res.body.detail, /target instruction failed/)
    assert.equal(await gateway.journal.get(hashOf(i), devnet.chainId), undefined)
  })

  it('answers 403 REVOKED (0x16) for a nonce its sender cancelled', async () => {
    const i = intent()
    const sender = await (await import('@solana/kit')).createKeyPairSignerFromPrivateKeyBytes(
      devnet.demo.senderSecretKey,
    )
    await devnet.send([await devnet.program.cancel(sender, i.nonce)], sender)
    const res = await execute(body(i, sign(i)))
    assert.equal(res.status, 403, res.text)
    assertCommonHeaders(res, { status: '0x16', chainId: devnet.chainId, chainType: 'solana' })
  })

  it('prints a signed execute that runs once (200, then replayed) and an unsigned one (401 0xE5)', async () => {
    const text = solanaDemoCommands({ baseUrl: gateway.baseUrl, devnet })
    const commands = [
      ...text.matchAll(
        /# (\d{3}) [^\n]*\n\s*curl -i -X POST (\S+\/intents\/execute) .*?-H 'X-Chain-Id: (\S+)' -d '([^']+)'/g,
      ),
    ]
    assert.deepEqual(
      commands.map((c) => c[1]),
      ['200', '401'],
    )
    for (const [, httpStatus, , chainId, json] of commands) {
      const res = await post(gateway.baseUrl, '/intents/execute', json, { 'x-chain-id': chainId! })
      assert.equal(String(res.status), httpStatus, `${httpStatus}: ${res.text}`)
    }
    const again = await post(gateway.baseUrl, '/intents/execute', commands[0]![4]!, { 'x-chain-id': devnet.chainId })
    assert.equal(again.status, 200, again.text)
    assert.equal(again.body.replayed, true)
  })

  describe('reconciliation', () => {
    /** Signs and journals an execution, then "crashes" before the broadcast: nothing reaches the chain. */
    async function journalWithoutBroadcast(i: Intent): Promise<SignedExecution> {
      const claim = await gateway.journal.claim({ chainId: devnet.chainId, intentHash: hashOf(i), intent: i })
      assert.ok(claim.ok)
      const preflight = await adapter.prepareExecution(i, sign(i))
      assert.ok(preflight.ok, JSON.stringify(preflight))
      let signed: SignedExecution | undefined
      await assert.rejects(
        preflight.send({
          onSigned: async (tx) => {
            await gateway.journal.recordSigned(claim.record, tx)
            signed = tx
            throw new Error('the gateway died before the broadcast')
          },
        }),
        /died/,
      )
      return signed!
    }
    const reconciler = () =>
      createReconciler({ journal: gateway.journal, adapters: [adapter], intervalMs: 60_000, logger: quietLogger })

    it('delivers a journaled transaction the gateway never broadcast, then settles it from the chain', async () => {
      const i = intent()
      const recipientBefore = await balance(devnet.demo.recipient)
      const tx = await journalWithoutBroadcast(i)
      assert.equal((await gateway.journal.get(hashOf(i), devnet.chainId))?.state, 'pending')
      const first = await reconciler().runOnce()
      assert.equal(first.rebroadcast, 1, JSON.stringify(first))
      const second = await reconciler().runOnce()
      assert.equal(second.settled, 1, JSON.stringify(second))
      const row = await gateway.journal.get(hashOf(i), devnet.chainId)
      assert.equal(row?.state, 'mined')
      assert.equal(row?.status, 0x11)
      assert.equal(row?.transaction?.id, tx.id)
      assert.equal(await balance(devnet.demo.recipient), recipientBefore + 1_000n)
    })

    it('settles from the chain a transaction broadcast before the gateway stopped watching it', async () => {
      const i = intent()
      const claim = await gateway.journal.claim({ chainId: devnet.chainId, intentHash: hashOf(i), intent: i })
      assert.ok(claim.ok)
      const preflight = await adapter.prepareExecution(i, sign(i))
      assert.ok(preflight.ok)
      // Sent, but nobody settles the record from the receipt: as if the process died right after.
      const submission = await preflight.send({ onSigned: (tx) => gateway.journal.recordSigned(claim.record, tx) })
      assert.equal(submission.accepted, true)
      await submission.receipt
      assert.equal((await gateway.journal.get(hashOf(i), devnet.chainId))?.state, 'pending')
      const pass = await reconciler().runOnce()
      assert.equal(pass.settled, 1, JSON.stringify(pass))
      const row = await gateway.journal.get(hashOf(i), devnet.chainId)
      assert.equal(row?.state, 'mined')
      assert.equal(row?.transaction?.id, submission.transactionHash)
    })

    it('re-signs a transaction whose blockhash expired unmined as a new attempt, journaled before it is sent, which runs once', async () => {
      const i = intent()
      const recipientBefore = await balance(devnet.demo.recipient)
      const expired = await journalWithoutBroadcast(i)
      await devnet.control('litesvm_expireBlockhash', [])
      const pass = await reconciler().runOnce()
      assert.equal(pass.repriced, 1, JSON.stringify(pass))
      const renewed = await gateway.journal.get(hashOf(i), devnet.chainId)
      assert.equal(renewed?.attempt, 2)
      assert.notEqual(renewed?.transaction?.id, expired.id)
      // The first attempt is known replaced; the second was broadcast and the next pass settles it.
      const next = await reconciler().runOnce()
      assert.equal(next.settled, 1, JSON.stringify(next))
      const row = await gateway.journal.get(hashOf(i), devnet.chainId)
      assert.deepEqual([row?.attempt, row?.state, row?.status], [2, 'mined', 0x11])
      assert.equal(await balance(devnet.demo.recipient), recipientBefore + 1_000n)
      // The old bytes can never land, and the nonce record shows the intent ran (by attempt 2).
      const late = await adapter.reconcile({ ...expired, intent: i })
      assert.deepEqual(late.kind === 'dropped' && late.executed, true)
      const repeat = await execute(body(i, sign(i)))
      assert.deepEqual([repeat.status, repeat.body.replayed], [200, true])
      assert.equal(await balance(devnet.demo.recipient), recipientBefore + 1_000n)
    })
  })
})
