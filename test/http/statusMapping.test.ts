// A gateway pointed at any validator with the origin ABI answers every one of the 256 codes as
// the table says: a programmable validator returns each code in turn, through real HTTP.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import solc from 'solc'
import { type Address, getAddress, type Hex, toHex } from 'viem'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { statusCodes } from '../../src/status/statusCodes.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { demoIntent, post, startTestGateway, startWorld, type TestGateway, type World } from '../support/testGateway.ts'

const source = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
struct Intent { address sender; address target; bytes data; uint256 value; uint256 nonce; uint256 validAfter; uint256 validBefore; bytes32 policyId; }
contract ProgrammableValidator {
    bytes1 public answer;
    function setAnswer(bytes1 a) external { answer = a; }
    function canExecute(Intent calldata) external view returns (bytes1) { return answer; }
}`

function compile() {
  const input = {
    language: 'Solidity',
    sources: { 'P.sol': { content: source } },
    settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input)))
  const c = out.contracts['P.sol'].ProgrammableValidator
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex }
}

describe('every ERC-1066 code through a programmable validator', () => {
  let world: World
  let gateway: TestGateway
  let validator: Address
  let abi: unknown[]

  before(async () => {
    world = await startWorld()
    const compiled = compile()
    abi = compiled.abi
    const wallet = world.clients.walletFor(devnetAccounts.relayer)
    const hash = await wallet.deployContract({
      abi: compiled.abi,
      bytecode: compiled.bytecode,
      account: wallet.account!,
      chain: wallet.chain,
    })
    validator = getAddress((await world.clients.publicClient.waitForTransactionReceipt({ hash })).contractAddress!)
    gateway = await startTestGateway({ chains: [{ ...world.devnet.chain, validator }] })
  })
  after(async () => {
    await gateway?.close()
    await world?.stop()
  })

  it("maps all 256 codes to the table's HTTP status, with the code in the headers", async () => {
    const wallet = world.clients.walletFor(devnetAccounts.relayer)
    const seen: number[] = []
    for (const entry of statusCodes) {
      const hash = await wallet.writeContract({
        address: validator,
        abi: abi as never,
        functionName: 'setAnswer' as never,
        args: [toHex(entry.code, { size: 1 })] as never,
        account: wallet.account!,
        chain: wallet.chain,
      })
      await world.clients.publicClient.waitForTransactionReceipt({ hash })
      const res = await post(gateway.baseUrl, '/intents/validate', demoIntent(world.devnet))
      assert.equal(res.status, entry.httpStatus, `${entry.hex} ${entry.statusName}`)
      assertCommonHeaders(res, { status: entry.hex })
      assert.equal(res.body.erc1066Status, entry.hex)
      assert.equal(res.body.statusName, entry.statusName)
      assert.equal(
        res.headers.get('content-type')!.split(';')[0],
        entry.httpStatus >= 400 ? 'application/problem+json' : 'application/json',
      )
      seen.push(res.status)
    }
    assert.equal(seen.length, 256)
    // The seed's rows, spelled out once more at the HTTP boundary.
    const at = (code: number) => seen[code]
    assert.deepEqual(
      [at(0x01), at(0x11), at(0x20), at(0x54), at(0x10), at(0x21), at(0xa2)],
      [200, 200, 202, 402, 403, 410, 421],
    )
  })

  it('serves the same table at GET /status-codes', async () => {
    const res = await fetch(`${gateway.baseUrl}/status-codes`)
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('x-erc1066-status'), '0x01')
    const body = (await res.json()) as { codes: Array<{ code: string; httpStatus: number; statusName: string }> }
    assert.equal(body.codes.length, 256)
    assert.deepEqual(
      body.codes.map((c) => c.httpStatus),
      statusCodes.map((s) => s.httpStatus),
    )
    assert.deepEqual(body.codes[0xa2], {
      code: '0xA2',
      statusName: 'UNSUPPORTED_CHAIN',
      description: 'Unsupported chain or network',
      httpStatus: 421,
      reserved: false,
    })
  })
})
