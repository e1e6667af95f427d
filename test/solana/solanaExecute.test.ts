// The program's signed execute and cancel in a real SVM (LiteSVM), attacked every way the issue
// lists: each attempt is refused and leaves every balance, the policy's spending and the nonce
// record as they were. The probe target (programs/solana/probe_target.c) plays the target.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { before, describe, it } from 'node:test'
import {
  type Address,
  generateKeyPairSigner,
  getAddressEncoder,
  type Instruction,
  type KeyPairSigner,
  lamports,
  signBytes,
} from '@solana/kit'
import { buildSolanaProgram, sbpfVersions, solanaProgramFile } from '../../scripts/buildSolanaProgram.ts'
import { ed25519Instruction, ed25519Program } from '../../src/chains/solana/intentGatewayProgram.ts'
import { createSolanaRuntime } from '../../src/chains/solana/solanaRuntime.ts'
import type { Intent, IntentAccountMeta } from '../../src/ports/intent.ts'
import { type SolanaSvm, type SvmOutcome, startSolanaSvm } from '../support/solanaSvm.ts'

const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x))
const now = 1_750_000_000n
const policyId = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
const keyBytes = (address: Address) => Uint8Array.from(getAddressEncoder().encode(address))
const hashBytes = (hex: `0x${string}`) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8)
  b.writeBigUint64LE(n)
  return b.toString('hex')
}

/** The instructions sysvar's layout: count, offsets, each (accounts, program id, data), current index. */
function instructionsSysvarData(instructions: { programId: Address; data: Uint8Array }[], current: number): Uint8Array {
  const bodies = instructions.map(({ programId, data }) => {
    const length = Buffer.alloc(2)
    length.writeUint16LE(data.length)
    return Buffer.concat([Buffer.from([0, 0]), Buffer.from(keyBytes(programId)), length, Buffer.from(data)])
  })
  const head = Buffer.alloc(2 + 2 * instructions.length)
  head.writeUint16LE(instructions.length, 0)
  let at = head.length
  bodies.forEach((body, i) => {
    head.writeUint16LE(at, 2 + 2 * i)
    at += body.length
  })
  const tail = Buffer.alloc(2)
  tail.writeUint16LE(current)
  return Uint8Array.from(Buffer.concat([head, ...bodies, tail]))
}

describe('probe target artifacts', () => {
  for (const version of sbpfVersions) {
    it(`are exactly what programs/solana/probe_target.c builds to as SBPF ${version}`, () => {
      assert.ok(
        Buffer.from(buildSolanaProgram({ name: 'probe_target', version })).equals(
          readFileSync(solanaProgramFile('probe_target', version)),
        ),
      )
    })
  }
})

