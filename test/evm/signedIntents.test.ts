// Signed intents against the real contracts on anvil, through real HTTP: nobody but the sender (or
// a delegate it named for a policy) can make the relayer spend the sender's deposit. Each attack
// of issue 9 is here, and each asserts that balances, deposits and the relayer's nonce did not move.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import solc from 'solc'
import { type Address, encodeFunctionData, getAddress, type Hex, parseEther, toFunctionSelector } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../../src/contracts/policyRegistryArtifact.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { expectedSigning } from '../support/expectedSigning.ts'
import { writePolicy } from '../support/policies.ts'
import {
  demoIntent,
  post,
  request,
  signedIntent,
  signIntent,
  startTestGateway,
  startWorld,
  type TestGateway,
  type World,
} from '../support/testGateway.ts'

/** anvil #4 and #5: an agent key (a delegate) and a second relayer. Public devnet keys. */
const agentKey = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a' as Hex
const strictRelayerKey = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba' as Hex
const attacker = privateKeyToAccount(devnetAccounts.other).address
const agent = privateKeyToAccount(agentKey).address
const secp256k1N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

// A minimal ERC-1271 wallet: accepts its owner key's ECDSA signature of the digest, and lets the
// owner make calls from it (to create its policy).
const smartAccountSource = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
contract TestSmartAccount {
    address public immutable owner;
    constructor(address owner_) { owner = owner_; }
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
    function call(address target, bytes calldata data) external payable returns (bytes memory) {
        require(msg.sender == owner, "not owner");
        (bool ok, bytes memory ret) = target.call{value: msg.value}(data);
        require(ok, "call failed");
        return ret;
    }
}`

function compileSmartAccount() {
  const input = {
    language: 'Solidity',
    sources: { 'A.sol': { content: smartAccountSource } },
    settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input)))
  const c = out.contracts['A.sol'].TestSmartAccount
  return { abi: c.abi as readonly unknown[], bytecode: `0x${c.evm.bytecode.object}` as Hex }
}

describe('signed intents: only the sender (or its delegate) authorizes an execution', () => {
  let world: World
  let strict: TestGateway
  let capped: TestGateway
  const chain = { 'x-chain-id': '31337' }
  const execute = async (body: unknown, baseUrl = world.gateway.baseUrl) =>
    post(baseUrl, '/intents/execute', await body, chain)
  const validate = async (body: unknown, baseUrl = world.gateway.baseUrl) =>
    post(baseUrl, '/intents/validate', await body, chain)
  const read = (
    functionName: string,
    args: readonly unknown[],
    address = world.devnet.contracts.executor,
    abi: readonly unknown[] = intentExecutorArtifact.abi,
  ) => world.clients.publicClient.readContract({ address, abi, functionName, args } as never) as Promise<any>
  const depositOf = (who: Address) => read('deposits', [who]) as Promise<bigint>
  const nonceOf = (key: Hex) =>
    world.clients.publicClient.getTransactionCount({ address: privateKeyToAccount(key).address, blockTag: 'pending' })
  const count = () => read('count', [], world.devnet.demo.counter, demoCounterArtifact.abi) as Promise<bigint>
  async function write(
    key: Hex,
    call: {
      address: Address
      abi: readonly unknown[]
      functionName: string
      args?: readonly unknown[]
      value?: bigint
    },
  ) {
    const wallet = world.clients.walletFor(key)
    const hash = await wallet.writeContract({ ...call, account: wallet.account!, chain: wallet.chain } as never)
    const receipt = await world.clients.publicClient.waitForTransactionReceipt({ hash })
    assert.equal(receipt.status, 'success', `${call.functionName} reverted`)
    return receipt
  }
  const simulate = (
    key: Hex,
    call: { address: Address; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] },
  ) => world.clients.publicClient.simulateContract({ ...call, account: privateKeyToAccount(key).address } as never)
  /** The intent tuple of a body, for direct contract calls. */
  const tuple = (body: Record<string, unknown>) => {
    const b = body as Record<string, string>
    return {
      sender: b.sender as Address,
      target: b.target as Address,
      data: b.data as Hex,
      value: BigInt(b.value!),
      nonce: BigInt(b.nonce!),
      validAfter: BigInt(b.validAfter ?? '0'),
      validBefore: BigInt(b.validBefore ?? '0'),
      policyId: b.policyId as Hex,
    }
  }
  /** What an attack must leave as it was: the victim's deposit, the relayer's nonce, the counter. */
  async function unchanged<T>(attack: () => Promise<T>): Promise<T> {
    const before = {
      deposit: await depositOf(world.devnet.demo.sender),
      relayer: await nonceOf(devnetAccounts.relayer),
      count: await count(),
    }
    const result = await attack()
    assert.equal(await depositOf(world.devnet.demo.sender), before.deposit, "the sender's deposit did not move")
    assert.equal(await nonceOf(devnetAccounts.relayer), before.relayer, 'the relayer sent nothing')
    assert.equal(await count(), before.count, 'the target was not called')
    return result
  }

  before(async () => {
    world = await startWorld()
    strict = await startTestGateway({
      chains: [world.devnet.chain],
      requireSignedIntents: true,
      relayerPrivateKey: strictRelayerKey,
    })
    capped = await startTestGateway({ chains: [world.devnet.chain], maxGasPerExecution: 30_000 })
  })
  after(async () => {
    await capped?.close()
    await strict?.close()
    await world?.stop()
  })

  it("refuses a stranger's unsigned execute with 401 (0xE5) and the exact typed data to sign, which then executes", async () => {
    const body = demoIntent(world.devnet, { nonce: '100' })
    const res = await unchanged(() => execute(body))
    assert.equal(res.status, 401, res.text)
    assertCommonHeaders(res, { status: '0xE5' })
    assert.equal(res.body.statusName, 'SIGNATURE_REQUIRED')
    assert.equal(
      res.body.detail,
      "the executor runs a relayed intent only with its sender's signature: sign the typed data in `signing` and send it as `signature`",
    )
    assert.deepEqual(res.body.signing, expectedSigning(world.devnet.contracts.executor, { ...body }))
    // What an agent does with it: sign the typed data as given (a wallet takes decimal strings) and retry.
    const { EIP712Domain: _, ...types } = res.body.signing.types
    const message = Object.fromEntries(
      Object.entries(res.body.signing.message as Record<string, string>).map(([k, v]) => [
        k,
        /^\d+$/.test(v) ? BigInt(v) : v,
      ]),
    )
    const signature = await privateKeyToAccount(devnetAccounts.sender).signTypedData({
      ...res.body.signing,
      types,
      message,
    })
    const done = await execute({ ...body, signature })
    assert.equal(done.status, 200, done.text)
    assertCommonHeaders(done, { status: '0x11' })
  })

  it('lets no stranger call the executor directly for another sender, signed or not', async () => {
    const body = demoIntent(world.devnet, { nonce: '101' })
    await unchanged(async () => {
      await assert.rejects(
        simulate(devnetAccounts.other, {
          address: world.devnet.contracts.executor,
          abi: intentExecutorArtifact.abi,
          functionName: 'execute',
          args: [tuple(body)],
        }),
        /ExecutionDenied[\s\S]*0xe5/i,
      )
      const forged = (await signIntent(world.devnet, body, devnetAccounts.other)).signature
      await assert.rejects(
        simulate(devnetAccounts.other, {
          address: world.devnet.contracts.executor,
          abi: intentExecutorArtifact.abi,
          functionName: 'executeSigned',
          args: [tuple(body), forged],
        }),
        /ExecutionDenied[\s\S]*0xe4/i,
      )
    })
  })

  it('refuses with 401 (0xE4) a signature by the wrong key, for another chain, or for another executor; nothing is sent', async () => {
    const body = demoIntent(world.devnet, { nonce: '102' })
    const forgeries = {
      'wrong key': await signIntent(world.devnet, body, devnetAccounts.other),
      'another chain': await signIntent(world.devnet, body, devnetAccounts.sender, { chainId: 1 }),
      'another executor': await signIntent(world.devnet, body, devnetAccounts.sender, {
        executor: world.devnet.contracts.registry,
      }),
      'not a signature': { ...body, signature: `0x${'ab'.repeat(65)}` },
      truncated: {
        ...body,
        signature: (await signedIntent(world.devnet, { nonce: '102' })).signature!.toString().slice(0, 100),
      },
    }
    for (const [what, forged] of Object.entries(forgeries)) {
      const res = await unchanged(() => execute(forged))
      assert.equal(res.status, 401, `${what}: ${res.text}`)
      assertCommonHeaders(res, { status: '0xE4' })
      assert.equal(res.body.signing.domain.verifyingContract, world.devnet.contracts.executor, what)
      const checked = await validate(forged)
      assert.equal(checked.status, 401, `validate, ${what}`)
      assertCommonHeaders(checked, { status: '0xE4' })
    }
    assert.equal((await validate(await signIntent(world.devnet, body))).status, 200)
    assert.equal(await read('nonceUsed', [world.devnet.demo.sender, 102n]), false)
  })

  it('runs a signed intent once: a repeat through the gateway replays its outcome, and straight on the contract reverts', async () => {
    const body = await signedIntent(world.devnet, { nonce: '103' })
    const before = await count()
    assert.equal((await execute(body)).status, 200)
    const replay = await unchanged(() => execute(body))
    assert.equal(replay.status, 200)
    assertCommonHeaders(replay, { status: '0x11' })
    assert.equal(replay.body.replayed, true)
    await assert.rejects(
      simulate(devnetAccounts.other, {
        address: world.devnet.contracts.executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'executeSigned',
        args: [tuple(body), body.signature],
      }),
      /ExecutionDenied[\s\S]*0x22/i,
    )
    assert.equal(await count(), before + 1n)
  })

  it('cannot drain a victim through a policy handed to it: the owner never changes and only the victim signs', async () => {
    const unlimited = {
      owner: attacker,
      allowedTargets: [],
      allowedSelectors: [],
      maxValuePerTx: 2n ** 255n,
      maxAggregateValue: 2n ** 255n,
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [],
    }
    const receipt = await write(devnetAccounts.other, {
      address: world.devnet.contracts.registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'createPolicy',
      args: [saltOf('trap'), unlimited],
    })
    assert.equal(receipt.status, 'success')
    const trap = derivePolicyId(attacker, saltOf('trap'))
    // The hand-over itself is refused.
    await assert.rejects(
      simulate(devnetAccounts.other, {
        address: world.devnet.contracts.registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'updatePolicy',
        args: [trap, { ...unlimited, owner: world.devnet.demo.sender }],
      }),
      /InvalidPolicyOwner/,
    )
    // The attacker names itself a delegate of its own policy: that signs nothing for the victim.
    await write(devnetAccounts.other, {
      address: world.devnet.contracts.registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'addDelegate',
      args: [trap, attacker],
    })
    const attackerBalance = await world.clients.publicClient.getBalance({ address: attacker })
    const drain = demoIntent(world.devnet, {
      nonce: '104',
      target: attacker,
      data: '0x',
      value: parseEther('10').toString(),
      policyId: trap,
    })
    // Signed by the attacker: not the victim's signature, nor a delegate's of a victim's policy.
    const signed = await unchanged(() => execute(signIntent(world.devnet, drain, devnetAccounts.other)))
    assert.equal(signed.status, 401, signed.text)
    assertCommonHeaders(signed, { status: '0xE4' })
    // Unsigned: the policy read refuses first, since the policy is not the sender's (403, 0x10).
    const unsigned = await unchanged(() => execute(drain))
    assert.equal(unsigned.status, 403, unsigned.text)
    assertCommonHeaders(unsigned, { status: '0x10' })
    assert.equal(await world.clients.publicClient.getBalance({ address: attacker }), attackerBalance)
  })

  it('cannot squat a policy id another owner will want: ids are derived from their owner', async () => {
    const salt = saltOf('wanted')
    const victimId = derivePolicyId(world.devnet.demo.sender, salt)
    const policy = {
      owner: attacker,
      allowedTargets: [],
      allowedSelectors: [],
      maxValuePerTx: 0n,
      maxAggregateValue: 0n,
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [],
    }
    await write(devnetAccounts.other, {
      address: world.devnet.contracts.registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'createPolicy',
      args: [salt, policy],
    })
    assert.equal(
      await read('policyExists', [victimId], world.devnet.contracts.registry, policyRegistryArtifact.abi),
      false,
    )
    assert.equal(await writePolicy(world, 'wanted', {}), victimId)
    assert.equal(
      (await read('getPolicy', [victimId], world.devnet.contracts.registry, policyRegistryArtifact.abi)).owner,
      world.devnet.demo.sender,
    )
  })

  it("executes for a smart-account sender (ERC-1271) through the gateway, and refuses another key's signature for it", async () => {
    const ownerKey = devnetAccounts.deployer
    const owner = privateKeyToAccount(ownerKey).address
    const { abi, bytecode } = compileSmartAccount()
    const wallet = world.clients.walletFor(ownerKey)
    const hash = await wallet.deployContract({
      abi,
      bytecode,
      args: [owner],
      account: wallet.account!,
      chain: wallet.chain,
    } as never)
    const account = getAddress((await world.clients.publicClient.waitForTransactionReceipt({ hash })).contractAddress!)
    const salt = saltOf('smart')
    const policy = {
      owner: account,
      allowedTargets: [world.devnet.demo.counter],
      allowedSelectors: [toFunctionSelector('increment(uint256)')],
      maxValuePerTx: parseEther('1'),
      maxAggregateValue: parseEther('1'),
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [],
    }
    const create = encodeFunctionData({
      abi: policyRegistryArtifact.abi,
      functionName: 'createPolicy',
      args: [salt, policy],
    })
    await write(ownerKey, {
      address: account,
      abi,
      functionName: 'call',
      args: [world.devnet.contracts.registry, create],
    })
    await write(ownerKey, {
      address: world.devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'depositFor',
      args: [account],
      value: parseEther('1'),
    })

    const body = demoIntent(world.devnet, {
      sender: account,
      nonce: '1',
      value: parseEther('0.1').toString(),
      policyId: derivePolicyId(account, salt),
    })
    const forged = await unchanged(() => execute(signIntent(world.devnet, body, devnetAccounts.other)))
    assert.equal(forged.status, 401)
    assertCommonHeaders(forged, { status: '0xE4' })
    const res = await execute(await signIntent(world.devnet, body, ownerKey))
    assert.equal(res.status, 200, res.text)
    assertCommonHeaders(res, { status: '0x11' })
    assert.equal(await depositOf(account), parseEther('0.9'))
  })

  it('refuses a high-s variant of a valid signature (401, 0xE4) and accepts the 64-byte compact form', async () => {
    const body = await signedIntent(world.devnet, { nonce: '105' })
    const sig = body.signature as Hex
    const r = sig.slice(2, 66)
    const s = BigInt(`0x${sig.slice(66, 130)}`)
    const v = Number.parseInt(sig.slice(130, 132), 16)
    // The same point with the other s: ecrecover accepts it, OpenZeppelin does not (malleability).
    const highS = `0x${r}${(secp256k1N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as Hex
    for (const call of [validate, execute]) {
      const res = await unchanged(() => call({ ...body, signature: highS }))
      assert.equal(res.status, 401, res.text)
      assertCommonHeaders(res, { status: '0xE4' })
    }
    const compact = `0x${r}${(s | (BigInt(v - 27) << 255n)).toString(16).padStart(64, '0')}` as Hex
    const res = await execute({ ...body, signature: compact })
    assert.equal(res.status, 200, res.text)
  })

  it('lets a delegate sign within its policy only, and not after its revocation', async () => {
    const open = world.devnet.demo.policies.open
    await write(devnetAccounts.sender, {
      address: world.devnet.contracts.registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'addDelegate',
      args: [open, agent],
    })
    const byAgent = await signIntent(world.devnet, demoIntent(world.devnet, { nonce: '106' }), agentKey)
    const res = await execute(byAgent)
    assert.equal(res.status, 200, res.text)

    // Another policy of the same sender: the agent is not its delegate.
    const other = await writePolicy(world, 'not for the agent', { allowedTargets: [world.devnet.demo.counter] })
    const elsewhere = await unchanged(() =>
      execute(signIntent(world.devnet, demoIntent(world.devnet, { nonce: '107', policyId: other }), agentKey)),
    )
    assert.equal(elsewhere.status, 401)
    assertCommonHeaders(elsewhere, { status: '0xE4' })
    // Within its policy's limits only: over the per-transaction cap is the chain's 402.
    const over = await unchanged(() =>
      execute(
        signIntent(
          world.devnet,
          demoIntent(world.devnet, { nonce: '108', value: parseEther('2').toString() }),
          agentKey,
        ),
      ),
    )
    assert.equal(over.status, 402)

    await write(devnetAccounts.sender, {
      address: world.devnet.contracts.registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'revokeDelegate',
      args: [open, agent],
    })
    const revoked = await unchanged(() =>
      execute(signIntent(world.devnet, demoIntent(world.devnet, { nonce: '109' }), agentKey)),
    )
    assert.equal(revoked.status, 401)
    assertCommonHeaders(revoked, { status: '0xE4' })
  })

  it('answers 403 (0x16) for a nonce its sender cancelled, to validate and execute, and sends nothing', async () => {
    await write(devnetAccounts.sender, {
      address: world.devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'cancelNonce',
      args: [110n],
    })
    const body = await signedIntent(world.devnet, { nonce: '110' })
    for (const call of [validate, execute]) {
      const res = await unchanged(() => call(body))
      assert.equal(res.status, 403, res.text)
      assertCommonHeaders(res, { status: '0x16' })
      assert.equal(res.body.statusName, 'REVOKED_OR_BANNED')
    }
    // Only the sender cancels its own nonces: a stranger's cancel touches the stranger's nonce.
    await write(devnetAccounts.other, {
      address: world.devnet.contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'cancelNonce',
      args: [111n],
    })
    assert.equal(await read('nonceCancelled', [world.devnet.demo.sender, 111n]), false)
  })

  it('answers 422 (0x06) above MAX_GAS_PER_EXECUTION, and sends nothing', async () => {
    const res = await unchanged(() => execute(signedIntent(world.devnet, { nonce: '112' }), capped.baseUrl))
    assert.equal(res.status, 422, res.text)
    assertCommonHeaders(res, { status: '0x06' })
    assert.match(
      res.body.detail,
      /^the execution needs an estimated \d+ gas, above this gateway's limit of 30000 per execution \(MAX_GAS_PER_EXECUTION\)$/,
    )
  })

  it('with signatures required (production), refuses an unsigned execute at once with the typed data, and executes a signed one', async () => {
    const body = demoIntent(world.devnet, { nonce: '113' })
    const before = await nonceOf(strictRelayerKey)
    const res = await unchanged(() => execute(body, strict.baseUrl))
    assert.equal(res.status, 401)
    assertCommonHeaders(res, { status: '0xE5' })
    assert.match(res.body.detail, /^this gateway executes only intents signed by their sender/)
    assert.equal(res.body.signing.message.nonce, '113')
    const done = await execute(await signIntent(world.devnet, body), strict.baseUrl)
    assert.equal(done.status, 200, done.text)
    assert.equal(await nonceOf(strictRelayerKey), before + 1)
  })

  it("shows each chain's EIP-712 domain at GET /chains/{chainId}", async () => {
    const res = await request(world.gateway.baseUrl, '/chains/31337')
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.signing.domain, {
      name: 'IntentExecutor',
      version: '1',
      chainId: 31337,
      verifyingContract: world.devnet.contracts.executor,
    })
    assert.equal(res.body.signing.primaryType, 'Intent')
    assert.equal(res.body.signing.types.Intent.length, 8)
  })
})
