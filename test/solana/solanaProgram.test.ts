// The Solana program in a real SVM (LiteSVM): the committed .so is what the C source builds to,
// validate answers every status with IntentValidator.sol's precedence, and only owners create
// policies and withdraw from vaults.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { before, describe, it } from 'node:test'
import { AccountRole, type Address, generateKeyPairSigner, type KeyPairSigner, lamports } from '@solana/kit'
import { buildSolanaProgram, sbpfVersions, solanaProgramFile } from '../../scripts/buildSolanaProgram.ts'
import { canonicalIntentBytes } from '../../src/chains/solana/canonicalIntentBytes.ts'
import { createSolanaRuntime } from '../../src/chains/solana/solanaRuntime.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { type SolanaSvm, startSolanaSvm } from '../support/solanaSvm.ts'

const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x))
const now = 1_750_000_000n
const policyId = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const

describe('Solana program artifacts', () => {
  for (const version of sbpfVersions) {
    it(`${version === 'v3' ? 'intent_gateway.so' : `intent_gateway.${version}.so`} is exactly what programs/solana/intent_gateway.c builds to as SBPF ${version} (run npx tsx scripts/buildSolanaProgram.ts after a change)`, () => {
      const rebuilt = buildSolanaProgram({ version })
      const committed = readFileSync(solanaProgramFile('intent_gateway', version))
      assert.equal(rebuilt.length, committed.length, 'size differs')
      assert.ok(Buffer.from(rebuilt).equals(committed), 'bytes differ')
      assert.equal(committed.readUInt32LE(48), version === 'v3' ? 3 : 0, 'e_flags')
    })
  }
})

