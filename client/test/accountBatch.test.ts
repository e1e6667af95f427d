// The client, the CLI and examples/accountAgent.ts with the gateway's batches (`calls`) and
// GET /accounts/{address} (issue 41 items 2 and 5): the client asks whether the account is
// delegated, signs its EIP-7702 authorization on first use only, and runs approve + swap as one
// intent from the agent's own address; a session key's batch beyond its policy is refused with the
// call named (errors[].field = calls[i]), nothing sent. Needs a gateway that serves batches and
// GET /accounts (the acct-batch branch): it fails on a gateway without them.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Address, concatHex, encodeFunctionData, getAddress, type Hex, parseEther, parseUnits } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { demoSwapArtifact } from '../../src/contracts/demoSwapArtifact.ts'
import { policyRegistryArtifact } from '../../src/contracts/policyRegistryArtifact.ts'
import { rpc, startWorld, type World } from '../../test/support/testGateway.ts'
import {
  type BatchIntentInput,
  createGatewayClient,
  evmTypedData,
  hashIntent,
  type IntentInput,
  toIntentBody,
} from '../src/index.ts'

const root = resolve(import.meta.dirname, '../..')
const bin = resolve(import.meta.dirname, '../bin/intent-gateway.js')
const agent = privateKeyToAccount(devnetAccounts.agent)
const other = privateKeyToAccount(devnetAccounts.other)
const sessionKey = privateKeyToAccount(devnetAccounts.sessionKey)
const relayer = privateKeyToAccount(devnetAccounts.relayer).address
const recipient = privateKeyToAccount(devnetAccounts.treasury).address

type Run = { code: number; stdout: string; stderr: string }
function exec(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      args,
      { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    )
  })
}

