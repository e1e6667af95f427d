// Agent as signer (`mode: "account"`, issue 46) in a real SVM (LiteSVM): the program's
// execute_as_signer, where the agent's own wallet signs the transaction and the relayer only pays
// its fee. The canonical case is an SPL Token transfer out of the agent's own token account; then
// every attack the issue lists, each asserting the fee payer's and the agent's balances.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { before, describe, it } from 'node:test'
import {
  type Address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressDecoder,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
  type Transaction,
} from '@solana/kit'
import { getCreateAccountInstruction } from '@solana-program/system'
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'
import { FailedTransactionMetadata } from 'litesvm'
import { sbpfVersions, solanaProgramFile } from '../../scripts/buildSolanaProgram.ts'
import { createIntentGatewayProgram } from '../../src/chains/solana/intentGatewayProgram.ts'
import type { Intent, IntentAccountMeta } from '../../src/ports/intent.ts'
import { type SolanaSvm, type SvmOutcome, startSolanaSvm } from '../support/solanaSvm.ts'

const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x))
const now = 1_750_000_000n
const policyId = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
const system = '11111111111111111111111111111111' as Address
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8)
  b.writeBigUint64LE(n)
  return b.toString('hex')
}
/** SPL Token `Transfer` (tag 3, amount u64). */
const tokenTransfer = (amount: bigint) => `0x03${u64(amount)}` as const