// The same tests against both builds of the same source: the v3 one under SIMD-0500 and the v0 one
// without it must give the same results.
for (const version of sbpfVersions) {
  describe(`Solana program in LiteSVM (SBPF ${version})`, () => {
    let s: SolanaSvm
    let sender: KeyPairSigner
    let other: KeyPairSigner
    let config: Address
    let target: Address
    let otherTarget: Address
    const cluster = new Uint8Array(32).fill(3)

    before(async () => {
      s = await startSolanaSvm({ version })
      s.setTime(now)
      sender = await s.funded()
      other = await s.funded()
      target = (await generateKeyPairSigner()).address
      otherTarget = (await generateKeyPairSigner()).address
      const init = await s.send([await s.program.initConfig(s.authority, cluster)], s.authority)
      assert.ok(init.ok, show(init))
      config = await s.program.configAddress(cluster)
      // open: anything up to 1 SOL a time; narrow: one target, one prefix, tight caps.
      const policies = [
        { policyId: policyId(1), maxValuePerTx: 1_000_000_000n, maxAggregateValue: 5_000_000_000n },
        {
          policyId: policyId(2),
          maxValuePerTx: 100n,
          maxAggregateValue: 150n,
          allowedTargets: [target],
          allowedPrefixes: ['0xa1b2c3d4' as const],
        },
        { policyId: policyId(3), maxValuePerTx: 100n, maxAggregateValue: 100n, validAfter: now + 3600n },
        { policyId: policyId(4), maxValuePerTx: 100n, maxAggregateValue: 100n, validBefore: now - 1n },
      ]
      for (const p of policies) {
        const r = await s.send([await s.program.setPolicy(sender, p)], sender)
        assert.ok(r.ok, show(r))
      }
      const d = await s.send([await s.program.deposit(sender, 2_000_000_000n)], sender)
      assert.ok(d.ok, show(d))
    })

    const intent = (overrides: Partial<Intent> = {}): Intent => ({
      sender: sender.address,
      target,
      data: '0xa1b2c3d4ff',
      value: 0n,
      nonce: 1n,
      validAfter: 0n,
      validBefore: 0n,
      policyId: policyId(1),
      ...overrides,
    })

    async function validate(i: Intent) {
      const r = await s.simulate([await s.program.validate(i, config)], other)
      assert.ok(r.ok, `validate failed: ${show(r)}`)
      assert.equal(r.returnData.length, 1)
      return r.returnData[0]
    }

    it('answers 0x01 for an intent its policy allows, and logs keccak256 of the canonical bytes', async () => {
      const i = intent({ value: 5n })
      const r = await s.simulate([await s.program.validate(i, config)], other)
      assert.ok(r.ok)
      assert.deepEqual([...r.returnData], [0x01])
      const expected = createSolanaRuntime({ programId: s.programId, config }).hashIntent(i)
      assert.ok(r.logs.includes(`Program log: intent hash ${expected}`), r.logs.join('\n'))
      assert.equal(canonicalIntentBytes(i, { programId: s.programId, config }).length, 220 + 4 + 5)
    })

    it('answers 0x22 when the nonce record exists, before anything else (even a missing policy)', async () => {
      const [address, bump] = await (async () => {
        const { getProgramDerivedAddress, getAddressEncoder } = await import('@solana/kit')
        const nonce = new Uint8Array(8)
        new DataView(nonce.buffer).setBigUint64(0, 77n, true)
        return getProgramDerivedAddress({
          programAddress: s.programId,
          seeds: ['nonce', getAddressEncoder().encode(sender.address), nonce],
        })
      })()
      assert.equal(address, await s.program.nonceAddress(sender.address, 77n))
      s.svm.setAccount({
        address,
        programAddress: s.programId,
        executable: false,
        lamports: lamports(1_000_000n),
        data: s.program.nonceRecord(bump, new Uint8Array(32), 1n),
        space: 48n,
      } as never)
      assert.equal(await validate(intent({ nonce: 77n })), 0x22)
      assert.equal(await validate(intent({ nonce: 77n, policyId: policyId(999) })), 0x22)
      // A record the program does not own means nothing.
      s.svm.setAccount({
        address,
        programAddress: '11111111111111111111111111111111' as Address,
        executable: false,
        lamports: lamports(1_000_000n),
        data: s.program.nonceRecord(bump, new Uint8Array(32), 1n),
        space: 48n,
      } as never)
      assert.equal(await validate(intent({ nonce: 77n })), 0x01)
    })

    it('answers 0x10 for a policy that does not exist, or that belongs to someone else', async () => {
      assert.equal(await validate(intent({ policyId: policyId(999) })), 0x10)
      // The policy PDA is derived from the sender: another sender naming policy 1 finds none.
      assert.equal(await validate(intent({ sender: other.address })), 0x10)
    })

    it('refuses a policy account the program does not own, whatever it holds', async () => {
      const forged = await s.program.policyAddress(other.address, policyId(1))
      const real = s.svm.getAccount(await s.program.policyAddress(sender.address, policyId(1)))
      assert.ok(real.exists)
      // A byte-for-byte copy of a valid policy, rewritten for `other`, but owned by the system program.
      const data = Uint8Array.from(real.data)
      data.set(new Uint8Array(Buffer.from((await import('@solana/kit')).getAddressEncoder().encode(other.address))), 8)
      s.svm.setAccount({
        address: forged,
        programAddress: '11111111111111111111111111111111' as Address,
        executable: false,
        lamports: lamports(10_000_000n),
        data,
        space: BigInt(data.length),
      } as never)
      assert.equal(s.program.decodePolicy(data)?.owner, other.address)
      assert.equal(await validate(intent({ sender: other.address })), 0x10)
    })

    it('answers 0x20 before the intent or the policy opens (strictly after validAfter), ahead of later checks', async () => {
      assert.equal(await validate(intent({ validAfter: now })), 0x20)
      assert.equal(await validate(intent({ validAfter: now - 1n })), 0x01)
      assert.equal(await validate(intent({ policyId: policyId(3) })), 0x20)
      // Too early wins over too late, a disallowed target and an unpayable value.
      assert.equal(
        await validate(
          intent({ validAfter: now + 10n, validBefore: now - 10n, target: otherTarget, value: 10n ** 18n }),
        ),
        0x20,
      )
    })

    it('answers 0x21 at and after validBefore (intent or policy), ahead of target and value checks', async () => {
      assert.equal(await validate(intent({ validBefore: now })), 0x21)
      assert.equal(await validate(intent({ validBefore: now + 1n })), 0x01)
      assert.equal(await validate(intent({ policyId: policyId(4) })), 0x21)
      assert.equal(await validate(intent({ validBefore: now - 5n, target: otherTarget, value: 10n ** 18n })), 0x21)
    })

    it('answers 0x10 for a target or instruction-data prefix the policy does not allow, ahead of value checks', async () => {
      const narrow = { policyId: policyId(2) }
      assert.equal(await validate(intent({ ...narrow, value: 10n })), 0x01)
      assert.equal(await validate(intent({ ...narrow, target: otherTarget })), 0x10)
      assert.equal(await validate(intent({ ...narrow, data: '0xa1b2c3d5' })), 0x10)
      assert.equal(await validate(intent({ ...narrow, data: '0xa1b2c3' })), 0x10)
      assert.equal(await validate(intent({ ...narrow, data: '0x' })), 0x10)
      assert.equal(await validate(intent({ ...narrow, target: otherTarget, value: 10n ** 18n })), 0x10)
    })

    it('answers 0x54 above the per-transaction cap, the aggregate cap, or the vault balance', async () => {
      const narrow = { policyId: policyId(2) }
      assert.equal(await validate(intent({ ...narrow, value: 100n })), 0x01)
      assert.equal(await validate(intent({ ...narrow, value: 101n })), 0x54)
      // Spending so far counts against the aggregate cap (part 2's execute records it).
      const address = await s.program.policyAddress(sender.address, policyId(2))
      const account = s.svm.getAccount(address)
      assert.ok(account.exists)
      const data = Uint8Array.from(account.data)
      new DataView(data.buffer).setBigUint64(88, 60n, true)
      s.svm.setAccount({ ...account, data } as never)
      assert.equal(s.program.decodePolicy(data)?.spent, 60n)
      assert.equal(await validate(intent({ ...narrow, value: 90n })), 0x01)
      assert.equal(await validate(intent({ ...narrow, value: 91n })), 0x54)
      // u64 max cannot overflow into an allowed answer.
      assert.equal(await validate(intent({ value: 2n ** 64n - 1n })), 0x54)
      // The vault holds 2 SOL above its rent; the open policy allows 1 SOL a time.
      assert.equal(await validate(intent({ value: 1_000_000_000n })), 0x01)
      const poor = await s.funded()
      const poorPolicy = await s.send(
        [
          await s.program.setPolicy(poor, {
            policyId: policyId(1),
            maxValuePerTx: 10n ** 12n,
            maxAggregateValue: 10n ** 12n,
          }),
        ],
        poor,
      )
      assert.ok(poorPolicy.ok)
      assert.equal(await validate(intent({ sender: poor.address, value: 1n })), 0x54, 'no vault at all')
      assert.equal(await validate(intent({ sender: poor.address, value: 0n })), 0x01, 'nothing to pay')
      assert.ok((await s.send([await s.program.deposit(poor, 500n)], poor)).ok)
      assert.equal(await validate(intent({ sender: poor.address, value: 500n })), 0x01)
      assert.equal(await validate(intent({ sender: poor.address, value: 501n })), 0x54)
    })

    it('fails validate bound to another deployment or given the wrong accounts', async () => {
      const otherConfig = await s.program.configAddress(new Uint8Array(32).fill(9))
      const wrong = await s.simulate([await s.program.validate(intent(), otherConfig)], other)
      assert.equal(wrong.ok, false)
      assert.equal(!wrong.ok && wrong.custom, 7)
      const ix = await s.program.validate(intent(), config)
      const swapped = { ...ix, accounts: [ix.accounts![0]!, ix.accounts![2]!, ix.accounts![1]!, ix.accounts![3]!] }
      const r = await s.simulate([swapped], other)
      assert.equal(!r.ok && r.custom, 4)
    })

    it('lets only the owner create or change a policy', async () => {
      // Someone else cannot sign for the owner's PDA...
      const ix = await s.program.setPolicy(other, { policyId: policyId(50), maxValuePerTx: 1n, maxAggregateValue: 1n })
      const victimPolicy = await s.program.policyAddress(sender.address, policyId(50))
      const theft = await s.send(
        [
          {
            ...ix,
            accounts: [ix.accounts![0]!, { address: victimPolicy, role: AccountRole.WRITABLE }, ix.accounts![2]!],
          },
        ],
        other,
      )
      assert.equal(!theft.ok && theft.custom, 4)
      // ...nor name the owner without the owner's signature.
      const unsigned = await s.send(
        [
          {
            ...ix,
            accounts: [
              { address: sender.address, role: AccountRole.WRITABLE },
              { address: victimPolicy, role: AccountRole.WRITABLE },
              ix.accounts![2]!,
            ],
          },
        ],
        other,
      )
      assert.equal(!unsigned.ok && unsigned.custom, 3)
      assert.equal(s.svm.getAccount(victimPolicy).exists, false)
      // The owner can, and the account is the program's.
      const ok = await s.send(
        [
          await s.program.setPolicy(sender, {
            policyId: policyId(50),
            maxValuePerTx: 7n,
            maxAggregateValue: 9n,
            allowedTargets: [target],
            delegates: [other.address],
          }),
        ],
        sender,
      )
      assert.ok(ok.ok)
      const stored = s.svm.getAccount(victimPolicy)
      assert.ok(stored.exists)
      assert.equal(stored.programAddress, s.programId)
      const policy = s.program.decodePolicy(stored.data)!
      assert.equal(policy.owner, sender.address)
      assert.deepEqual(
        [policy.maxValuePerTx, policy.maxAggregateValue, policy.allowedTargets, policy.delegates],
        [7n, 9n, [target], [other.address]],
      )
      // An update keeps the owner and rewrites the rules.
      assert.ok(
        (
          await s.send(
            [await s.program.setPolicy(sender, { policyId: policyId(50), maxValuePerTx: 8n, maxAggregateValue: 9n })],
            sender,
          )
        ).ok,
      )
      assert.deepEqual(
        s.program.decodePolicy(
          s.svm.getAccount(victimPolicy).exists
            ? (s.svm.getAccount(victimPolicy) as { data: Uint8Array }).data
            : new Uint8Array(),
        )?.allowedTargets,
        [],
      )
    })

    it('creates a policy or a vault even where someone sent lamports first to block it', async () => {
      const victim = await s.funded()
      const system = '11111111111111111111111111111111' as Address
      const policy = await s.program.policyAddress(victim.address, policyId(60))
      const vault = await s.program.vaultAddress(victim.address)
      for (const address of [policy, vault])
        s.svm.setAccount({
          address,
          programAddress: system,
          executable: false,
          lamports: lamports(2_000_000n),
          data: new Uint8Array(),
          space: 0n,
        } as never)
      const created = await s.send(
        [await s.program.setPolicy(victim, { policyId: policyId(60), maxValuePerTx: 1n, maxAggregateValue: 1n })],
        victim,
      )
      assert.ok(created.ok, show(created))
      const stored = s.svm.getAccount(policy)
      assert.ok(stored.exists)
      assert.equal(stored.programAddress, s.programId)
      assert.equal(s.program.decodePolicy(stored.data)?.owner, victim.address)
      assert.equal(stored.lamports, s.svm.minimumBalanceForRentExemption(576n), 'topped up to rent exemption')
      assert.ok((await s.send([await s.program.deposit(victim, 1_000n)], victim)).ok)
      const v = s.svm.getAccount(vault)
      assert.ok(v.exists)
      assert.equal(v.programAddress, s.programId)
      // The reserve is the rent; whatever was sent beforehand counts as deposit.
      const reserve = s.svm.minimumBalanceForRentExemption(48n)
      assert.equal(v.lamports, 2_000_000n > reserve + 1_000n ? 2_000_000n : reserve + 1_000n)
      assert.ok((await s.send([await s.program.withdraw(victim, v.lamports - reserve)], victim)).ok)
      assert.equal(!(await s.send([await s.program.withdraw(victim, 1n)], victim)).ok, true)
    })

    it('lets only the vault owner withdraw, and never more than the deposit', async () => {
      const vault = await s.program.vaultAddress(sender.address)
      const before = s.balance(vault)
      const theft = await s.send([await s.program.withdraw(other, 1_000n, sender.address)], other)
      assert.equal(!theft.ok && theft.custom, 4)
      // The right PDA but a signer who is not its owner: the same refusal.
      const ix = await s.program.withdraw(sender, 1_000n)
      const unsigned = await s.send(
        [{ ...ix, accounts: [{ address: sender.address, role: AccountRole.WRITABLE }, ix.accounts![1]!] }],
        other,
      )
      assert.equal(!unsigned.ok && unsigned.custom, 3)
      assert.equal(s.balance(vault), before)
      const tooMuch = await s.send([await s.program.withdraw(sender, 2_000_000_001n)], sender)
      assert.equal(!tooMuch.ok && tooMuch.custom, 6)
      const senderBefore = s.balance(sender.address)
      const ok = await s.send([await s.program.withdraw(sender, 1_000_000_000n)], sender)
      assert.ok(ok.ok, show(ok))
      assert.equal(s.balance(vault), before - 1_000_000_000n)
      assert.equal(s.balance(sender.address), senderBefore + 1_000_000_000n - 5000n)
    })
  })
}
