// Deploying like a real cluster: the program goes in through Loader V3 (buffer, writes,
// DeployWithMaxDataLen) under SIMD-0500, which refuses every ELF but SBPF v3; and only its
// upgrade authority may initialise the deployment config, since deploying and initialising are
// two transactions.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import {
  AccountRole,
  type Address,
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  getProgramDerivedAddress,
} from '@solana/kit'
import { solanaProgramFile } from '../../scripts/buildSolanaProgram.ts'
import { loaderV3 } from '../../src/chains/solana/devnet/deployWithLoaderV3.ts'
import { startSolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { startSolanaSvm } from '../support/solanaSvm.ts'

const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x))
const cluster = new Uint8Array(32).fill(9)
const programDataOf = async (programId: Address) =>
  (await getProgramDerivedAddress({ programAddress: loaderV3, seeds: [getAddressEncoder().encode(programId)] }))[0]

describe('init_config after a Loader V3 deployment', () => {
  it("is refused to anyone but the program's upgrade authority (Custom(17)) and given another program's data (Custom(4)); the authority initialises", async () => {
    const s = await startSolanaSvm()
    const stranger = await s.funded(50n)
    const config = await s.program.configAddress(cluster)

    const byStranger = await s.send([await s.program.initConfig(stranger, cluster)], stranger)
    assert.ok(!byStranger.ok && byStranger.custom === 17, show(byStranger))
    assert.equal(s.svm.getAccount(config).exists, false, 'no config created')

    // The stranger's own program names the stranger as its authority, but it is not this program.
    const strangersProgram = await s.deploy(readFileSync(solanaProgramFile('probe_target')), stranger)
    const init = await s.program.initConfig(stranger, cluster)
    const strangersData = await programDataOf(strangersProgram)
    const withOtherData = {
      ...init,
      accounts: init.accounts!.map((a, i) => (i === 5 ? { address: strangersData, role: AccountRole.READONLY } : a)),
    }
    const forged = await s.send([withOtherData], stranger)
    assert.ok(!forged.ok && forged.custom === 4, show(forged))
    const withOtherProgram = {
      ...init,
      accounts: init.accounts!.map((a, i) =>
        i === 4
          ? { address: strangersProgram, role: AccountRole.READONLY }
          : i === 5
            ? { address: strangersData, role: AccountRole.READONLY }
            : a,
      ),
    }
    const forged2 = await s.send([withOtherProgram], stranger)
    assert.ok(!forged2.ok && forged2.custom === 4, show(forged2))
    assert.equal(s.svm.getAccount(config).exists, false, 'still no config')

    const byAuthority = await s.send([await s.program.initConfig(s.authority, cluster)], s.authority)
    assert.ok(byAuthority.ok, show(byAuthority))
    const created = s.svm.getAccount(config)
    assert.ok(created.exists && created.programAddress === s.programId, show(created))
  })

  it('is refused to everyone once the program is immutable (no upgrade authority left): initialise before finalizing', async () => {
    const s = await startSolanaSvm()
    // SetAuthority (4) with no new authority: the program data account, the current authority.
    const finalize = {
      programAddress: loaderV3,
      accounts: [
        { address: await programDataOf(s.programId), role: AccountRole.WRITABLE },
        { address: s.authority.address, role: AccountRole.READONLY_SIGNER, signer: s.authority },
      ],
      data: Uint8Array.of(4, 0, 0, 0),
    }
    const finalized = await s.send([finalize], s.authority)
    assert.ok(finalized.ok, show(finalized))
    const init = await s.send([await s.program.initConfig(s.authority, cluster)], s.authority)
    assert.ok(!init.ok && init.custom === 17, show(init))
  })
})

