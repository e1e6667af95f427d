// Batches in account mode through the gateway, against anvil (Prague): the devnet agent (no
// deposit, not delegated) runs approve + swap on DemoSwap as one intent from its own address, its
// authorization in the first execute; X-Intent-Hash is the chain's keccak256(abi.encode(BatchIntent));
// a refused call is named calls[i]; a batch outside account mode, too large or empty, or mixed with
// target/data/value is refused naming the field; GET /accounts/{address} says what an agent needs
// before its first execute. Each test asserts the relayer's and the agent's balances.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Address, encodeFunctionData, getAddress, keccak256, parseEther, parseUnits, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { demoSwapArtifact } from '../../src/contracts/demoSwapArtifact.ts'
import { accountIntents, type TestBatch, type TestCall } from '../support/accountIntents.ts'
import { post, request, startWorld, type World } from '../support/testGateway.ts'

const swappedTopic = keccak256(toHex('Swapped(address,uint256,uint256,uint256,uint256)'))
const intentExecutedTopic = keccak256(toHex('IntentExecuted(bytes32,bytes1,address,bytes)'))
/** DemoSwap's fixed rate: wei per DemoDollar unit (1 ETH = 2000 DemoDollar). */
const weiPerDollarUnit = 10n ** 18n / 2000_000000n