describe('client, CLI and example with batches and GET /accounts (account mode)', () => {
  let world: World
  let dir: string
  let nonce = 20_000n
  const pc = () => world.clients.publicClient
  const url = () => world.gateway.baseUrl
  const contracts = () => world.devnet.contracts
  const ethOf = (who: Address) => pc().getBalance({ address: who })
  const dollarsOf = (who: Address) =>
    pc().readContract({
      address: contracts().dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    }) as Promise<bigint>
  const relayerTxs = () => pc().getTransactionCount({ address: relayer, blockTag: 'pending' })
  const codeOf = async (who: Address) => ((await pc().getCode({ address: who })) ?? '0x').toLowerCase()
  const delegation = () => concatHex(['0xef0100', contracts().accountDelegate]).toLowerCase() as Hex
  const counterCall = (value: bigint) => ({
    target: contracts().counter,
    data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
    value,
  })
  const approveAndSwap = (dollars: bigint): BatchIntentInput => ({
    sender: agent.address,
    calls: [
      {
        target: contracts().dollar,
        data: encodeFunctionData({
          abi: demoDollarArtifact.abi,
          functionName: 'approve',
          args: [contracts().swap, dollars],
        }),
      },
      {
        target: contracts().swap,
        data: encodeFunctionData({ abi: demoSwapArtifact.abi, functionName: 'sellDollars', args: [dollars] }),
      },
    ],
    nonce: nonce++,
    policyId: world.devnet.demo.account.policies.own,
    mode: 'account',
  })

  before(async () => {
    world = await startWorld({ receiptTimeoutMs: 15_000 })
    dir = mkdtempSync(join(tmpdir(), 'intent-gateway-account-batch-'))
  })
  after(async () => {
    rmSync(dir, { recursive: true, force: true })
    await world?.stop()
  })

  it('client.account() and the CLI account command: an EOA not delegated yet, its nonce, the chain’s delegate', async () => {
    const client = createGatewayClient({ url: url() })
    const state = await client.account(agent.address)
    assert.deepEqual(
      {
        ...state,
        address: getAddress(state.address),
        accountDelegate: state.accountDelegate && getAddress(state.accountDelegate),
      },
      {
        address: agent.address,
        chainId: world.devnet.chain.chainId,
        accountDelegate: contracts().accountDelegate,
        delegated: false,
        delegatedTo: null,
        code: 'none',
        nonce: String(await pc().getTransactionCount({ address: agent.address })),
      },
    )
    const r = await exec([bin, 'account', agent.address, '--json'], { INTENT_GATEWAY_URL: url() })
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(JSON.parse(r.stdout), state)
    const table = await exec([bin, 'account', agent.address], { INTENT_GATEWAY_URL: url() })
    assert.match(table.stdout, /^delegated\s+no$/m)
    assert.match(table.stdout, /^code\s+none \(an EOA/m)
  })

  it('a client pinned to the delegate (accountDelegate) meets a gateway naming another: it throws before signing any authorization, nothing sent, the agent still undelegated', async () => {
    const lying: typeof fetch = async (input, init) => {
      const response = await globalThis.fetch(input, init)
      if (!/\/(chains|accounts)(\/|$)/.test(new URL(String(input)).pathname)) return response
      const body = JSON.parse(await response.text())
      for (const chain of body.chains ?? [body])
        if (chain.contracts?.accountDelegate) chain.contracts.accountDelegate = contracts().executor
      if (body.accountDelegate) body.accountDelegate = contracts().executor
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers })
    }
    const client = createGatewayClient({
      url: url(),
      account: agent,
      mode: 'account',
      fetch: lying,
      accountDelegate: contracts().accountDelegate,
    })
    const txs = await relayerTxs()
    const transfer: IntentInput = {
      sender: agent.address,
      target: contracts().dollar,
      data: encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'transfer', args: [recipient, 1n] }),
      nonce: nonce++,
      policyId: world.devnet.demo.account.policies.own,
    }
    await assert.rejects(
      client.execute(transfer),
      (err: unknown) => (err as { field?: string }).field === 'accountDelegate',
    )
    assert.equal(await relayerTxs(), txs)
    assert.equal(await codeOf(agent.address), '0x')
  })

  it('an account delegated elsewhere gets no authorization from the client (it would re-delegate the EOA): sent without one, 403 account-not-delegated, nothing sent', async () => {
    const code = await codeOf(other.address)
    await rpc(world.devnet.anvil.rpcUrl, 'anvil_setCode', [
      other.address,
      concatHex(['0xef0100', contracts().executor]),
    ])
    try {
      const bodies: Array<Record<string, unknown>> = []
      const recording: typeof fetch = (input, init) => {
        if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body))
        return globalThis.fetch(input, init)
      }
      const client = createGatewayClient({ url: url(), account: other, mode: 'account', fetch: recording })
      const state = await client.account(other.address)
      assert.equal(state.code, 'delegation')
      assert.equal(state.delegated, false)
      const txs = await relayerTxs()
      const result = await client.execute({
        sender: other.address,
        ...counterCall(0n),
        nonce: nonce++,
        policyId: world.devnet.demo.account.policies.own,
      })
      assert.equal(result.httpStatus, 403, JSON.stringify(result.body))
      assert.equal(result.body.type, 'urn:intent-gateway:problem:account-not-delegated')
      assert.equal(bodies.length, 1)
      assert.equal(bodies[0]!.authorization, undefined, 'no authorization signed')
      assert.equal(await relayerTxs(), txs)
    } finally {
      await rpc(world.devnet.anvil.rpcUrl, 'anvil_setCode', [other.address, code])
    }
  })

  it("the CLI's first account-mode execute signs the agent's authorization itself: delegated in the same transaction, its DemoDollar moved; the account command then says delegated", async () => {
    const env = { INTENT_GATEWAY_URL: url(), INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.agent }
    const data = encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'transfer', args: [recipient, 3n] })
    const before = { dollars: await dollarsOf(agent.address), eth: await ethOf(agent.address) }
    const args = [
      'execute',
      '--json',
      '--mode',
      'account',
      '--sender',
      agent.address,
      '--target',
      contracts().dollar,
      '--data',
      data,
      '--nonce',
      String(nonce++),
      '--policy-id',
      world.devnet.demo.account.policies.own,
    ]
    const r = await exec([bin, ...args], env)
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const out = JSON.parse(r.stdout)
    assert.equal(out.status, '0x11')
    assert.equal((await pc().getTransaction({ hash: out.transactionHash })).type, 'eip7702')
    assert.equal(await codeOf(agent.address), delegation())
    assert.equal(await dollarsOf(agent.address), before.dollars - 3n)
    assert.equal(await ethOf(agent.address), before.eth)
    const state = JSON.parse((await exec([bin, 'account', agent.address, '--json'], env)).stdout)
    assert.equal(state.delegated, true)
    assert.equal(state.code, 'delegation')
    assert.equal(getAddress(state.delegatedTo), contracts().accountDelegate)
  })

  it("client.execute of another EOA's first intent: asks GET /accounts, signs the authorization, delegates and runs; the next intent carries none", async () => {
    // anvil's "other": a policy of its own for the counter, no code yet.
    const wallet = world.clients.walletFor(devnetAccounts.other)
    const salt = saltOf('test.client.account.other')
    const policy = {
      owner: other.address,
      allowedTargets: [contracts().counter],
      allowedSelectors: [],
      maxValuePerTx: parseEther('1'),
      maxAggregateValue: parseEther('1'),
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [],
    }
    await pc().waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: contracts().registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'createPolicy',
        args: [salt, policy],
        account: wallet.account!,
        chain: wallet.chain,
      } as never),
    })
    const client = createGatewayClient({ url: url(), account: other, mode: 'account' })
    assert.equal((await client.account(other.address)).delegated, false)
    const intent = (): IntentInput => ({
      sender: other.address,
      ...counterCall(0n),
      nonce: nonce++,
      policyId: derivePolicyId(other.address, salt),
    })
    const first = await client.execute(intent())
    assert.equal(first.httpStatus, 200, JSON.stringify(first.body))
    assert.equal((await pc().getTransaction({ hash: first.transactionHash! })).type, 'eip7702')
    assert.equal(await codeOf(other.address), delegation())
    const second = await client.execute(intent())
    assert.equal(second.httpStatus, 200, JSON.stringify(second.body))
    assert.equal((await pc().getTransaction({ hash: second.transactionHash! })).type, 'eip1559')
  })

  it("approve + swap as one intent through the client: the pool's trader is the agent, which gets the ETH its dollars bought and pays no gas; X-Intent-Hash is the client's batch hash; a repeat is replayed", async () => {
    const client = createGatewayClient({ url: url(), account: agent })
    const dollars = parseUnits('20', 6)
    const batch = approveAndSwap(dollars)
    const before = {
      dollars: await dollarsOf(agent.address),
      eth: await ethOf(agent.address),
      relayer: await ethOf(relayer),
    }
    const validated = await client.validate(batch)
    assert.equal(validated.httpStatus, 200, JSON.stringify(validated.body))
    assert.equal(validated.intentHash, hashIntent(batch))
    const result = await client.execute(batch)
    assert.equal(result.httpStatus, 200, JSON.stringify(result.body))
    assert.equal(result.status, '0x11')
    assert.equal(result.intentHash, hashIntent(batch))
    const receipt = await pc().getTransactionReceipt({ hash: result.transactionHash! })
    const swapped = receipt.logs.find((l) => getAddress(l.address) === contracts().swap)!
    assert.equal(getAddress(`0x${swapped.topics[1]!.slice(26)}`), agent.address)
    assert.equal(await dollarsOf(agent.address), before.dollars - dollars)
    assert.equal(await ethOf(agent.address), before.eth + dollars * (10n ** 18n / 2000_000_000n))
    assert.equal(await ethOf(relayer), before.relayer - receipt.gasUsed * receipt.effectiveGasPrice)
    const again = await client.execute(batch)
    assert.equal(again.replayed, true)
    assert.equal(again.transactionHash, result.transactionHash)
  })

  it('an unsigned batch is answered 401 0xE5 with the BatchIntent typed data the client signs', async () => {
    const client = createGatewayClient({ url: url() })
    const batch = approveAndSwap(1n)
    const refused = await client.execute(batch)
    assert.equal(refused.httpStatus, 401, JSON.stringify(refused.body))
    assert.equal(refused.action, 'sign')
    const signing = refused.signing as {
      domain: Record<string, unknown>
      types: Record<string, unknown>
      primaryType: string
      message: Record<string, unknown>
    }
    const typed = evmTypedData(toIntentBody(batch), await client.getChain())
    const { EIP712Domain: _, ...types } = signing.types
    assert.deepEqual(types, JSON.parse(JSON.stringify(typed.types)))
    assert.equal(signing.primaryType, 'BatchIntent')
    assert.deepEqual(
      { ...signing.domain, verifyingContract: getAddress(String(signing.domain.verifyingContract)) },
      typed.domain,
    )
    const strings = (v: unknown): unknown =>
      typeof v === 'bigint'
        ? v.toString()
        : Array.isArray(v)
          ? v.map(strings)
          : v && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, strings(x)]))
            : v
    assert.deepEqual(strings(typed.message), strings(signing.message))
  })

  it('a session key’s batch beyond its policy is refused naming the call (value summed: 402 0x54; a target it may not call: 403 0x10), nothing sent', async () => {
    const client = createGatewayClient({ url: url(), account: sessionKey, mode: 'account' })
    const batch = (calls: BatchIntentInput['calls']): BatchIntentInput => ({
      sender: agent.address,
      calls,
      nonce: nonce++,
      policyId: world.devnet.demo.account.policies.session,
    })
    const before = { txs: await relayerTxs(), eth: await ethOf(agent.address), dollars: await dollarsOf(agent.address) }
    // Each call within 0.01 ETH, the three together above the policy's 0.02 ETH in all.
    const summed = await client.execute(
      batch([counterCall(parseEther('0.01')), counterCall(parseEther('0.01')), counterCall(parseEther('0.01'))]),
    )
    assert.equal(summed.httpStatus, 402, JSON.stringify(summed.body))
    assert.equal(summed.status, '0x54')
    assert.ok(
      summed.errors?.some((e) => /^calls\[\d+\]/.test(e.field)),
      JSON.stringify(summed.body),
    )
    const transfer = {
      target: contracts().dollar,
      data: encodeFunctionData({
        abi: demoDollarArtifact.abi,
        functionName: 'transfer',
        args: [sessionKey.address, 1n],
      }),
      value: 0n,
    }
    const theft = await client.execute(batch([counterCall(0n), transfer]))
    assert.equal(theft.httpStatus, 403, JSON.stringify(theft.body))
    assert.equal(theft.status, '0x10')
    assert.ok(
      theft.errors?.some((e) => e.field.startsWith('calls[1]')),
      JSON.stringify(theft.body),
    )
    assert.equal(await relayerTxs(), before.txs, 'nothing was sent')
    assert.equal(await ethOf(agent.address), before.eth)
    assert.equal(await dollarsOf(agent.address), before.dollars)
  })

  it('CLI: execute --mode account --calls <file> runs the approve + swap batch (exit 0)', async () => {
    const batch = approveAndSwap(parseUnits('1', 6))
    const file = join(dir, 'calls.json')
    writeFileSync(file, JSON.stringify(toIntentBody(batch).calls))
    const before = await dollarsOf(agent.address)
    const args = [
      'execute',
      '--json',
      '--mode',
      'account',
      '--sender',
      agent.address,
      '--calls',
      file,
      '--nonce',
      String(batch.nonce),
      '--policy-id',
      batch.policyId,
    ]
    const r = await exec([bin, ...args], { INTENT_GATEWAY_URL: url(), INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.agent })
    assert.equal(r.code, 0, r.stdout + r.stderr)
    assert.equal(JSON.parse(r.stdout).intentHash, hashIntent(batch))
    assert.equal(await dollarsOf(agent.address), before - parseUnits('1', 6))
  })

  it('examples/accountAgent.ts: the transfer and the approve + swap batch from the agent’s own account, exit 0', async () => {
    const before = await dollarsOf(agent.address)
    const r = await exec(['--import', 'tsx', 'examples/accountAgent.ts'], {
      INTENT_GATEWAY_URL: url(),
      INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.agent,
      INTENT_POLICY_ID: world.devnet.demo.account.policies.own,
      INTENT_DOLLAR: contracts().dollar,
      INTENT_SWAP: contracts().swap,
      INTENT_RECIPIENT: recipient,
    })
    assert.equal(r.code, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /^transfer: 0x11 EXECUTED \(done\) intent 0x[0-9a-f]{64}$/m)
    assert.match(r.stdout, /^approve \+ swap: 0x11 EXECUTED \(done\) intent 0x[0-9a-f]{64}$/m)
    assert.equal(await dollarsOf(agent.address), before - parseUnits('6', 6))
  })
})
