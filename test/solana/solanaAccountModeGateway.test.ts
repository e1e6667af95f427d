// Account mode on Solana through the gateway (issue 46): the HTTP app with a relayer key, the
// adapter's real @solana/kit client, the LiteSVM JSON-RPC front and the committed program. The
// agent asks (401 0xE5 with the transaction message), signs the message with its own key, and the
// gateway co-signs as fee payer: the relayer pays the fee and the priority fee, nothing else. Then
// what a stranger or a dishonest agent tries, each with the relayer's and the agent's balances.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import {
  type Address,
  decompileTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  type KeyPairSigner,
  lamports,
  signBytes,
} from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import { accountModeCommands } from '../../src/chains/solana/devnet/solanaDemoCommands.ts'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import { ed25519Seed } from '../../src/chains/solana/ed25519Seed.ts'
import { createReconciler } from '../../src/intents/createReconciler.ts'
import type { ChainAdapter } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import {
  accountModeFeeOf,
  demoIntents,
  quietLogger,
  type SolanaGateway,
  solanaAdapterFor,
  startSolanaDevnet,
  startSolanaGateway,
} from '../support/solanaGateway.ts'
import { post } from '../support/testGateway.ts'

describe('Solana account mode (agent as signer, relayer as fee payer) through the gateway', () => {
  let devnet: SolanaDevnet
  let gateway: SolanaGateway
  let adapter: ChainAdapter
  let relayer: Address

  before(async () => {
    devnet = await startSolanaDevnet()
    adapter = solanaAdapterFor(devnet, { relayer: true })
    gateway = await startSolanaGateway([adapter])
    relayer = getBase58Decoder().decode(ed25519Seed.publicKey(devnet.relayerSecretKey)) as Address
  })
  after(async () => {
    await gateway?.close()
    await devnet?.stop()
  })

  const { intent, hashOf } = demoIntents(() => devnet, 5_000n)
  const body = (i: Intent, extra: Record<string, unknown> = {}) => ({
    ...i,
    value: i.value.toString(),
    nonce: i.nonce.toString(),
    validAfter: i.validAfter.toString(),
    validBefore: i.validBefore.toString(),
    mode: 'account',
    ...extra,
  })
  const execute = (b: unknown) => post(gateway.baseUrl, '/intents/execute', b, { 'x-chain-id': devnet.chainId })
  const balance = async (address: Address) => (await devnet.rpc.getBalance(address).send()).value
  const sign = (message: string, seed = devnet.demo.senderSecretKey) =>
    `0x${Buffer.from(ed25519Seed.sign(seed, Buffer.from(message, 'base64'))).toString('hex')}`
  const balances = async () => ({
    relayer: await balance(relayer),
    sender: await balance(devnet.demo.sender),
    recipient: await balance(devnet.demo.recipient),
  })
  const noFunds = (before: Awaited<ReturnType<typeof balances>>, after: Awaited<ReturnType<typeof balances>>) =>
    assert.deepEqual(after, before, 'nothing was sent: no balance moved')

  it('answers an unsigned execute 401 0xE5 with the transaction message (fee payer the relayer, nothing but the compute budget and execute_as_signer) and its last valid block height; the same message while it lives', async () => {
    const i = intent()
    const res = await execute(body(i))
    assert.equal(res.status, 401, res.text)
    assertCommonHeaders(res, { status: '0xE5', chainId: devnet.chainId, chainType: 'solana' })
    const { signing } = res.body
    assert.equal(signing.mode, 'account')
    assert.equal(signing.scheme, 'ed25519')
    assert.equal(signing.encoding, 'base64')
    assert.equal(signing.intentHash, hashOf(i))
    assert.equal(signing.feePayer, relayer)
    assert.match(signing.lastValidBlockHeight, /^\d+$/)
    const compiled = getCompiledTransactionMessageDecoder().decode(Buffer.from(signing.message, 'base64'))
    const message = decompileTransactionMessage(compiled)
    assert.equal(message.feePayer.address, relayer)
    assert.deepEqual(
      (message.instructions as readonly { programAddress: string }[]).map((ix) => ix.programAddress),
      ['ComputeBudget111111111111111111111111111111', 'ComputeBudget111111111111111111111111111111', devnet.programId],
    )
    assert.equal(compiled.header.numSignerAccounts, 2, 'two signers: the relayer (fee payer) and the agent')
    assert.deepEqual(compiled.staticAccounts.slice(0, 2), [relayer, devnet.demo.sender])
    const again = await execute(body(i))
    assert.equal(again.status, 401)
    assert.equal(again.body.signing.message, signing.message)
  })

  it("executes once the agent signs the message: the relayer pays the fee and its priority fee only, the agent the record's rent and the value; then the same answer replayed", async () => {
    const i = intent({ value: 2_000n })
    const asked = await execute(body(i))
    assert.equal(asked.status, 401, asked.text)
    const before = await balances()
    const res = await execute(body(i, { signature: sign(asked.body.signing.message) }))
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(res.body.intentHash, hashOf(i))
    const after = await balances()
    const rent = await devnet.rpc.getMinimumBalanceForRentExemption(48n).send()
    const row = await gateway.journal.get(hashOf(i), devnet.chainId)
    assert.equal(row?.state, 'mined')
    assert.equal(
      before.relayer - after.relayer,
      await accountModeFeeOf(gateway.journal, hashOf(i), devnet.chainId),
      'the relayer pays two signatures and the priority fee it chose',
    )
    assert.equal(before.sender - after.sender, rent + 2_000n, "the agent pays the nonce record's rent and the value")
    assert.equal(after.recipient - before.recipient, 2_000n)
    const record = await devnet.rpc
      .getAccountInfo(await devnet.program.nonceAddress(devnet.demo.sender as Address, i.nonce), { encoding: 'base64' })
      .send()
    assert.equal(devnet.program.decodeNonceRecord(Buffer.from(record.value!.data[0], 'base64'))?.intentHash, hashOf(i))

    const again = await execute(body(i, { signature: sign(asked.body.signing.message) }))
    assert.equal(again.status, 200, again.text)
    assert.equal(again.body.replayed, true)
    assert.deepEqual(await balances(), after)
  })

  it("refuses the agent's signature of a message it altered (an extra instruction paying the agent from the fee payer, another fee payer, a lower fee): 401 0xE4, nothing signed or sent", async () => {
    const i = intent()
    const asked = await execute(body(i))
    const issued = getCompiledTransactionMessageDecoder().decode(
      Buffer.from(asked.body.signing.message, 'base64'),
    ) as unknown as {
      staticAccounts: Address[]
      instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[]
      lifetimeToken: string
    }
    // The same message with the relayer paying the agent slipped in: the agent signs that instead.
    const message = decompileTransactionMessage(issued as never)
    const slipped = {
      ...issued,
      staticAccounts: issued.staticAccounts,
      instructions: [
        ...issued.instructions,
        {
          programAddressIndex: issued.staticAccounts.indexOf('11111111111111111111111111111111' as Address),
          accountIndices: [0, 1],
          data: Uint8Array.from(
            getTransferSolInstruction({
              source: { address: relayer } as never,
              destination: devnet.demo.sender as Address,
              amount: lamports(1_000_000_000n),
            }).data,
          ),
        },
      ],
    }
    assert.ok(message.instructions.length === 3)
    const before = await balances()
    for (const altered of [slipped, { ...issued, lifetimeToken: issued.lifetimeToken }]) {
      const bytes = Uint8Array.from(getCompiledTransactionMessageEncoder().encode(altered as never))
      const tampered = Buffer.from(bytes)
      if (altered !== slipped) tampered[tampered.length - 1] = (tampered[tampered.length - 1]! + 1) % 256
      const res = await execute(body(i, { signature: sign(tampered.toString('base64')) }))
      assert.equal(res.status, 401, res.text)
      assertCommonHeaders(res, { status: '0xE4', chainId: devnet.chainId, chainType: 'solana' })
      assert.equal(
        res.body.signing.message,
        asked.body.signing.message,
        'the answer carries the message the gateway issued',
      )
    }
    noFunds(before, await balances())
    assert.equal(await gateway.journal.get(hashOf(i), devnet.chainId).then((r) => r?.transaction), undefined)
  })

  it("refuses a stranger's signature of the issued message (0xE4), a signature that is not 64 bytes (400 naming `signature`), and an EIP-7702 authorization (400)", async () => {
    const i = intent()
    const asked = await execute(body(i))
    const before = await balances()
    const stranger = await generateKeyPairSigner()
    const strangerSignature = `0x${Buffer.from(await signBytes(stranger.keyPair.privateKey, Buffer.from(asked.body.signing.message, 'base64'))).toString('hex')}`
    const res = await execute(body(i, { signature: strangerSignature }))
    assert.equal(res.status, 401, res.text)
    assertCommonHeaders(res, { status: '0xE4', chainId: devnet.chainId, chainType: 'solana' })
    const short = await execute(body(i, { signature: `0x${'ab'.repeat(32)}` }))
    assert.equal(short.status, 400, short.text)
    assert.ok(JSON.stringify(short.body).includes('signature'), short.text)
    const authorization = {
      chainId: 1,
      address: `0x${'11'.repeat(20)}`,
      nonce: 0,
      yParity: 0,
      r: `0x${'22'.repeat(32)}`,
      s: `0x${'33'.repeat(32)}`,
    }
    const withAuthorization = await execute(body(i, { authorization }))
    assert.equal(withAuthorization.status, 400, withAuthorization.text)
    assert.ok(withAuthorization.text.includes('authorization'), withAuthorization.text)
    noFunds(before, await balances())
  })

  it('answers an expired message 401 0xE5 with a fresh one, and never signs the old one again; the fresh one executes once', async () => {
    const i = intent()
    const asked = await execute(body(i))
    await devnet.control('litesvm_expireBlockhash', [])
    const before = await balances()
    const late = await execute(body(i, { signature: sign(asked.body.signing.message) }))
    assert.equal(late.status, 401, late.text)
    assertCommonHeaders(late, { status: '0xE5', chainId: devnet.chainId, chainType: 'solana' })
    assert.notEqual(late.body.signing.message, asked.body.signing.message)
    assert.ok(BigInt(late.body.signing.lastValidBlockHeight) > BigInt(asked.body.signing.lastValidBlockHeight))
    noFunds(before, await balances())
    const res = await execute(body(i, { signature: sign(late.body.signing.message) }))
    assert.equal(res.status, 200, res.text)
  })

  it('reports an account-mode transaction whose blockhash expired unmined as dropped, never re-signed: the agent signs a fresh message for the next attempt', async () => {
    const i = intent()
    const asked = await execute(body(i))
    const preflight = await adapter.prepareExecution(i, sign(asked.body.signing.message) as `0x${string}`, {
      account: {},
    })
    assert.ok(preflight.ok)
    // Journaled, never broadcast (as if the process died between the two).
    const claim = await gateway.journal.claim({ chainId: devnet.chainId, intentHash: hashOf(i), intent: i })
    assert.ok(claim.ok)
    let signed: Parameters<Parameters<typeof preflight.send>[0]['onSigned']>[0] | undefined
    await assert.rejects(
      preflight.send({
        onSigned: async (tx) => {
          signed = tx
          await gateway.journal.recordSigned(claim.record, tx)
          throw new Error('stop before the broadcast')
        },
      }),
    )
    await devnet.control('litesvm_expireBlockhash', [])
    assert.equal(
      await adapter.replacement?.({ ...signed!, intent: i }, 60_000),
      undefined,
      'no replacement: only the agent signs',
    )
    const reconciled = await adapter.reconcile({ ...signed!, intent: i })
    assert.equal(reconciled.kind, 'dropped', JSON.stringify(reconciled))
    const reconciler = createReconciler({
      journal: gateway.journal,
      adapters: [adapter],
      intervalMs: 60_000,
      logger: quietLogger,
    })
    await reconciler.runOnce()
    const row = await gateway.journal.get(hashOf(i), devnet.chainId)
    assert.notEqual(row?.state, 'mined')
    const fresh = await execute(body(i))
    assert.equal(fresh.status, 401, fresh.text)
    assert.notEqual(fresh.body.signing.message, asked.body.signing.message)
  })

  it("runs the printed devnet commands: the demo agent, with no vault, transfers its own DemoDollar; the relayer pays the fee only, the agent the record's rent only", async () => {
    const agent = devnet.demo.agent
    const tokens = async (account: Address) =>
      Buffer.from(
        (await devnet.rpc.getAccountInfo(account, { encoding: 'base64' }).send()).value!.data[0],
        'base64',
      ).readBigUInt64LE(64)
    const vault = await devnet.rpc
      .getAccountInfo(await devnet.program.vaultAddress(agent.address), { encoding: 'base64' })
      .send()
    assert.equal(vault.value, null, 'the agent has no vault')
    const before = {
      relayer: await balance(relayer),
      agent: await balance(agent.address),
      from: await tokens(agent.tokenAccount),
      to: await tokens(agent.recipientTokenAccount),
    }
    const script = accountModeCommands({ baseUrl: gateway.baseUrl, chainId: devnet.chainId, agent })
    const asked = await execute(JSON.parse(/^BODY='(.*)'$/m.exec(script)![1]!))
    assert.equal(asked.status, 401, asked.text)
    // Asynchronously: the gateway answering it runs in this process.
    const { stdout: out } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    assert.match(out, /^HTTP\/1\.1 200/m, out)
    assert.match(out, /^x-status-code: 0x11/im, out)
    const rent = await devnet.rpc.getMinimumBalanceForRentExemption(48n).send()
    assert.equal(before.from - (await tokens(agent.tokenAccount)), 1_000_000n)
    assert.equal((await tokens(agent.recipientTokenAccount)) - before.to, 1_000_000n)
    assert.equal(
      before.agent - (await balance(agent.address)),
      rent,
      "the agent pays the nonce record's rent and nothing else",
    )
    const paid = before.relayer - (await balance(relayer))
    assert.ok(paid >= 10_000n && paid < 20_000n, `the relayer pays the fee and a small priority fee only: ${paid}`)
    // Printed with the gateway's start-up commands.
    const { solanaDemoCommands } = await import('../../src/chains/solana/devnet/solanaDemoCommands.ts')
    assert.ok(solanaDemoCommands({ baseUrl: gateway.baseUrl, devnet }).includes(script))
  })

  it('validates in account mode (validate_as_signer) for an agent with no vault: its policy allows SPL Token Transfer and refuses another instruction (0x10)', async () => {
    const agent = devnet.demo.agent
    const i: Intent = {
      sender: agent.address,
      target: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      data: '0x0340420f0000000000',
      value: 0n,
      nonce: 77n,
      validAfter: 0n,
      validBefore: 0n,
      policyId: agent.policyId,
      accounts: [],
    }
    const validate = (b: unknown) => post(gateway.baseUrl, '/intents/validate', b, { 'x-chain-id': devnet.chainId })
    const res = await validate(body(i))
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x01', chainId: devnet.chainId, chainType: 'solana' })
    const disallowed = await validate(body({ ...i, data: '0x0c40420f0000000000' }))
    assert.equal(disallowed.status, 403, disallowed.text)
  })

  it("refuses (402 0x54) an agent short of the nonce record's rent before anything is signed; no message is issued", async () => {
    const poor: KeyPairSigner = await generateKeyPairSigner()
    await devnet.rpc.requestAirdrop(poor.address, lamports(20_000_000n)).send()
    const policyId = `0x${'77'.repeat(32)}` as const
    await devnet.send(
      [await devnet.program.setPolicy(poor, { policyId, maxValuePerTx: 1_000_000n, maxAggregateValue: 1_000_000n })],
      poor,
    )
    const rent = await devnet.rpc.getMinimumBalanceForRentExemption(48n).send()
    const left = await balance(poor.address)
    // Drain it to less than the record's rent plus its own minimum.
    await devnet.send(
      [
        getTransferSolInstruction({
          source: poor,
          destination: devnet.demo.recipient as Address,
          amount: lamports(left - rent - 10_000n),
        }),
      ],
      poor,
    )
    const i: Intent = {
      sender: poor.address,
      target: devnet.demo.target,
      data: '0x00',
      value: 0n,
      nonce: 1n,
      validAfter: 0n,
      validBefore: 0n,
      policyId,
      accounts: [],
    }
    const before = await balance(relayer)
    const res = await execute(body(i))
    assert.equal(res.status, 402, res.text)
    assertCommonHeaders(res, { status: '0x54', chainId: devnet.chainId, chainType: 'solana' })
    assert.equal(res.body.signing, undefined)
    assert.equal(await balance(relayer), before)
  })
})
