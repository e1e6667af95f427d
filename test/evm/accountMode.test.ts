// Account mode (EIP-7702) through the gateway, against anvil (Prague): the devnet agent (no
// deposit, not delegated) executes a DemoDollar transfer of its own tokens, its authorization in
// the first execute; foreign or malformed authorizations and accounts delegated elsewhere are
// refused with nothing sent; each test asserts the relayer's and the agent's balances.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  type Address,
  concatHex,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  parseEther,
  parseUnits,
  toHex,
} from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { intentTypes } from '../../src/chains/evm/intentTypedData.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { policyRegistryArtifact } from '../../src/contracts/policyRegistryArtifact.ts'
import { post, request, rpc, startWorld, type World } from '../support/testGateway.ts'

const secp256k1n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const transferTopic = keccak256(toHex('Transfer(address,address,uint256)'))

describe('account mode through the gateway: intents run from the agent’s own address (EIP-7702)', () => {
  let world: World
  const agent = privateKeyToAccount(devnetAccounts.agent)
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  const stranger = privateKeyToAccount(devnetAccounts.sessionKey)
  const recipient = privateKeyToAccount(devnetAccounts.treasury).address
  let nonce = 1_000n

  const pc = () => world.clients.publicClient
  const chainId = () => world.devnet.anvil.chainId
  const headers = () => ({ 'x-chain-id': world.devnet.chain.chainId })
  const ethOf = (who: Address) => pc().getBalance({ address: who })
  const dollarsOf = (who: Address) =>
    pc().readContract({
      address: world.devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  const relayerNonce = () => pc().getTransactionCount({ address: relayer, blockTag: 'pending' })
  const codeOf = async (who: Address) => ((await pc().getCode({ address: who })) ?? '0x').toLowerCase()
  const delegation = () => concatHex(['0xef0100', world.devnet.contracts.accountDelegate]).toLowerCase()

  const transferIntent = (sender: Address, amount: bigint) => ({
    sender,
    target: world.devnet.contracts.dollar,
    data: encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'transfer', args: [recipient, amount] }),
    value: 0n,
    nonce: nonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId: world.devnet.demo.account.policies.own,
  })
  type Intent = ReturnType<typeof transferIntent>
  const sign = (intent: Intent, signer: PrivateKeyAccount = agent) =>
    signer.signTypedData({
      domain: { name: 'IntentAccount', version: '1', chainId: chainId(), verifyingContract: intent.sender },
      types: intentTypes,
      primaryType: 'Intent',
      message: intent,
    })
  const bodyOf = (intent: Intent, signature: Hex | undefined, extra: Record<string, unknown> = {}) => ({
    ...intent,
    value: intent.value.toString(),
    nonce: intent.nonce.toString(),
    validAfter: '0',
    validBefore: '0',
    ...(signature ? { signature } : {}),
    mode: 'account',
    ...extra,
  })
  async function authorize(
    options: { signer?: PrivateKeyAccount; chainId?: number; address?: Address; nonce?: number } = {},
  ) {
    const signer = options.signer ?? agent
    const a = await signer.signAuthorization({
      chainId: options.chainId ?? chainId(),
      address: options.address ?? world.devnet.contracts.accountDelegate,
      nonce: options.nonce ?? (await pc().getTransactionCount({ address: signer.address })),
    })
    return { chainId: a.chainId, address: a.address, nonce: a.nonce, yParity: a.yParity, r: a.r, s: a.s }
  }
  /** Balances and nonces that must not move when nothing is sent. */
  async function untouched<T>(what: () => Promise<T>): Promise<T> {
    const before = {
      relayerEth: await ethOf(relayer),
      relayerNonce: await relayerNonce(),
      agentEth: await ethOf(agent.address),
      agentDollars: await dollarsOf(agent.address),
    }
    const result = await what()
    assert.equal(await relayerNonce(), before.relayerNonce, 'nothing was sent')
    assert.equal(await ethOf(relayer), before.relayerEth, "the relayer's balance did not move")
    assert.equal(await ethOf(agent.address), before.agentEth)
    assert.equal(await dollarsOf(agent.address), before.agentDollars)
    return result
  }

  before(async () => {
    world = await startWorld({ receiptTimeoutMs: 15_000 })
  })
  after(async () => {
    await world?.stop()
  })

  it('GET /chains/{chainId} names the account delegate an authorization must name', async () => {
    const res = await request(world.gateway.baseUrl, `/chains/${world.devnet.chain.chainId}`)
    assert.equal(res.status, 200, res.text)
    assert.equal(getAddress(res.body.contracts.accountDelegate), world.devnet.contracts.accountDelegate, res.text)
  })

  it('refuses an undelegated sender without an authorization: 403 0x10 account-not-delegated, nothing sent', async () => {
    assert.equal(await codeOf(agent.address), '0x')
    const intent = transferIntent(agent.address, 1n)
    const res = await untouched(async () =>
      post(world.gateway.baseUrl, '/intents/execute', bodyOf(intent, await sign(intent)), headers()),
    )
    assert.equal(res.status, 403, res.text)
    assert.equal(res.body.type, 'urn:intent-gateway:problem:account-not-delegated', res.text)
  })

  it('refuses a foreign or malformed authorization naming its field, nothing sent', async () => {
    const intent = transferIntent(agent.address, 1n)
    const signature = await sign(intent)
    const good = await authorize()
    const cases: Array<[string, Record<string, unknown>, number]> = [
      ['authorization.r', await authorize({ signer: stranger, nonce: good.nonce }), 403],
      ['authorization.chainId', await authorize({ chainId: chainId() + 1 }), 403],
      ['authorization.chainId', await authorize({ chainId: 0 }), 403],
      ['authorization.address', await authorize({ address: world.devnet.contracts.executor }), 403],
      ['authorization.nonce', await authorize({ nonce: good.nonce + 1 }), 403],
      [
        'authorization.s',
        { ...good, s: toHex(secp256k1n - BigInt(good.s), { size: 32 }), yParity: 1 - (good.yParity ?? 0) },
        400,
      ],
    ]
    for (const [field, authorization, status] of cases) {
      const res = await untouched(() =>
        post(world.gateway.baseUrl, '/intents/execute', bodyOf(intent, signature, { authorization }), headers()),
      )
      assert.equal(res.status, status, `${field}: ${res.text}`)
      assert.ok(
        res.body.errors?.some((e: { field: string }) => e.field === field),
        `${field}: ${res.text}`,
      )
    }
    // The schema names the field too.
    const res = await untouched(() =>
      post(
        world.gateway.baseUrl,
        '/intents/execute',
        bodyOf(intent, signature, { authorization: { ...good, yParity: 2 } }),
        headers(),
      ),
    )
    assert.equal(res.status, 400, res.text)
    assert.match(res.text, /yParity/)
    assert.equal(await codeOf(agent.address), '0x', 'the agent is still undelegated')
  })

  it("delegates and executes in one: the agent's own DemoDollar moves (Transfer from the agent), the relayer pays the gas; then without an authorization; a repeat is replayed", async () => {
    const amount = parseUnits('5', 6)
    const agentEth = await ethOf(agent.address)
    const agentDollars = await dollarsOf(agent.address)
    const relayerEth = await ethOf(relayer)
    const first = transferIntent(agent.address, amount)
    const body = bodyOf(first, await sign(first), { authorization: await authorize() })
    const res = await post(world.gateway.baseUrl, '/intents/execute', body, headers())
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.status, '0x11', res.text)
    assert.equal(await codeOf(agent.address), delegation())
    const receipt = await pc().getTransactionReceipt({ hash: res.body.transactionHash })
    assert.equal(receipt.type, 'eip7702')
    assert.equal(getAddress(receipt.to!), agent.address, 'sent to the agent’s own address')
    const transfer = receipt.logs.find((l) => l.topics[0] === transferTopic)!
    assert.equal(
      getAddress(`0x${transfer.topics[1]!.slice(26)}`),
      agent.address,
      'msg.sender at the token is the agent',
    )
    assert.equal(await dollarsOf(agent.address), agentDollars - amount)
    assert.equal(await ethOf(agent.address), agentEth, 'the agent paid no gas')
    assert.equal(
      await ethOf(relayer),
      relayerEth - receipt.gasUsed * receipt.effectiveGasPrice,
      'the relayer paid exactly the gas',
    )

    const replay = await untouched(() => post(world.gateway.baseUrl, '/intents/execute', body, headers()))
    assert.equal(replay.status, 200, replay.text)
    assert.equal(replay.body.replayed, true, replay.text)

    const second = transferIntent(agent.address, amount)
    const relayerEth2 = await ethOf(relayer)
    const res2 = await post(world.gateway.baseUrl, '/intents/execute', bodyOf(second, await sign(second)), headers())
    assert.equal(res2.status, 200, res2.text)
    const receipt2 = await pc().getTransactionReceipt({ hash: res2.body.transactionHash })
    assert.equal(receipt2.type, 'eip1559', 'already delegated: no authorization carried')
    assert.equal(await dollarsOf(agent.address), agentDollars - 2n * amount)
    assert.equal(await ethOf(agent.address), agentEth)
    assert.equal(await ethOf(relayer), relayerEth2 - receipt2.gasUsed * receipt2.effectiveGasPrice)
  })

  it("validate in account mode answers the account's check (a stranger's signature 0xE4 with the account's typed data), nothing sent", async () => {
    const intent = transferIntent(agent.address, 1n)
    const ok = await untouched(() =>
      sign(intent).then((s) => post(world.gateway.baseUrl, '/intents/validate', bodyOf(intent, s), headers())),
    )
    assert.equal(ok.status, 200, ok.text)
    const bad = await untouched(() =>
      sign(intent, stranger).then((s) => post(world.gateway.baseUrl, '/intents/execute', bodyOf(intent, s), headers())),
    )
    assert.equal(bad.status, 401, bad.text)
    assert.equal(bad.body.signing?.domain?.name, 'IntentAccount', bad.text)
    assert.equal(getAddress(bad.body.signing.domain.verifyingContract), agent.address)
  })

  it('refuses an account delegated elsewhere: 403 account-not-delegated, nothing sent', async () => {
    const elsewhere = privateKeyToAccount(devnetAccounts.other)
    const code = await codeOf(elsewhere.address)
    await rpc(world.devnet.anvil.rpcUrl, 'anvil_setCode', [
      elsewhere.address,
      concatHex(['0xef0100', world.devnet.contracts.executor]),
    ])
    try {
      const intent = transferIntent(elsewhere.address, 1n)
      const before = await relayerNonce()
      const res = await post(
        world.gateway.baseUrl,
        '/intents/execute',
        bodyOf(intent, await sign(intent, elsewhere), { authorization: await authorize({ signer: elsewhere }) }),
        headers(),
      )
      assert.equal(res.status, 403, res.text)
      assert.equal(res.body.type, 'urn:intent-gateway:problem:account-not-delegated', res.text)
      assert.equal(await relayerNonce(), before)
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'anvil_setCode', [elsewhere.address, code])
    }
  })

  it('executor mode is unchanged for a body without mode, and an authorization without mode is refused naming the field', async () => {
    const intent = transferIntent(agent.address, 1n)
    const { mode: _mode, ...body } = bodyOf(intent, await sign(intent))
    const res = await untouched(() =>
      post(
        world.gateway.baseUrl,
        '/intents/execute',
        {
          ...body,
          authorization: {
            chainId: 1,
            address: agent.address,
            nonce: 0,
            yParity: 0,
            r: `0x${'1'.repeat(64)}`,
            s: `0x${'1'.repeat(64)}`,
          },
        },
        headers(),
      ),
    )
    assert.equal(res.status, 400, res.text)
    assert.ok(
      res.body.errors?.some((e: { field: string }) => e.field === 'authorization'),
      res.text,
    )
  })

  it("a skipped authorization is not success: mined without IntentExecuted from the sender is dropped (403 account-not-delegated, the agent's tokens and code untouched, the relayer paid), and a new authorization executes it", async () => {
    // Another EOA of its own (anvil's "other"): a policy it owns for the counter, not delegated.
    const owner = privateKeyToAccount(devnetAccounts.other)
    const wallet = world.clients.walletFor(devnetAccounts.other)
    const salt = saltOf('test.account-mode.skipped')
    const policy = {
      owner: owner.address,
      allowedTargets: [],
      allowedSelectors: [],
      maxValuePerTx: parseEther('1'),
      maxAggregateValue: parseEther('1'),
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [],
    }
    const created = await wallet.writeContract({
      address: world.devnet.contracts.registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'createPolicy',
      args: [salt, policy],
      account: wallet.account!,
      chain: wallet.chain,
    } as never)
    await pc().waitForTransactionReceipt({ hash: created })
    assert.equal(await codeOf(owner.address), '0x')
    const counter = world.devnet.contracts.counter
    const count = () =>
      pc().readContract({
        address: counter,
        abi: demoCounterArtifact.abi,
        functionName: 'count',
      } as never) as Promise<bigint>
    const intent = {
      ...transferIntent(owner.address, 0n),
      target: counter,
      data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
      policyId: derivePolicyId(owner.address, salt),
    }
    const body = bodyOf(intent, await sign(intent, owner), { authorization: await authorize({ signer: owner }) })
    const countBefore = await count()
    const relayerEth = await ethOf(relayer)
    const relayerTxs = await relayerNonce()

    // Blocks wait: the gateway's type-4 transaction sits in the pool, then the account spends its
    // own nonce first (a higher tip: mined before it), so the authorization is skipped and the call
    // meets a code-less EOA, which "succeeds" doing nothing.
    await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
    let answer: Awaited<ReturnType<typeof post>>
    try {
      const pending = post(world.gateway.baseUrl, '/intents/execute', body, headers())
      for (let i = 0; i < 200 && (await relayerNonce()) === relayerTxs; i++) await new Promise((r) => setTimeout(r, 25))
      assert.equal(await relayerNonce(), relayerTxs + 1, 'the gateway sent its transaction')
      await wallet.sendTransaction({
        to: owner.address,
        value: 0n,
        maxPriorityFeePerGas: parseUnits('50', 9),
        maxFeePerGas: parseUnits('100', 9),
        account: wallet.account!,
        chain: wallet.chain,
      } as never)
      await rpc(world.devnet.anvil.rpcUrl, 'evm_mine', [])
      answer = await pending
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
    }
    assert.equal(answer.status, 403, answer.text)
    assert.equal(answer.body.type, 'urn:intent-gateway:problem:account-not-delegated', answer.text)
    const receipt = await pc().getTransactionReceipt({ hash: answer.body.transactionHash })
    assert.equal(receipt.status, 'success', 'mined without error')
    assert.equal(receipt.logs.length, 0, 'and without running anything')
    assert.equal(await codeOf(owner.address), '0x', 'the authorization was skipped')
    assert.equal(await count(), countBefore, 'the intent did not run')
    assert.equal(
      await ethOf(relayer),
      relayerEth - receipt.gasUsed * receipt.effectiveGasPrice,
      'the relayer paid for it',
    )
    const record = await request(world.gateway.baseUrl, `/intents/${answer.body.intentHash}`, { headers: headers() })
    assert.equal(record.body.state, 'dropped', record.text)

    // The same intent again: its stale authorization is refused before anything is sent; a new one executes it.
    const stale = await untouched(() => post(world.gateway.baseUrl, '/intents/execute', body, headers()))
    assert.equal(stale.status, 403, stale.text)
    assert.ok(
      stale.body.errors?.some((e: { field: string }) => e.field === 'authorization.nonce'),
      stale.text,
    )
    const again = await post(
      world.gateway.baseUrl,
      '/intents/execute',
      { ...body, authorization: await authorize({ signer: owner }) },
      headers(),
    )
    assert.equal(again.status, 200, again.text)
    assert.equal(await count(), countBefore + 1n)
    assert.equal(await codeOf(owner.address), delegation())
  })
})