describe('account mode batches through the gateway: approve + swap from the agent’s own account', () => {
  let world: World
  const agent = privateKeyToAccount(devnetAccounts.agent)
  const stranger = privateKeyToAccount(devnetAccounts.other)
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  const recipient = privateKeyToAccount(devnetAccounts.treasury).address
  const t = accountIntents(() => world, relayer)
  let nonce = 5_000n

  const contracts = () => world.devnet.contracts
  const call = (target: Address, data: `0x${string}`, value = 0n): TestCall => ({ target, data, value })
  const approve = (amount: bigint) =>
    call(
      contracts().dollar,
      encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'approve', args: [contracts().swap, amount] }),
    )
  const sell = (amount: bigint) =>
    call(
      contracts().swap,
      encodeFunctionData({ abi: demoSwapArtifact.abi, functionName: 'sellDollars', args: [amount] }),
    )
  const buy = (wei: bigint) =>
    call(contracts().swap, encodeFunctionData({ abi: demoSwapArtifact.abi, functionName: 'buyDollars' }), wei)
  const increment = () =>
    call(
      contracts().counter,
      encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
    )
  const batchOf = (calls: TestCall[], policyId = world.devnet.demo.account.policies.own): TestBatch => ({
    sender: agent.address,
    calls,
    nonce: nonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId,
  })
  const execute = (body: unknown) => post(world.gateway.baseUrl, '/intents/execute', body, t.headers())
  const validate = (body: unknown) => post(world.gateway.baseUrl, '/intents/validate', body, t.headers())
  const fields = (res: { body: { errors?: { field: string }[] } }) => (res.body.errors ?? []).map((e) => e.field)

  before(async () => {
    world = await startWorld({ receiptTimeoutMs: 15_000 })
  })
  after(async () => {
    await world?.stop()
  })

  it('refuses a batch outside account mode, with 0 or 17 calls, or beside target/data/value, naming the field; nothing sent', async () => {
    const batch = batchOf([approve(1n), sell(1n)])
    const signature = await t.signBatch(batch, agent)
    const { mode: _mode, ...executorBody } = t.batchBody(batch, signature)
    const cases: Array<[string, unknown, string[]]> = [
      ['executor mode (absent)', executorBody, ['calls', 'mode']],
      ['executor mode (named)', { ...executorBody, mode: 'executor' }, ['calls', 'mode']],
      [
        '17 calls',
        t.batchBody({ ...batch, calls: Array.from({ length: 17 }, () => increment()) }, signature),
        ['calls'],
      ],
      ['no calls', t.batchBody({ ...batch, calls: [] }, signature), ['calls']],
      ['calls and target', { ...t.batchBody(batch, signature), target: contracts().counter }, ['target']],
      [
        'a call without data',
        { ...t.batchBody(batch, signature), calls: [{ target: contracts().counter, value: '0' }] },
        ['data'],
      ],
      [
        'a call to a bad address',
        t.batchBody({ ...batch, calls: [{ ...increment(), target: '0x1234' as Address }] }, signature),
        ['calls[0].target'],
      ],
      ['no calls and no target', { ...t.batchBody(batch, signature), calls: undefined }, ['target', 'data', 'value']],
    ]
    for (const [what, body, expected] of cases) {
      for (const send of [execute, validate]) {
        const res = await t.untouched([agent.address], () => send(body))
        assert.equal(res.status, 400, `${what}: ${res.text}`)
        for (const field of expected)
          assert.ok(
            fields(res).some((f) => f === field || f.startsWith(`${field}.`) || f.endsWith(field)),
            `${what} names ${field}: ${res.text}`,
          )
      }
    }
  })

  it('GET /accounts/{address}: an undelegated EOA with its nonce; a bad address is 400 naming it; a chain not served is 421', async () => {
    const res = await request(world.gateway.baseUrl, `/accounts/${agent.address}`, { headers: t.headers() })
    assert.equal(res.status, 200, res.text)
    const nonceNow = await world.clients.publicClient.getTransactionCount({
      address: agent.address,
      blockTag: 'pending',
    })
    assert.deepEqual(res.body, {
      address: agent.address,
      chainId: world.devnet.chain.chainId,
      accountDelegate: contracts().accountDelegate,
      delegated: false,
      delegatedTo: null,
      code: 'none',
      nonce: String(nonceNow),
    })
    const contract = await request(world.gateway.baseUrl, `/accounts/${contracts().executor.toLowerCase()}`, {
      headers: t.headers(),
    })
    assert.equal(contract.status, 200, contract.text)
    assert.equal(contract.body.code, 'contract')
    assert.equal(contract.body.delegated, false)
    for (const bad of [
      '0x1234',
      'agent',
      agent.address.replace(/[a-f]/, (c) => c.toUpperCase()).replace(/[A-F]/, (c) => c.toLowerCase()),
    ]) {
      const refused = await request(world.gateway.baseUrl, `/accounts/${bad}`, { headers: t.headers() })
      if (bad.toLowerCase() === agent.address.toLowerCase() && refused.status === 200) continue // the case swap happened to keep a valid checksum
      assert.equal(refused.status, 400, `${bad}: ${refused.text}`)
      assert.deepEqual(fields(refused), ['address'], refused.text)
    }
    const unserved = await request(world.gateway.baseUrl, `/accounts/${agent.address}`, {
      headers: { 'x-chain-id': 'eip155:999999' },
    })
    assert.equal(unserved.status, 421, unserved.text)
  })

  it("approve + swap as one intent, delegating in the same execute: the pool sees the agent as the trader, the agent's own DemoDollar pays and its ETH receives, the relayer pays the gas; X-Intent-Hash is the chain's; a repeat is replayed; GET /intents and GET /accounts follow", async () => {
    const amount = parseUnits('10', 6)
    const batch = batchOf([approve(amount), sell(amount)])
    const before = {
      agentEth: await t.ethOf(agent.address),
      agentDollars: await t.dollarsOf(agent.address),
      relayerEth: await t.ethOf(relayer),
      poolDollars: await t.dollarsOf(contracts().swap),
    }
    const body = t.batchBody(batch, await t.signBatch(batch, agent), { authorization: await t.authorize(agent) })
    const res = await execute(body)
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.status, '0x11', res.text)
    assert.equal(res.body.intentHash, t.batchHash(batch), 'the hash of abi.encode(BatchIntent)')
    assert.equal(res.headers.get('x-intent-hash'), t.batchHash(batch))
    const receipt = await world.clients.publicClient.getTransactionReceipt({ hash: res.body.transactionHash })
    assert.equal(receipt.type, 'eip7702', 'the first execute carries the authorization')
    assert.equal(getAddress(receipt.to!), agent.address)
    const executed = receipt.logs.find((l) => l.topics[0] === intentExecutedTopic)!
    assert.equal(getAddress(executed.address), agent.address, 'IntentExecuted from the agent’s own address')
    assert.equal(executed.topics[1], t.batchHash(batch), 'for the hash the gateway answered')
    const swapped = receipt.logs.find((l) => l.topics[0] === swappedTopic)!
    assert.equal(getAddress(`0x${swapped.topics[1]!.slice(26)}`), agent.address, 'msg.sender at the pool is the agent')
    const gas = receipt.gasUsed * receipt.effectiveGasPrice
    assert.equal(await t.dollarsOf(agent.address), before.agentDollars - amount)
    assert.equal(await t.dollarsOf(contracts().swap), before.poolDollars + amount)
    assert.equal(
      await t.ethOf(agent.address),
      before.agentEth + amount * weiPerDollarUnit,
      'the agent received the swap’s ETH and paid no gas',
    )
    assert.equal(await t.ethOf(relayer), before.relayerEth - gas, 'the relayer paid exactly the gas')
    assert.equal(
      await world.clients.publicClient.readContract({
        address: contracts().dollar,
        abi: demoDollarArtifact.abi,
        functionName: 'allowance',
        args: [agent.address, contracts().swap],
      }),
      0n,
      'the approval was used up',
    )

    const replay = await t.untouched([agent.address], () => execute(body))
    assert.equal(replay.status, 200, replay.text)
    assert.equal(replay.body.replayed, true, replay.text)
    assert.equal(replay.body.transactionHash, res.body.transactionHash)
    const record = await request(world.gateway.baseUrl, `/intents/${t.batchHash(batch)}`, { headers: t.headers() })
    assert.equal(record.status, 200, record.text)
    assert.equal(record.body.state, 'mined', record.text)
    // GET /intents shows the batch's calls as signed, in order.
    assert.deepEqual(
      (record.body.calls as Array<{ target: string; data: string; value: string }>).map((c) => ({
        ...c,
        target: getAddress(c.target),
      })),
      batch.calls.map((c) => ({ target: c.target, data: c.data.toLowerCase(), value: c.value.toString() })),
    )
    // The journal keeps the batch's calls (its JSON intent column), values as integers again.
    const journaled = await world.gateway.journal.get(t.batchHash(batch))
    assert.deepEqual(
      journaled?.intent.calls?.map((c) => ({ ...c, target: getAddress(c.target) })),
      batch.calls.map((c) => ({ ...c, data: c.data.toLowerCase() })),
    )

    const account = await request(world.gateway.baseUrl, `/accounts/${agent.address.toLowerCase()}`, {
      headers: t.headers(),
    })
    assert.equal(account.status, 200, account.text)
    assert.equal(account.body.delegated, true, account.text)
    assert.equal(account.body.code, 'delegation')
    assert.equal(account.body.delegatedTo, contracts().accountDelegate)

    // Delegated now: the next batch needs no authorization and goes out as a plain EIP-1559 transaction.
    const next = batchOf([buy(parseEther('0.001')), increment()])
    const agentEth = await t.ethOf(agent.address)
    const res2 = await execute(t.batchBody(next, await t.signBatch(next, agent)))
    assert.equal(res2.status, 200, res2.text)
    const receipt2 = await world.clients.publicClient.getTransactionReceipt({ hash: res2.body.transactionHash })
    assert.equal(receipt2.type, 'eip1559')
    assert.equal(
      await t.ethOf(agent.address),
      agentEth - parseEther('0.001'),
      "the call's value came from the agent's own ETH, and no gas",
    )
  })

  it('validate answers a batch as the chain does: 200 for a good one; the signing request is the BatchIntent under the account’s domain; nothing sent', async () => {
    const batch = batchOf([approve(1n), sell(1n)])
    const ok = await t.untouched([agent.address], async () =>
      validate(t.batchBody(batch, await t.signBatch(batch, agent))),
    )
    assert.equal(ok.status, 200, ok.text)
    assert.equal(ok.body.intentHash, t.batchHash(batch))
    const unsigned = await t.untouched([agent.address], () => execute(t.batchBody(batch, undefined)))
    assert.equal(unsigned.status, 401, unsigned.text)
    assert.equal(unsigned.body.signing.primaryType, 'BatchIntent', unsigned.text)
    assert.equal(getAddress(unsigned.body.signing.domain.verifyingContract), agent.address)
    // What the gateway asks to be signed is what the account accepts.
    const { EIP712Domain: _d, ...types } = unsigned.body.signing.types
    const signature = await agent.signTypedData({
      domain: unsigned.body.signing.domain,
      types,
      primaryType: 'BatchIntent',
      message: unsigned.body.signing.message,
    })
    const signed = await t.untouched([agent.address], () => validate(t.batchBody(batch, signature)))
    assert.equal(signed.status, 200, signed.text)
    const wrong = await t.untouched([agent.address], async () =>
      execute(t.batchBody(batch, await t.signBatch(batch, stranger))),
    )
    assert.equal(wrong.status, 401, wrong.text)
  })

  it('a refused call is named calls[i] with the code a single call gets: a target outside the policy 403 0x10, a summed value over the cap 402 0x54; a refusal of the whole batch names no call; nothing sent', async () => {
    const outside = call(recipient, '0x')
    const cases: Array<[string, TestBatch, number, string | undefined]> = [
      ['target outside the policy, second call', batchOf([increment(), outside]), 403, 'calls[1]'],
      ['target outside the policy, first call', batchOf([outside, increment()]), 403, 'calls[0]'],
      [
        'value summed over maxValuePerTx (1 ETH)',
        batchOf([buy(parseEther('0.6')), increment(), buy(parseEther('0.6'))]),
        402,
        'calls[2]',
      ],
      [
        "a policy the agent does not own (the batch's header)",
        batchOf([increment()], world.devnet.demo.policies.open),
        403,
        undefined,
      ],
    ]
    for (const [what, batch, status, field] of cases) {
      const body = t.batchBody(batch, await t.signBatch(batch, agent))
      for (const send of [validate, execute]) {
        const res = await t.untouched([agent.address], () => send(body))
        assert.equal(res.status, status, `${what}: ${res.text}`)
        assert.deepEqual(fields(res), field ? [field] : [], `${what}: ${res.text}`)
      }
    }
  })

  it('no call may target the account, the registry, the ledger, the executor or the delegate: 403 0x10 naming the call, whoever signed (the agent, a stranger, nobody); nothing sent', async () => {
    const c = contracts()
    const forbidden: Array<[string, Address]> = [
      ['the account itself', agent.address],
      ['the PolicyRegistry', c.registry],
      ['the IntentLedger', c.ledger],
      ['the IntentExecutor', c.executor],
      ['the account delegate', c.accountDelegate],
    ]
    for (const [what, target] of forbidden) {
      const batch = batchOf([increment(), call(target, '0x')])
      for (const signature of [await t.signBatch(batch, agent), await t.signBatch(batch, stranger), undefined]) {
        for (const send of [validate, execute]) {
          const res = await t.untouched([agent.address], () => send(t.batchBody(batch, signature)))
          assert.equal(res.status, 403, `${what}: ${res.text}`)
          assert.equal(res.body.erc1066Status, '0x10', res.text)
          assert.deepEqual(fields(res), ['calls[1]'], `${what}: ${res.text}`)
        }
      }
    }
    // A single call too, named `target`.
    const single = {
      sender: agent.address,
      target: c.registry,
      data: '0x' as const,
      value: 0n,
      nonce: nonce++,
      validAfter: 0n,
      validBefore: 0n,
      policyId: world.devnet.demo.account.policies.own,
    }
    const res = await t.untouched([agent.address], async () =>
      execute(t.intentBody(single, await t.signIntent(single, agent))),
    )
    assert.equal(res.status, 403, res.text)
    assert.deepEqual(fields(res), ['target'], res.text)
  })
})