for (const version of sbpfVersions) {
  describe(`Solana program: agent as signer, execute_as_signer (SBPF ${version})`, () => {
    let s: SolanaSvm
    let agent: KeyPairSigner
    let relayer: KeyPairSigner
    let friend: KeyPairSigner
    let config: Address
    let otherConfig: Address
    let agentTokens: Address
    let friendTokens: Address
    let nonceCounter = 1n
    const cluster = new Uint8Array(32).fill(7)

    /** A fresh SVM's blockhash (LiteSVM keeps one until told to expire it). */
    const lifetime = () => ({ blockhash: blockhash(s.svm.latestBlockhash()), lastValidBlockHeight: 1_000_000n })

    before(async () => {
      s = await startSolanaSvm({ version })
      s.setTime(now)
      agent = await s.funded(1n)
      relayer = await s.funded()
      friend = await s.funded(1n)
      assert.ok((await s.send([await s.program.initConfig(s.authority, cluster)], s.authority)).ok)
      config = await s.program.configAddress(cluster)
      otherConfig = await s.program.configAddress(new Uint8Array(32).fill(8))
      // DemoDollar-like SPL mint; the agent holds 1000 in its own associated token account.
      const mint = await generateKeyPairSigner()
      const space = BigInt(getMintSize())
      const ok = (r: SvmOutcome) => assert.ok(r.ok, show(r))
      ok(
        await s.send(
          [
            getCreateAccountInstruction({
              payer: s.authority,
              newAccount: mint,
              lamports: s.svm.minimumBalanceForRentExemption(space),
              space,
              programAddress: TOKEN_PROGRAM_ADDRESS,
            }),
            getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: s.authority.address }),
          ],
          s.authority,
        ),
      )
      ;[agentTokens] = await findAssociatedTokenPda({
        mint: mint.address,
        owner: agent.address,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      })
      ;[friendTokens] = await findAssociatedTokenPda({
        mint: mint.address,
        owner: friend.address,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      })
      ok(
        await s.send(
          [
            await getCreateAssociatedTokenIdempotentInstructionAsync({
              payer: s.authority,
              mint: mint.address,
              owner: agent.address,
            }),
            await getCreateAssociatedTokenIdempotentInstructionAsync({
              payer: s.authority,
              mint: mint.address,
              owner: friend.address,
            }),
            getMintToCheckedInstruction({
              mint: mint.address,
              token: agentTokens,
              mintAuthority: s.authority,
              amount: 1_000_000_000n,
              decimals: 6,
            }),
          ],
          s.authority,
        ),
      )
      // The agent's policies: SPL Token transfers only (1); anything (2), for the attack cases.
      ok(
        await s.send(
          [
            await s.program.setPolicy(agent, {
              policyId: policyId(1),
              maxValuePerTx: 0n,
              maxAggregateValue: 0n,
              allowedTargets: [TOKEN_PROGRAM_ADDRESS],
              allowedPrefixes: ['0x03'],
            }),
          ],
          agent,
        ),
      )
      ok(
        await s.send(
          [
            await s.program.setPolicy(agent, {
              policyId: policyId(2),
              maxValuePerTx: 100_000_000n,
              maxAggregateValue: 1_000_000_000n,
            }),
          ],
          agent,
        ),
      )
    })

    const transferIntent = (amount: bigint, overrides: Partial<Intent> = {}): Intent => ({
      sender: agent.address,
      target: TOKEN_PROGRAM_ADDRESS,
      data: tokenTransfer(amount),
      value: 0n,
      nonce: nonceCounter++,
      validAfter: 0n,
      validBefore: 0n,
      policyId: policyId(1),
      accounts: [
        { address: agentTokens, signer: false, writable: true },
        { address: friendTokens, signer: false, writable: true },
        { address: agent.address, signer: true, writable: false },
      ],
      ...overrides,
    })
    const tokens = (account: Address) =>
      Buffer.from((s.svm.getAccount(account) as { data: Uint8Array }).data).readBigUInt64LE(64)

    /** The transaction as the gateway builds it: the relayer pays, the agent signs, nothing else in it. */
    async function message(
      instructions: Instruction[],
      feePayer: Address = relayer.address,
      life = lifetime(),
    ): Promise<Transaction> {
      return compileTransaction(
        pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayer(feePayer, m),
          (m) => setTransactionMessageLifetimeUsingBlockhash(life, m),
          (m) => appendTransactionMessageInstructions(instructions, m),
        ),
      )
    }
    async function signedBy(tx: Transaction, ...signers: KeyPairSigner[]): Promise<Transaction> {
      const signatures = { ...tx.signatures }
      for (const signer of signers)
        signatures[signer.address] = (await signBytes(
          signer.keyPair.privateKey,
          tx.messageBytes as unknown as Uint8Array,
        )) as never
      return { ...tx, signatures }
    }
    function outcome(result: ReturnType<SolanaSvm['svm']['sendTransaction']>): SvmOutcome {
      if (result instanceof FailedTransactionMetadata) {
        const err = result.err() as unknown
        const custom =
          typeof err === 'object' && err !== null && 'err' in err
            ? ((err as { err(): unknown }).err() as { code?: number }).code
            : undefined
        return { ok: false, logs: result.meta().logs(), custom, error: String(result.toString()) }
      }
      return {
        ok: true,
        logs: result.logs(),
        returnData: result.returnData().data(),
        computeUnits: result.computeUnitsConsumed(),
      }
    }
    const submit = (tx: Transaction) => outcome(s.svm.sendTransaction(tx as never))
    /** Builds, has the agent and the relayer sign, and sends an execute_as_signer of `i`. */
    async function execute(i: Intent, options: { accounts?: Address[]; extra?: Instruction[]; cfg?: Address } = {}) {
      s.svm.expireBlockhash()
      const ix = await s.program.executeAsSigner(
        i,
        options.cfg ?? config,
        options.accounts ? { accounts: options.accounts } : {},
      )
      return submit(await signedBy(await message([ix, ...(options.extra ?? [])]), agent, relayer))
    }

    async function snapshot(i: Intent) {
      const policy = s.svm.getAccount(await s.program.policyAddress(agent.address, i.policyId))
      return {
        agent: s.balance(agent.address),
        relayer: s.balance(relayer.address),
        friend: s.balance(friend.address),
        agentTokens: tokens(agentTokens),
        friendTokens: tokens(friendTokens),
        nonce: s.svm.getAccount(await s.program.nonceAddress(agent.address, i.nonce)).exists,
        spent: policy.exists ? s.program.decodePolicy(Uint8Array.from(policy.data))?.spent : undefined,
      }
    }
    async function assertRefused(
      i: Intent,
      attempt: () => Promise<SvmOutcome>,
      custom: number | undefined | 'not-run',
      logIncludes?: string,
    ) {
      const before = await snapshot(i)
      const r = await attempt()
      assert.equal(r.ok, false, `expected a refusal: ${show(r)}`)
      if (!r.ok && custom !== 'not-run') {
        assert.equal(r.custom, custom, `${r.error}\n${r.logs.join('\n')}`)
        if (logIncludes)
          assert.ok(
            r.logs.some((l) => l.includes(logIncludes)),
            r.logs.join('\n'),
          )
      }
      // A transaction that ran and failed costs the fee payer its fee (5000 lamports a signature), and nothing else; nobody else loses anything.
      const after = await snapshot(i)
      assert.deepEqual({ ...after, relayer: 0n }, { ...before, relayer: 0n })
      assert.ok(
        before.relayer - after.relayer <= 10_000n,
        `the fee payer lost ${before.relayer - after.relayer}, more than the fee`,
      )
    }

    it("transfers the agent's own SPL tokens, the agent as the token account's authority; the relayer pays the fee and nothing else, the agent the nonce record's rent", async () => {
      const i = transferIntent(25_000_000n)
      const before = await snapshot(i)
      const r = await execute(i)
      assert.ok(r.ok, show(r))
      assert.ok(
        r.logs.some((l) => l.startsWith('Program log: intent hash 0x')),
        r.logs.join('\n'),
      )
      const after = await snapshot(i)
      const rent = s.svm.minimumBalanceForRentExemption(48n)
      assert.equal(before.agentTokens - after.agentTokens, 25_000_000n)
      assert.equal(after.friendTokens - before.friendTokens, 25_000_000n)
      assert.equal(before.relayer - after.relayer, 10_000n, "the fee payer pays two signatures' fee and nothing else")
      assert.equal(before.agent - after.agent, rent, 'the agent pays the nonce record, nothing else')
      const record = s.svm.getAccount(await s.program.nonceAddress(agent.address, i.nonce)) as {
        programAddress: Address
        data: Uint8Array
      }
      assert.equal(record.programAddress, s.programId)
      assert.equal(s.program.decodeNonceRecord(Uint8Array.from(record.data))?.state, 'executed')
      // validate_as_signer now says the nonce is used.
      const v = await s.simulate([await s.program.validateAsSigner(i, config)], relayer)
      assert.ok(v.ok && v.returnData[0] === 0x22, show(v))
    })

    it("moves a value from the agent's own lamports to the first meta, within the policy's caps (0x54 above them)", async () => {
      const i = transferIntent(0n, {
        policyId: policyId(2),
        target: s.probeId,
        data: '0x00',
        value: 1_000_000n,
        accounts: [{ address: friend.address, signer: false, writable: true }],
      })
      const before = await snapshot(i)
      const r = await execute(i)
      assert.ok(r.ok, show(r))
      const after = await snapshot(i)
      assert.equal(after.friend - before.friend, 1_000_000n)
      assert.equal(before.agent - after.agent, 1_000_000n + s.svm.minimumBalanceForRentExemption(48n))
      assert.equal(before.relayer - after.relayer, 10_000n)
      assert.equal(after.spent! - before.spent!, 1_000_000n)
      const much = transferIntent(0n, {
        policyId: policyId(2),
        target: s.probeId,
        data: '0x00',
        value: 200_000_000n,
        accounts: [{ address: friend.address, signer: false, writable: true }],
      })
      await assertRefused(much, () => execute(much), 0x54)
    })

    it("refuses, with the agent's and the relayer's balances unchanged, an agent short of the nonce record's rent (0x54), also in validate", async () => {
      const poor = await s.funded(1n)
      assert.ok(
        (
          await s.send(
            [await s.program.setPolicy(poor, { policyId: policyId(3), maxValuePerTx: 0n, maxAggregateValue: 0n })],
            poor,
          )
        ).ok,
      )
      const rent = s.svm.minimumBalanceForRentExemption(48n)
      // Leave it less than the record's rent.
      const left = s.balance(poor.address)
      assert.ok(left > rent)
      const drain = await s.send(
        [
          {
            programAddress: system,
            accounts: [{ address: poor.address, role: 3, signer: poor } as never, { address: friend.address, role: 1 }],
            data: Uint8Array.from(Buffer.from(`02000000${u64(left - rent + 1n)}`, 'hex')),
          },
        ],
        poor,
      )
      assert.ok(drain.ok, show(drain))
      const i: Intent = {
        sender: poor.address,
        target: s.probeId,
        data: '0x00',
        value: 0n,
        nonce: 1n,
        validAfter: 0n,
        validBefore: 0n,
        policyId: policyId(3),
        accounts: [],
      }
      const v = await s.simulate([await s.program.validateAsSigner(i, config)], relayer)
      assert.ok(v.ok && v.returnData[0] === 0x54, show(v))
      const before = [s.balance(poor.address), s.balance(relayer.address)]
      const r = submit(await signedBy(await message([await s.program.executeAsSigner(i, config)]), poor, relayer))
      assert.ok(!r.ok && r.custom === 0x54, show(r))
      assert.equal(s.balance(poor.address), before[0])
      assert.ok(before[1]! - s.balance(relayer.address) <= 10_000n)
    })

    it('refuses a message altered after the agent signed it: the runtime verifies every signature (the agent signed the original bytes)', async () => {
      const i = transferIntent(10_000_000n)
      await assertRefused(
        i,
        async () => {
          const tx = await message([await s.program.executeAsSigner(i, config)])
          const agentSignature = await signBytes(agent.keyPair.privateKey, tx.messageBytes as unknown as Uint8Array)
          // A fee payer that signs whatever it is handed: the amount raised after the agent signed.
          const altered = Uint8Array.from(tx.messageBytes as unknown as Uint8Array)
          const at = Buffer.from(altered).indexOf(Buffer.from(u64(10_000_000n), 'hex'))
          assert.ok(at > 0)
          altered.set(Buffer.from(u64(900_000_000n), 'hex'), at)
          const signatures = {
            [relayer.address]: await signBytes(relayer.keyPair.privateKey, altered),
            [agent.address]: agentSignature,
          }
          return submit({ messageBytes: altered, signatures } as never)
        },
        'not-run',
      )
    })

    it('runs no transaction without the agent: the sender must sign (Custom(3)), and cannot be swapped for another signer (Custom(4))', async () => {
      const i = transferIntent(0n, { policyId: policyId(2), target: s.probeId, data: '0x00', accounts: [] })
      // The sender passed as a plain account (the fee payer alone signs): refused before anything moves.
      await assertRefused(
        i,
        async () =>
          submit(
            await signedBy(await message([await s.program.executeAsSigner(i, config, { senderRole: 1 })]), relayer),
          ),
        3,
      )
      // The relayer in the sender's place.
      const ix = await s.program.executeAsSigner(i, config)
      const accounts = [...ix.accounts!]
      accounts[2] = { address: relayer.address, role: 3 }
      await assertRefused(i, async () => submit(await signedBy(await message([{ ...ix, accounts }]), relayer)), 4)
    })

    it("refuses a target meta that asks for the fee payer's signature (Custom(13)), or passes the fee payer at all (Custom(18)): no transfer, no account creation from it", async () => {
      const stranger = await generateKeyPairSigner()
      const anything = { policyId: policyId(2) }
      // A system transfer of the fee payer's lamports, its signature borrowed from the transaction.
      const transfer: IntentAccountMeta[] = [
        { address: relayer.address, signer: true, writable: true },
        { address: agent.address, signer: false, writable: true },
      ]
      const steal = transferIntent(0n, {
        ...anything,
        target: system,
        data: `0x02000000${u64(1_000_000_000n)}`,
        accounts: transfer,
      })
      await assertRefused(steal, () => execute(steal), 13)
      // An account created with the fee payer's lamports.
      const create = Buffer.concat([
        Buffer.from('00000000', 'hex'),
        Buffer.from(u64(1_000_000_000n), 'hex'),
        Buffer.from(u64(0n), 'hex'),
        Buffer.alloc(32),
      ])
      const creation = transferIntent(0n, {
        ...anything,
        target: system,
        data: `0x${create.toString('hex')}`,
        accounts: [
          { address: relayer.address, signer: true, writable: true },
          { address: agent.address, signer: true, writable: true },
        ],
      })
      await assertRefused(creation, () => execute(creation), 13)
      // The fee payer as a plain meta: a target could hand it on as a signer (the probe asks the
      // system program to move its lamports), so it is refused before the target runs.
      const handed = transferIntent(0n, {
        ...anything,
        target: s.probeId,
        data: `0x02${u64(1_000_000_000n)}`,
        accounts: [
          { address: relayer.address, signer: false, writable: true },
          { address: stranger.address, signer: false, writable: true },
        ],
      })
      await assertRefused(handed, () => execute(handed), 18)
      assert.equal(s.balance(stranger.address), 0n)
    })

    it("refuses an account slipped in where the signed meta names another (Custom(4)); the gateway's message holds only its own instructions", async () => {
      const thief = await s.funded(1n)
      const [thiefTokens] = await findAssociatedTokenPda({
        mint: tokenMint(),
        owner: thief.address,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      })
      const i = transferIntent(10_000_000n)
      await assertRefused(i, () => execute(i, { accounts: [agentTokens, thiefTokens, agent.address] }), 4)
      // An extra instruction in the same transaction spending the fee payer: it runs only if the
      // fee payer signs a message it did not build (the gateway never does, see solanaAccountModeGateway.test.ts).
      const extra: Instruction = {
        programAddress: system,
        accounts: [
          { address: relayer.address, role: 3 },
          { address: thief.address, role: 1 },
        ],
        data: Uint8Array.from(Buffer.from(`02000000${u64(5_000_000n)}`, 'hex')),
      }
      const tx = await message([await s.program.executeAsSigner(i, config), extra])
      await assertRefused(
        i,
        async () => {
          const signed = await signedBy(tx, agent)
          return submit({
            ...signed,
            signatures: { ...signed.signatures, [relayer.address]: new Uint8Array(64) },
          } as never)
        },
        'not-run',
      )
    })

    it('refuses a replay: the same signed transaction again, and the same intent signed again once its record exists (0x22)', async () => {
      const i = transferIntent(1_000_000n)
      const tx = await signedBy(await message([await s.program.executeAsSigner(i, config)]), agent, relayer)
      const first = submit(tx)
      assert.ok(first.ok, show(first))
      await assertRefused(i, async () => submit(tx), 'not-run')
      await assertRefused(i, () => execute(i), 0x22)
      // A cancelled nonce, likewise.
      const cancelled = transferIntent(1_000_000n)
      assert.ok((await s.send([await s.program.cancel(agent, cancelled.nonce)], agent)).ok)
      await assertRefused(cancelled, () => execute(cancelled), 0x22)
    })

    it("refuses another program impersonating ours: the same intent's bytes at another deployment of the same code (Custom(7)), and bytes naming another cluster's config (Custom(7))", async () => {
      const impostorId = await s.deploy(readFileSync(solanaProgramFile('intent_gateway', version)), s.authority)
      const impostor = createIntentGatewayProgram(impostorId)
      assert.ok((await s.send([await impostor.initConfig(s.authority, cluster)], s.authority)).ok)
      const i = transferIntent(10_000_000n)
      // Our program's bytes, sent to the impostor with the impostor's accounts.
      const ours = await s.program.executeAsSigner(i, config)
      const theirs = await impostor.executeAsSigner(i, await impostor.configAddress(cluster))
      await assertRefused(
        i,
        async () => submit(await signedBy(await message([{ ...theirs, data: ours.data! }]), agent, relayer)),
        7,
      )
      await assertRefused(i, () => execute(i, { cfg: otherConfig }), 7)
    })

    it("refuses the agent's signed transaction on another cluster (its blockhash is this cluster's)", async () => {
      const other = await startSolanaSvm({ version })
      other.setTime(now)
      other.svm.airdrop(agent.address, 1_000_000_000n as never)
      other.svm.airdrop(relayer.address, 1_000_000_000n as never)
      const i = transferIntent(1_000_000n)
      const tx = await signedBy(await message([await s.program.executeAsSigner(i, config)]), agent, relayer)
      const before = [other.balance(agent.address), other.balance(relayer.address)]
      const r = outcome(other.svm.sendTransaction(tx as never))
      assert.equal(r.ok, false)
      assert.match(String(!r.ok && r.error), /BlockhashNotFound/)
      assert.deepEqual([other.balance(agent.address), other.balance(relayer.address)], before)
    })

    const tokenMint = () =>
      getAddressDecoder().decode(
        Uint8Array.from((s.svm.getAccount(agentTokens) as { data: Uint8Array }).data).subarray(0, 32),
      )
  })
}
