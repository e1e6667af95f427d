// The devnet's JSON-RPC front as a newcomer's tools read it, through @solana/kit's own RPC client:
// the program's policies (getProgramAccounts with dataSize and memcmp filters) and a sender's
// executions (getSignaturesForAddress on its vault, newest first, with limit and before); a landed
// transaction handed back by getTransaction; and
// GET /metrics showing the Solana endpoints' up/down series, as for EVM.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import {
  type Address,
  appendTransactionMessageInstruction,
  type Base58EncodedBytes,
  type Base64EncodedBytes,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  lamports,
  pipe,
  type Signature,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import { Registry } from 'prom-client'
import { callSolanaRpc } from '../../src/chains/solana/actions/callSolanaRpc.ts'
import { createSolanaContext } from '../../src/chains/solana/createSolanaContext.ts'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { ed25519Seed } from '../../src/chains/solana/ed25519Seed.ts'
import { accountSizes } from '../../src/chains/solana/intentGatewayProgram.ts'
import { solanaFeeOf } from '../../src/chains/solana/solanaFeeOf.ts'
import { createSolanaRuntime } from '../../src/chains/solana/solanaRuntime.ts'
import { createChainRegistry } from '../../src/intents/createChainRegistry.ts'
import { createMetrics } from '../../src/metrics/createMetrics.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { parseMetrics, valueOf } from '../support/parseMetrics.ts'
import { quietLogger, solanaAdapterFor, startSolanaDevnet } from '../support/solanaGateway.ts'
import { testApp } from '../support/testApp.ts'

/** The byte offset of a policy's owner (the sender) in its account data. */
const policyOwnerOffset = 8n