// The same tests against both builds of the same source: the v3 one under SIMD-0500 and the v0 one
// without it must give the same results.
for (const version of sbpfVersions) {
  describe(`Solana program: signed execute and cancel (SBPF ${version})`, () => {
    let s: SolanaSvm
    let sender: KeyPairSigner
    let delegate: KeyPairSigner
    let stranger: KeyPairSigner
    let relayer: KeyPairSigner
    let recipient: Address
    let config: Address
    let otherConfig: Address
    let vault: Address
    let nonceCounter = 100n
    const cluster = new Uint8Array(32).fill(5)

    before(async () => {
      s = await startSolanaSvm({ version })
      s.setTime(now)
      sender = await s.funded()
      relayer = await s.funded()
      stranger = await s.funded()
      delegate = await generateKeyPairSigner()
      recipient = (await s.funded(1n)).address
      assert.ok((await s.send([await s.program.initConfig(s.authority, cluster)], s.authority)).ok)
      config = await s.program.configAddress(cluster)
      // One config per program and cluster: another cluster's config cannot be added here.
      const otherCluster = new Uint8Array(32).fill(6)
      const second = await s.send([await s.program.initConfig(s.authority, otherCluster)], s.authority)
      assert.ok(!second.ok && second.custom === 8, show(second))
      otherConfig = await s.program.configAddress(otherCluster)
      const policies = [
        {
          policyId: policyId(1),
          maxValuePerTx: 1_000_000_000n,
          maxAggregateValue: 5_000_000_000n,
          delegates: [delegate.address],
        },
        {
          policyId: policyId(2),
          maxValuePerTx: 1_000n,
          maxAggregateValue: 1_500n,
          allowedTargets: [s.probeId],
          allowedPrefixes: ['0x00' as const],
        },
      ]
      for (const p of policies) assert.ok((await s.send([await s.program.setPolicy(sender, p)], sender)).ok)
      assert.ok((await s.send([await s.program.deposit(sender, 2_000_000_000n)], sender)).ok)
      vault = await s.program.vaultAddress(sender.address)
    })

    const intent = (overrides: Partial<Intent> = {}): Intent => ({
      sender: sender.address,
      target: s.probeId,
      data: '0x00cafe',
      value: 0n,
      nonce: nonceCounter++,
      validAfter: 0n,
      validBefore: 0n,
      policyId: policyId(1),
      accounts: [{ address: recipient, signer: false, writable: true }],
      ...overrides,
    })
    const hashOf = (i: Intent, cfg = config, programId = s.programId) =>
      createSolanaRuntime({ programId, config: cfg }).hashIntent(i)
    async function signed(
      i: Intent,
      by: KeyPairSigner = sender,
      cfg = config,
      programId = s.programId,
    ): Promise<Instruction> {
      const message = hashBytes(hashOf(i, cfg, programId))
      return ed25519Instruction(keyBytes(by.address), await signBytes(by.keyPair.privateKey, message), message)
    }
    async function execute(
      i: Intent,
      options: {
        by?: KeyPairSigner
        signature?: Instruction
        sysvar?: Address
        accounts?: Address[]
        extra?: Instruction[]
      } = {},
    ) {
      const ed = options.signature ?? (await signed(i, options.by))
      return s.send([ed, await s.program.execute(i, config, options), ...(options.extra ?? [])], relayer)
    }

    /** Every balance and account an execute may touch, to compare before and after a refusal. */
    async function snapshot(i: Intent) {
      const nonce = await s.program.nonceAddress(sender.address, i.nonce)
      const policy = s.svm.getAccount(await s.program.policyAddress(sender.address, i.policyId))
      return {
        vault: s.balance(vault),
        recipient: s.balance(recipient),
        sender: s.balance(sender.address),
        nonce: s.svm.getAccount(nonce).exists,
        spent: policy.exists ? s.program.decodePolicy(Uint8Array.from(policy.data))?.spent : undefined,
        relayer: s.balance(relayer.address),
      }
    }
    async function assertRefused(
      i: Intent,
      attempt: () => Promise<SvmOutcome>,
      custom: number | undefined,
      logIncludes?: string,
    ) {
      const before = await snapshot(i)
      const r = await attempt()
      assert.equal(r.ok, false, `expected a refusal: ${show(r)}`)
      if (!r.ok) {
        assert.equal(r.custom, custom, `${r.error}\n${r.logs.join('\n')}`)
        if (logIncludes)
          assert.ok(
            r.logs.some((l) => l.includes(logIncludes)),
            r.logs.join('\n'),
          )
      }
      const after = await snapshot(i)
      // LiteSVM charges nothing for a failed transaction; a validator would charge the relayer its fee.
      assert.deepEqual({ ...after, relayer: undefined }, { ...before, relayer: undefined })
      assert.ok(before.relayer - after.relayer <= 10_000n, 'the relayer lost more than a fee')
    }

    it('executes a signed intent once: the value goes to the first account, the record and its rent come from the vault, the hash is logged', async () => {
      const i = intent({ value: 1_000n })
      const before = await snapshot(i)
      const r = await execute(i)
      assert.ok(r.ok, show(r))
      assert.ok(r.logs.includes(`Program log: intent hash ${hashOf(i)}`), r.logs.join('\n'))
      assert.ok(r.logs.includes('Program log: probe: echo'), r.logs.join('\n'))
      assert.deepEqual([...r.returnData], [0xca, 0xfe])
      const after = await snapshot(i)
      const rent = s.svm.minimumBalanceForRentExemption(48n)
      assert.equal(after.recipient - before.recipient, 1_000n)
      assert.equal(before.vault - after.vault, 1_000n + rent)
      assert.equal(after.spent! - before.spent!, 1_000n)
      assert.equal(before.relayer - after.relayer, 10_000n, "the relayer pays two signatures' fees and nothing else")
      const record = s.svm.getAccount(await s.program.nonceAddress(sender.address, i.nonce))
      assert.ok(record.exists)
      assert.equal(record.programAddress, s.programId)
      assert.equal(s.svm.getBalance(record.address), rent)
      assert.deepEqual(s.program.decodeNonceRecord(record.data)?.state, 'executed')
      assert.equal(s.program.decodeNonceRecord(record.data)?.intentHash, hashOf(i))

      // Once: the same intent and signature again (a replay) is NONCE_USED.
      await assertRefused(i, () => execute(i), 0x22)
      const validate = await s.simulate([await s.program.validate(i, config)], relayer)
      assert.ok(validate.ok && validate.returnData[0] === 0x22)
    })

    it('accepts a delegate of the policy, and a signature whose offsets name its own instruction index', async () => {
      assert.ok((await execute(intent(), { by: delegate })).ok)
      const i = intent()
      const message = hashBytes(hashOf(i))
      const ed = ed25519Instruction(
        keyBytes(sender.address),
        await signBytes(sender.keyPair.privateKey, message),
        message,
        { instructionIndex: 0 },
      )
      assert.ok((await execute(i, { signature: ed })).ok)
    })

    it("refuses a stranger's signature, a signature of another intent, and a replay of a signature on another nonce (0xE4)", async () => {
      const i = intent({ value: 10n })
      await assertRefused(i, () => execute(i, { by: stranger }), 0xe4)
      // A stranger's key with the sender's valid signature is not a signature at all: the Ed25519 program refuses it.
      const other = intent({ value: 10n })
      await assertRefused(i, async () => execute(i, { signature: await signed(other) }), 0xe4)
      const executed = intent()
      assert.ok((await execute(executed)).ok)
      const replay = { ...executed, nonce: nonceCounter++ }
      await assertRefused(replay, async () => execute(replay, { signature: await signed(executed) }), 0xe4)
    })

    it("refuses a signature made for another deployment (another cluster's config, another program)", async () => {
      const i = intent({ value: 10n })
      await assertRefused(i, async () => execute(i, { signature: await signed(i, sender, otherConfig) }), 0xe4)
      await assertRefused(
        i,
        async () => execute(i, { signature: await signed(i, sender, config, (await generateKeyPairSigner()).address) }),
        0xe4,
      )
      // The other cluster's bytes with their own signature name a config this cluster does not have: Custom(7).
      await assertRefused(
        i,
        async () => s.send([await signed(i, sender, otherConfig), await s.program.execute(i, otherConfig)], relayer),
        7,
      )
    })

    it('refuses a swapped account meta: in the signed bytes (0xE4) or only in the accounts passed (Custom(4))', async () => {
      const thief = (await generateKeyPairSigner()).address
      const i = intent({ value: 500n })
      const swapped: Intent = { ...i, accounts: [{ address: thief, signer: false, writable: true }] }
      await assertRefused(i, async () => execute(swapped, { signature: await signed(i) }), 0xe4)
      await assertRefused(i, () => execute(i, { accounts: [thief] }), 4)
      assert.equal(s.balance(thief), 0n)
    })

    it('refuses a meta that asks the relayer (or anyone but the vault) to sign: Custom(13)', async () => {
      // The system program's transfer of the relayer's lamports, with the relayer's signature borrowed from the transaction.
      const system = '11111111111111111111111111111111' as Address
      const accounts: IntentAccountMeta[] = [
        { address: relayer.address, signer: true, writable: true },
        { address: sender.address, signer: false, writable: true },
      ]
      const i = intent({ target: system, data: `0x02000000${u64(1_000_000n)}`, accounts })
      await assertRefused(i, () => execute(i), 13)
    })

    it('refuses a cancelled nonce (0x22); only the sender cancels, once', async () => {
      const i = intent({ value: 10n })
      const notSender = await s.send([await s.program.cancel(stranger, i.nonce)], stranger)
      assert.ok(notSender.ok, 'a stranger cancels only their own nonce')
      assert.ok((await s.send([await s.program.cancel(sender, i.nonce)], sender)).ok)
      const record = s.svm.getAccount(await s.program.nonceAddress(sender.address, i.nonce))
      assert.ok(record.exists)
      assert.equal(s.program.decodeNonceRecord(record.data)?.state, 'cancelled')
      await assertRefused(i, () => execute(i), 0x22)
      const again = await s.send([await s.program.cancel(sender, i.nonce)], sender)
      assert.ok(!again.ok && again.custom === 0x22, show(again))
      // A signer who is not the nonce's sender cannot cancel it: the record address is the sender's.
      const forged = await s.program.cancel(stranger, i.nonce + 1n)
      const accounts = [...forged.accounts!]
      accounts[1] = { ...accounts[1]!, address: await s.program.nonceAddress(sender.address, i.nonce + 1n) }
      const r = await s.send([{ ...forged, accounts }], stranger)
      assert.ok(!r.ok && r.custom === 4, show(r))
    })

    it('refuses target = the program itself (0x10), in validate as well', async () => {
      const i = intent({ target: s.programId, data: '0x03', accounts: [] })
      await assertRefused(i, () => execute(i), 0x10)
      const v = await s.simulate([await s.program.validate(i, config)], relayer)
      assert.ok(v.ok && v.returnData[0] === 0x10, show(v))
    })

    it("refuses a target that tries to take more than the value from the vault, directly or with the vault's signature", async () => {
      const thief = await s.funded(1n)
      const steal = intent({
        value: 0n,
        data: `0x01${u64(1_000_000n)}`,
        accounts: [
          { address: vault, signer: false, writable: true },
          { address: thief.address, signer: false, writable: true },
        ],
      })
      await assertRefused(steal, () => execute(steal), undefined, 'probe: steal')
      const transfer = intent({
        value: 0n,
        data: `0x02${u64(1_000_000n)}`,
        accounts: [
          { address: vault, signer: true, writable: true },
          { address: thief.address, signer: false, writable: true },
        ],
      })
      await assertRefused(transfer, () => execute(transfer), undefined, 'probe: transfer')
      assert.equal(s.balance(thief.address), 1_000_000_000n)
    })

    it('refuses a spoofed instructions sysvar (Custom(4)), even one that forges a valid-looking Ed25519 instruction', async () => {
      const i = intent({ value: 10n })
      const fake = (await generateKeyPairSigner()).address
      // What the real sysvar would hold if an Ed25519 instruction with the sender's key, the hash
      // and a made-up signature had run right before ours (index 1): it never ran.
      const message = hashBytes(hashOf(i))
      const forged = ed25519Instruction(keyBytes(sender.address), new Uint8Array(64), message).data as Uint8Array
      const data = instructionsSysvarData(
        [
          { programId: ed25519Program, data: forged },
          { programId: s.programId, data: Uint8Array.of(5) },
        ],
        1,
      )
      s.svm.setAccount({
        address: fake,
        programAddress: '11111111111111111111111111111111' as Address,
        executable: false,
        lamports: lamports(10_000_000n),
        data,
        space: BigInt(data.length),
      } as never)
      const echo: Instruction = { programAddress: s.probeId, accounts: [], data: Uint8Array.of(0) }
      await assertRefused(
        i,
        async () => s.send([echo, await s.program.execute(i, config, { sysvar: fake })], relayer),
        4,
      )
    })

    it('refuses an Ed25519 instruction whose offsets point into another instruction, or that is missing (0xE4)', async () => {
      const i = intent({ value: 10n })
      const message = hashBytes(hashOf(i))
      // Instruction 2 carries a stranger's valid signature of the hash; the Ed25519 instruction's
      // own bytes hold the sender's key and the hash, with no valid signature over them.
      const elsewhere = ed25519Instruction(
        keyBytes(stranger.address),
        await signBytes(stranger.keyPair.privateKey, message),
        message,
      )
      const carrier: Instruction = { programAddress: s.probeId, accounts: [], data: elsewhere.data! }
      const pointing = ed25519Instruction(keyBytes(sender.address), new Uint8Array(64), message, {
        instructionIndex: 2,
      })
      await assertRefused(i, async () => s.send([pointing, await s.program.execute(i, config), carrier], relayer), 0xe4)
      // No Ed25519 instruction at all, or ours first in the transaction.
      await assertRefused(
        i,
        async () =>
          s.send(
            [{ programAddress: s.probeId, accounts: [], data: Uint8Array.of(0) }, await s.program.execute(i, config)],
            relayer,
          ),
        0xe4,
      )
      await assertRefused(i, async () => s.send([await s.program.execute(i, config)], relayer), 0xe4)
    })

    it('refuses what validate refuses, with its status: an expired intent (0x21), a value above the cap (0x54), a value without a recipient (Custom(14))', async () => {
      const late = intent({ validBefore: now - 10n })
      await assertRefused(late, () => execute(late), 0x21)
      const much = intent({ value: 2_000_000_000n })
      await assertRefused(much, () => execute(much), 0x54)
      const nowhere = intent({ value: 5n, accounts: [] })
      await assertRefused(nowhere, () => execute(nowhere), 14)
      const narrow = intent({ policyId: policyId(2), value: 1_000n })
      assert.ok((await execute(narrow)).ok)
      const overAggregate = intent({ policyId: policyId(2), value: 1_000n })
      await assertRefused(overAggregate, () => execute(overAggregate), 0x54)
    })
  })
}