describe('Loader V3 under SIMD-0500', () => {
  it('refuses the v0 build (InvalidAccountData: the SBPF version is not enabled) and deploys the v3 build, which runs', async () => {
    const s = await startSolanaSvm({ version: 'v3' })
    assert.equal(s.svm.getAccount(s.programId).exists, true)
    await assert.rejects(
      s.deploy(readFileSync(solanaProgramFile('intent_gateway', 'v0')), s.authority),
      (err: Error) => {
        assert.match(err.message, /InvalidAccountData/)
        assert.match(err.message, /Detected sbpf_version required by the executable which are not enabled/)
        return true
      },
    )
    const v3 = await s.deploy(readFileSync(solanaProgramFile('intent_gateway', 'v3')), s.authority)
    const answered = await s.simulate(
      [await s.program.initConfig(s.authority, cluster)].map((ix) => ({ ...ix, programAddress: v3 })),
      s.authority,
    )
    // The v3 program ran and refused the accounts of another program id: Custom(4), not a load error.
    assert.ok(!answered.ok && answered.custom === 4, show(answered))
  })

  it('deploys the v0 build where SIMD-0500 is off', async () => {
    const s = await startSolanaSvm({ version: 'v0' })
    const programData = s.svm.getAccount(await programDataOf(s.programId))
    assert.ok(programData.exists)
    assert.equal(Buffer.from(programData.data).readUInt32LE(45 + 48), 0, 'e_flags of the deployed ELF')
  })

  it('the devnet deploys the v3 build through the loader at its fixed program id, upgradeable by the devnet authority', async () => {
    const devnet = await startSolanaDevnet()
    try {
      const { value: account } = await devnet.rpc.getAccountInfo(devnet.programId, { encoding: 'base64' }).send()
      assert.equal(account?.owner, loaderV3)
      assert.equal(account?.executable, true)
      const { value: data } = await devnet.rpc
        .getAccountInfo(await programDataOf(devnet.programId), { encoding: 'base64' })
        .send()
      const bytes = Buffer.from(data!.data[0], 'base64')
      assert.equal(bytes.readUInt32LE(0), 3, 'ProgramData')
      assert.equal(bytes[12], 1, 'an upgrade authority')
      assert.ok(
        bytes
          .subarray(45)
          .subarray(0, readFileSync(solanaProgramFile('intent_gateway')).length)
          .equals(readFileSync(solanaProgramFile('intent_gateway'))),
        'the committed v3 ELF',
      )
    } finally {
      await devnet.stop()
    }
  })
})

describe('v3 and v0 builds side by side', () => {
  it('answer the same statuses with the same logs and compute units at the same program id and keys', async () => {
    // Fixed keys: the compute units depend on how many bumps each PDA search tries.
    const key = (label: string) =>
      createKeyPairSignerFromPrivateKeyBytes(
        Uint8Array.from(createHash('sha256').update(`solana differential ${label}`).digest()),
      )
    const runs = []
    for (const version of ['v3', 'v0'] as const) {
      const s = await startSolanaSvm({ version, programKey: await key('program') })
      s.setTime(1_750_000_000n)
      const sender = await s.funded(10n, await key('sender'))
      const target = (await s.funded(1n, await key('target'))).address
      assert.ok((await s.send([await s.program.initConfig(s.authority, cluster)], s.authority)).ok)
      const config = await s.program.configAddress(cluster)
      const policyId = `0x${'11'.repeat(32)}` as const
      assert.ok(
        (
          await s.send(
            [
              await s.program.setPolicy(sender, {
                policyId,
                maxValuePerTx: 100n,
                maxAggregateValue: 150n,
                allowedTargets: [target],
                allowedPrefixes: ['0xa1b2'],
              }),
            ],
            sender,
          )
        ).ok,
      )
      assert.ok((await s.send([await s.program.deposit(sender, 1_000n)], sender)).ok)
      const base: Intent = {
        sender: sender.address,
        target,
        data: '0xa1b2ff',
        value: 5n,
        nonce: 1n,
        validAfter: 0n,
        validBefore: 0n,
        policyId,
      }
      const cases: Partial<Intent>[] = [
        {},
        { value: 101n },
        { data: '0xffff' },
        { target: sender.address },
        { validAfter: 1_800_000_000n },
        { validBefore: 1n },
      ]
      const outcomes = []
      for (const c of cases) {
        const r = await s.simulate([await s.program.validate({ ...base, ...c }, config)], sender)
        assert.ok(r.ok, show(r))
        outcomes.push({ status: r.returnData[0], computeUnits: r.computeUnits, logs: r.logs })
      }
      runs.push(outcomes)
    }
    assert.deepEqual(
      runs[0]!.map((o) => o.status),
      [0x01, 0x54, 0x10, 0x10, 0x20, 0x21],
    )
    assert.deepEqual(runs[0], runs[1])
  })
})