describe('the Solana devnet front, read with @solana/kit', () => {
  let devnet: SolanaDevnet

  before(async () => {
    devnet = await startSolanaDevnet()
  })
  after(async () => {
    await devnet?.stop()
  })

  const hashOf = (i: Intent) =>
    createSolanaRuntime({ programId: devnet.programId, config: devnet.config }).hashIntent(i)
  async function execute(nonce: bigint): Promise<string> {
    const adapter = solanaAdapterFor(devnet, { relayer: true })
    const i: Intent = {
      sender: devnet.demo.sender,
      target: devnet.demo.target,
      data: '0x00cafe',
      value: 1_000n,
      nonce,
      validAfter: 0n,
      validBefore: 0n,
      policyId: devnet.demo.policies.open,
      accounts: [{ address: devnet.demo.recipient, signer: false, writable: true }],
    }
    const signature =
      `0x${Buffer.from(ed25519Seed.sign(devnet.demo.senderSecretKey, Buffer.from(hashOf(i).slice(2), 'hex'))).toString('hex')}` as const
    const preflight = await adapter.prepareExecution(i, signature)
    assert.ok(preflight.ok, JSON.stringify(preflight))
    const submission = await preflight.send({ onSigned: () => undefined })
    assert.equal((await submission.receipt).status, 0x11)
    return submission.transactionHash
  }

  it("lists the program's policies of a sender with getProgramAccounts (dataSize and memcmp filters, base58 or base64 bytes)", async () => {
    const sender = devnet.demo.sender as Address
    const byOwner = await devnet.rpc
      .getProgramAccounts(devnet.programId, {
        encoding: 'base64',
        filters: [
          { dataSize: BigInt(accountSizes.policy) },
          { memcmp: { offset: policyOwnerOffset, bytes: sender as string as Base58EncodedBytes, encoding: 'base58' } },
        ],
      })
      .send()
    const policies = byOwner.map(({ pubkey, account }) => ({
      pubkey,
      owner: account.owner,
      policy: devnet.program.decodePolicy(Buffer.from(account.data[0], 'base64')),
    }))
    assert.deepEqual(policies.map((p) => p.policy?.policyId).sort(), Object.values(devnet.demo.policies).sort())
    for (const p of policies) {
      assert.equal(p.owner, devnet.programId)
      assert.equal(p.policy?.owner, sender)
      assert.equal(p.pubkey, await devnet.program.policyAddress(sender, p.policy!.policyId))
    }
    // The same with base64 bytes; nobody else's; withContext; a data slice.
    const base64 = Buffer.from(getAddressEncoder().encode(sender)).toString('base64') as Base64EncodedBytes
    const ownedBySender = { memcmp: { offset: policyOwnerOffset, bytes: base64, encoding: 'base64' } } as const
    const same = await devnet.rpc
      .getProgramAccounts(devnet.programId, {
        encoding: 'base64',
        filters: [{ dataSize: BigInt(accountSizes.policy) }, ownedBySender],
      })
      .send()
    // Without the size filter the sender's vault matches too: it keeps its owner at the same offset.
    const vault = await devnet.program.vaultAddress(sender)
    const owned = await devnet.rpc
      .getProgramAccounts(devnet.programId, { encoding: 'base64', filters: [ownedBySender] })
      .send()
    assert.deepEqual(owned.map((a) => a.pubkey).sort(), [...byOwner.map((a) => a.pubkey), vault].sort())
    assert.deepEqual(same.map((a) => a.pubkey).sort(), byOwner.map((a) => a.pubkey).sort())
    const nobody = await devnet.rpc
      .getProgramAccounts(devnet.programId, {
        encoding: 'base64',
        filters: [
          {
            memcmp: {
              offset: policyOwnerOffset,
              bytes: devnet.demo.recipient as string as Base58EncodedBytes,
              encoding: 'base58',
            },
          },
        ],
      })
      .send()
    assert.deepEqual(nobody, [])
    const wrapped = await devnet.rpc
      .getProgramAccounts(devnet.programId, {
        encoding: 'base64',
        withContext: true,
        dataSlice: { offset: 0, length: 1 },
        filters: [{ dataSize: BigInt(accountSizes.config) }],
      })
      .send()
    assert.equal(wrapped.value.length, 1, 'one deployment config')
    assert.deepEqual(
      [wrapped.value[0]!.pubkey, wrapped.value[0]!.account.data[0], wrapped.value[0]!.account.space],
      [devnet.config, Buffer.from([1]).toString('base64'), BigInt(accountSizes.config)],
    )
    assert.ok(wrapped.context.slot > 0n)
  })

  it("lists a sender's executions with getSignaturesForAddress on its vault, newest first, with limit and before", async () => {
    const vault = await devnet.program.vaultAddress(devnet.demo.sender as Address)
    const first = await execute(9_001n)
    const second = await execute(9_002n)
    const all = await devnet.rpc.getSignaturesForAddress(vault).send()
    assert.deepEqual(
      all.slice(0, 2).map((s) => s.signature),
      [second, first],
    )
    assert.ok(all.length >= 3, 'the deposit that created the vault is there too')
    for (const s of all) {
      assert.deepEqual(
        [s.err, s.memo, s.confirmationStatus, typeof s.slot, typeof s.blockTime],
        [null, null, 'finalized', 'bigint', 'bigint'],
      )
    }
    assert.ok(all[0]!.slot > all[1]!.slot)
    assert.deepEqual(
      (await devnet.rpc.getSignaturesForAddress(vault, { limit: 1 }).send()).map((s) => s.signature),
      [second],
    )
    assert.deepEqual(
      (await devnet.rpc.getSignaturesForAddress(vault, { before: second as never, limit: 1 }).send()).map(
        (s) => s.signature,
      ),
      [first],
    )
    assert.deepEqual(
      (await devnet.rpc.getSignaturesForAddress(vault, { until: first as never }).send()).map((s) => s.signature),
      [second],
    )
    const stranger = await devnet.rpc.getSignaturesForAddress(devnet.demo.otherTarget as Address).send()
    assert.deepEqual(stranger, [])
  })

  it('hands a landed transaction back with getTransaction (base64, its fee and lamports), a failed one with its error, none for one never run', async () => {
    const executed = await execute(9_003n)
    const found = await devnet.rpc
      .getTransaction(executed as Signature, { encoding: 'base64', maxSupportedTransactionVersion: 0 })
      .send()
    assert.ok(found?.meta, 'the execution is in the ledger')
    const wire = found.transaction[0]
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(wire))
    assert.equal(getBase58Decoder().decode(Object.values(tx.signatures)[0]!), executed)
    assert.equal(found.meta.err, null)
    assert.equal(found.meta.fee, solanaFeeOf(wire))
    const keys = getCompiledTransactionMessageDecoder().decode(tx.messageBytes).staticAccounts
    const recipient = keys.indexOf(devnet.demo.recipient as Address)
    assert.equal(found.meta.postBalances[recipient]! - found.meta.preBalances[recipient]!, 1_000n)
    assert.equal(found.version, 0)
    await assert.rejects(
      devnet.rpc.getTransaction(executed as Signature, { encoding: 'base64' }).send(),
      /maxSupportedTransactionVersion/,
      'a v0 transaction is not handed to a client that does not say it reads v0',
    )

    // More lamports than the payer has: it fails in execution, and LiteSVM takes its fee.
    const payer = await generateKeyPairSigner()
    await devnet.rpc.requestAirdrop(payer.address, lamports(1_000_000n)).send()
    const { value: latest } = await devnet.rpc.getLatestBlockhash().send()
    /** A transfer of `amount` lamports from the payer to the demo recipient, on the blockhash read above. */
    const transfer = (amount: bigint) =>
      signTransactionMessageWithSigners(
        pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayerSigner(payer, m),
          (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
          (m) =>
            appendTransactionMessageInstruction(
              getTransferSolInstruction({ source: payer, destination: devnet.demo.recipient as Address, amount }),
              m,
            ),
        ),
      )
    const failing = await transfer(5_000_000n)
    const failedId = getSignatureFromTransaction(failing)
    await assert.rejects(
      devnet.rpc.sendTransaction(getBase64EncodedWireTransaction(failing), { encoding: 'base64' }).send(),
    )
    const failed = await devnet.rpc
      .getTransaction(failedId, { encoding: 'base64', maxSupportedTransactionVersion: 0 })
      .send()
    assert.ok(failed?.meta, 'the failed transaction took its fee: it is in the ledger')
    assert.notEqual(failed.meta.err, null)
    assert.equal(failed.meta.fee, 5_000n)
    assert.equal(failed.meta.preBalances[0]! - failed.meta.postBalances[0]!, 5_000n)

    // Refused before it ran (its blockhash gone): no fee, not in the ledger.
    const stale = await transfer(1n)
    await devnet.control('litesvm_expireBlockhash', [])
    await assert.rejects(
      devnet.rpc.sendTransaction(getBase64EncodedWireTransaction(stale), { encoding: 'base64' }).send(),
    )
    assert.equal(
      await devnet.rpc
        .getTransaction(getSignatureFromTransaction(stale), { encoding: 'base64', maxSupportedTransactionVersion: 0 })
        .send(),
      null,
    )
  })

  it('shows each Solana endpoint up or down in /metrics by its position, never its URL', async () => {
    // A port nothing listens on: the first endpoint is down, the devnet (second) answers.
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const metrics = createMetrics({ registry: new Registry(), defaultMetrics: false })
    const adapter = solanaAdapterFor(devnet, { rpcUrls: [deadUrl, devnet.rpcUrl], rpcRecorder: metrics.rpc })
    assert.equal((await adapter.getHealth()).reachable, true)
    const app = testApp(
      { server: { bodyLimit: 1024 }, execution: { receiptTimeoutMs: 1_000 } },
      { registry: createChainRegistry({ adapters: [adapter], defaultChainId: undefined }), metrics },
    )
    const scrape = async () => {
      const res = await app.inject({ method: 'GET', url: '/metrics' })
      assert.equal(res.statusCode, 200)
      return res.body
    }
    const text = await scrape()
    const samples = parseMetrics(text)
    assert.equal(valueOf(samples, 'intent_gateway_chain_endpoint_up', { chain: devnet.chainId, endpoint: '0' }), 0)
    assert.equal(valueOf(samples, 'intent_gateway_chain_endpoint_up', { chain: devnet.chainId, endpoint: '1' }), 1)
    assert.equal(
      valueOf(samples, 'intent_gateway_chain_rpc_failures_total', {
        chain: devnet.chainId,
        method: 'getSlot',
        kind: 'unreachable',
      }),
      1,
    )
    assert.ok(!text.includes('127.0.0.1'), 'no URL in a label')
    // A node that answers with an error is up: it answered (this devnet speaks no jsonParsed).
    const ctx = createSolanaContext({
      chain: {
        chainId: devnet.chainId,
        reference: devnet.reference,
        rpcUrls: [deadUrl, devnet.rpcUrl],
        programId: devnet.programId,
        config: devnet.config,
      },
      rpcTimeoutMs: 2_000,
      logger: quietLogger,
      rpcRecorder: metrics.rpc,
    })
    await assert.rejects(
      callSolanaRpc(ctx, 'getAccountInfo', 'account lookup', (rpc, abortSignal) =>
        rpc.getAccountInfo(devnet.config, { encoding: 'jsonParsed' }).send({ abortSignal }),
      ),
      /unsupported encoding jsonParsed/,
    )
    const after = parseMetrics(await scrape())
    assert.equal(valueOf(after, 'intent_gateway_chain_endpoint_up', { chain: devnet.chainId, endpoint: '0' }), 0)
    assert.equal(valueOf(after, 'intent_gateway_chain_endpoint_up', { chain: devnet.chainId, endpoint: '1' }), 1)
    assert.equal(
      valueOf(after, 'intent_gateway_chain_rpc_failures_total', {
        chain: devnet.chainId,
        method: 'getAccountInfo',
        kind: 'node_error',
      }),
      1,
    )
    await app.close()
  })
})
