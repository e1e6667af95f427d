// Deploying like a real cluster: the program goes in through Loader V3 (buffer, writes,
// DeployWithMaxDataLen), and only its upgrade authority may initialise the deployment config,
// since deploying and initialising are two transactions.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { AccountRole, type Address, getAddressEncoder, getProgramDerivedAddress } from '@solana/kit'
import { solanaProgramFile } from '../scripts/buildSolanaProgram.ts'
import { loaderV3 } from '../src/devnet/solana/deployWithLoaderV3.ts'
import { startSolanaSvm } from './support/solanaSvm.ts'

const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x))
const cluster = new Uint8Array(32).fill(9)
const programDataOf = async (programId: Address) => (await getProgramDerivedAddress({ programAddress: loaderV3, seeds: [getAddressEncoder().encode(programId)] }))[0]

describe('init_config after a Loader V3 deployment', () => {
  it('is refused to anyone but the program\'s upgrade authority (Custom(17)) and given another program\'s data (Custom(4)); the authority initialises', async () => {
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
    const withOtherData = { ...init, accounts: init.accounts!.map((a, i) => (i === 5 ? { address: strangersData, role: AccountRole.READONLY } : a)) }
    const forged = await s.send([withOtherData], stranger)
    assert.ok(!forged.ok && forged.custom === 4, show(forged))
    const withOtherProgram = { ...init, accounts: init.accounts!.map((a, i) => (i === 4 ? { address: strangersProgram, role: AccountRole.READONLY } : i === 5 ? { address: strangersData, role: AccountRole.READONLY } : a)) }
    const forged2 = await s.send([withOtherProgram], stranger)
    assert.ok(!forged2.ok && forged2.custom === 4, show(forged2))
    assert.equal(s.svm.getAccount(config).exists, false, 'still no config')

    const byAuthority = await s.send([await s.program.initConfig(s.authority, cluster)], s.authority)
    assert.ok(byAuthority.ok, show(byAuthority))
    const created = s.svm.getAccount(config)
    assert.ok(created.exists && created.programAddress === s.programId, show(created))
  })
})
