// The client library and the CLI in account mode (EIP-7702) against a real gateway on anvil
// (Prague) with the devnet's IntentAccount: the hashes and typed data are the contract's own
// (intentSigningHash, batchSigningHash, the IntentExecuted hash of executeBatch), the agent's
// first intent carries the authorization the client signed and runs from the agent's own address,
// a session key signs for the agent within its policy only, and bad input is refused locally
// (exit 2 for the CLI) with nothing sent. Batches through the gateway and GET /accounts are in
// accountBatch.test.ts.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  type Address,
  concatHex,
  decodeEventLog,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  hashTypedData,
  keccak256,
  parseEther,
  parseUnits,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { demoSwapArtifact } from '../../src/contracts/demoSwapArtifact.ts'
import { intentAccountArtifact } from '../../src/contracts/intentAccountArtifact.ts'
import { post, startWorld, type World } from '../../test/support/testGateway.ts'
import { toEvmBatch } from '../src/evm/toEvmBatch.ts'
import {
  type BatchIntentInput,
  createGatewayClient,
  evmTypedData,
  GatewayClientError,
  hashIntent,
  type IntentInput,
  signAccountAuthorization,
  signIntent,
  toIntentBody,
} from '../src/index.ts'

const agent = privateKeyToAccount(devnetAccounts.agent)
const sessionKey = privateKeyToAccount(devnetAccounts.sessionKey)
const relayer = privateKeyToAccount(devnetAccounts.relayer).address
const recipient = privateKeyToAccount(devnetAccounts.treasury).address
const transferTopic = keccak256(toHex('Transfer(address,address,uint256)'))
const bin = resolve(import.meta.dirname, '../bin/intent-gateway.js')

type Run = { code: number; stdout: string; stderr: string }
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    )
  })
}

describe('client and CLI in account mode against the devnet', () => {
  let world: World
  let nonce = 5_000n
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

  const transfer = (amount: bigint, overrides: Partial<IntentInput> = {}): IntentInput => ({
    sender: agent.address,
    target: contracts().dollar,
    data: encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'transfer', args: [recipient, amount] }),
    value: 0n,
    nonce: nonce++,
    policyId: world.devnet.demo.account.policies.own,
    mode: 'account',
    ...overrides,
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
        value: 0n,
      },
    ],
    nonce: nonce++,
    validBefore: 4_000_000_000n,
    policyId: world.devnet.demo.account.policies.own,
    mode: 'account',
  })
  /** Reads the agent's IntentAccount as the chain sees it once delegated (its code overridden, as the gateway simulates). */
  async function atAgent(functionName: 'intentSigningHash' | 'batchSigningHash', arg: unknown): Promise<Hex> {
    const data = encodeFunctionData({ abi: intentAccountArtifact.abi, functionName, args: [arg] } as never)
    const { data: out } = await pc().call({
      to: agent.address,
      data,
      stateOverride: [{ address: agent.address, code: delegation() }],
    })
    return decodeFunctionResult({ abi: intentAccountArtifact.abi, functionName, data: out! } as never) as Hex
  }

  before(async () => {
    world = await startWorld({ receiptTimeoutMs: 15_000 })
  })
  after(async () => {
    await world?.stop()
  })

  it("signs what IntentAccount verifies: the account domain (chain, the agent's own address) for a single call and a batch, equal to intentSigningHash and batchSigningHash", async () => {
    const client = createGatewayClient({ url: url() })
    const chain = await client.getChain()
    const single = toIntentBody(transfer(7n, { value: 3n, validAfter: 1n, validBefore: 99n }))
    const typed = evmTypedData(single, chain)
    assert.deepEqual(typed.domain, {
      name: 'IntentAccount',
      version: '1',
      chainId: world.devnet.anvil.chainId,
      verifyingContract: agent.address,
    })
    assert.equal(hashTypedData(typed), await atAgent('intentSigningHash', typed.message))
    // A value and data in every call: a Call encoded (target, data, value) would not match.
    const batch = toIntentBody({
      ...approveAndSwap(11n),
      calls: [
        { target: contracts().counter, data: '0xd09de08a', value: 5n },
        { target: contracts().swap, data: '0x', value: 1n },
        { target: contracts().dollar, data: '0x095ea7b3', value: 0n },
      ],
    })
    const batchTyped = evmTypedData(batch, chain)
    assert.equal(batchTyped.primaryType, 'BatchIntent')
    assert.equal(hashTypedData(batchTyped), await atAgent('batchSigningHash', batchTyped.message))
    // Executor mode keeps the executor's domain: the same intent, another digest.
    const executorTyped = evmTypedData({ ...single, mode: 'executor' }, chain)
    assert.equal(getAddress(executorTyped.domain.verifyingContract), contracts().executor)
    assert.notEqual(hashTypedData(executorTyped), hashTypedData(typed))
  })

  it('X-Intent-Hash of an account-mode intent is the client’s hash; the authorization and signature are not part of it', async () => {
    const client = createGatewayClient({ url: url(), account: agent })
    const intent = transfer(1n)
    const authorization = await client.signAuthorization({
      nonce: await pc().getTransactionCount({ address: agent.address }),
    })
    const answered = await post(
      url(),
      '/intents/validate',
      { ...toIntentBody({ ...intent, authorization }), signature: await client.signIntent(intent) },
      { 'x-chain-id': world.devnet.chain.chainId },
    )
    assert.equal(answered.status, 200, answered.text)
    assert.equal(answered.headers.get('x-intent-hash'), hashIntent(intent))
    assert.equal(hashIntent({ ...intent, authorization }), hashIntent(intent))
    assert.equal(await client.hashIntent(intent), hashIntent(intent))
  })

  it('an unsigned account-mode intent is answered 401 0xE5 (action sign) with the typed data the client signs', async () => {
    const client = createGatewayClient({ url: url() })
    const intent = transfer(9n)
    const authorization = await createGatewayClient({ url: url(), account: agent }).signAuthorization({
      nonce: await pc().getTransactionCount({ address: agent.address }),
    })
    const refused = await client.execute({ ...intent, authorization })
    assert.equal(refused.httpStatus, 401, JSON.stringify(refused.body))
    assert.equal(refused.status, '0xE5')
    assert.equal(refused.action, 'sign')
    const signing = refused.signing as {
      domain: Record<string, unknown>
      types: Record<string, unknown>
      primaryType: string
      message: Record<string, unknown>
    }
    const typed = evmTypedData(toIntentBody(intent), await client.getChain())
    const { EIP712Domain: _, ...types } = signing.types
    assert.deepEqual(types, typed.types)
    assert.equal(signing.primaryType, typed.primaryType)
    assert.deepEqual(
      { ...signing.domain, verifyingContract: getAddress(String(signing.domain.verifyingContract)) },
      typed.domain,
    )
    assert.deepEqual(
      Object.fromEntries(Object.entries(typed.message).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v])),
      signing.message,
    )
  })

  it('refuses bad account-mode input locally, naming the field, before anything is sent', () => {
    const cases: Array<[string, () => unknown]> = [
      ['calls', () => toIntentBody({ ...approveAndSwap(1n), calls: [] })],
      [
        'calls',
        () => toIntentBody({ ...approveAndSwap(1n), calls: Array.from({ length: 17 }, () => ({ target: recipient })) }),
      ],
      ['mode', () => toIntentBody({ ...approveAndSwap(1n), mode: undefined } as never)],
      ['mode', () => toIntentBody({ ...approveAndSwap(1n), mode: 'executor' })],
      ['target', () => toIntentBody({ ...approveAndSwap(1n), target: recipient } as never)],
      [
        'calls[1].value',
        () => toIntentBody({ ...approveAndSwap(1n), calls: [{ target: recipient }, { target: recipient, value: -1 }] }),
      ],
      ['calls[0].data', () => toIntentBody({ ...approveAndSwap(1n), calls: [{ target: recipient, data: '0x1' }] })],
      [
        'calls[0].to',
        () => toIntentBody({ ...approveAndSwap(1n), calls: [{ target: recipient, to: recipient } as never] }),
      ],
      ['mode', () => toIntentBody({ ...transfer(1n), mode: 'delegated' as never })],
      [
        'authorization',
        () =>
          toIntentBody({
            ...transfer(1n),
            mode: undefined,
            authorization: { chainId: 1, address: recipient, nonce: 0, yParity: 0, r: '0x1', s: '0x1' },
          } as never),
      ],
      [
        'authorization.yParity',
        () =>
          toIntentBody({
            ...transfer(1n),
            authorization: { chainId: 1, address: recipient, nonce: 0, yParity: 2, r: '0x1', s: '0x1' },
          }),
      ],
      [
        'authorization.nonce',
        () =>
          toIntentBody({
            ...transfer(1n),
            authorization: { chainId: 1, address: recipient, nonce: -1, yParity: 0, r: '0x1', s: '0x1' },
          }),
      ],
      [
        'authorization.address',
        () =>
          toIntentBody({
            ...transfer(1n),
            authorization: { chainId: 1, address: 'delegate', nonce: 0, yParity: 0, r: '0x1', s: '0x1' },
          }),
      ],
    ]
    for (const [field, make] of cases) {
      assert.throws(
        make,
        (err: unknown) => err instanceof GatewayClientError && err.code === 'INVALID_INTENT' && err.field === field,
        field,
      )
    }
    assert.throws(
      () => hashIntent(approveAndSwap(1n), { chainType: 'sui' }),
      (err: unknown) => err instanceof GatewayClientError && err.field === 'calls',
    )
  })

  it("an undelegated agent without an authorization (authorize: false) is answered 403 account-not-delegated as a value, nothing sent; so is a session key's intent (it cannot delegate the agent)", async () => {
    assert.equal(await codeOf(agent.address), '0x')
    const before = { relayer: await relayerTxs(), dollars: await dollarsOf(agent.address) }
    const own = await createGatewayClient({ url: url(), account: agent }).execute(transfer(1n), { authorize: false })
    const session = await createGatewayClient({ url: url(), account: sessionKey }).execute(
      transfer(1n, { policyId: world.devnet.demo.account.policies.session }),
    )
    for (const result of [own, session]) {
      assert.equal(result.httpStatus, 403, JSON.stringify(result.body))
      assert.equal(result.status, '0x10')
      assert.equal(result.action, 'deny')
      assert.equal(result.body.type, 'urn:intent-gateway:problem:account-not-delegated')
    }
    assert.equal(await relayerTxs(), before.relayer, 'nothing was sent')
    assert.equal(await dollarsOf(agent.address), before.dollars)
    assert.equal(await codeOf(agent.address), '0x')
  })

  it('on a gateway without GET /accounts: account() says UNSUPPORTED, and execute sends the intent without an authorization (403 account-not-delegated, nothing sent)', async () => {
    // An older gateway: GET /accounts/… is an unknown route there (the gateway's own 404 for one).
    const older: typeof fetch = (input, init) =>
      globalThis.fetch(String(input).replace('/accounts/', '/no-such-route/'), init)
    const client = createGatewayClient({ url: url(), account: agent, fetch: older })
    await assert.rejects(
      client.account(agent.address),
      (err: unknown) =>
        err instanceof GatewayClientError && err.code === 'UNSUPPORTED' && /authorization/.test(err.message),
    )
    const before = await relayerTxs()
    const result = await client.execute(transfer(1n))
    assert.equal(result.httpStatus, 403, JSON.stringify(result.body))
    assert.equal(result.body.type, 'urn:intent-gateway:problem:account-not-delegated')
    assert.equal(await relayerTxs(), before)
  })

  it("delegates and executes in one with the authorization the client signed: the agent's own DemoDollar moves (Transfer from the agent), the relayer pays the gas, the agent none", async () => {
    const client = createGatewayClient({ url: url(), account: agent, mode: 'account' })
    const amount = parseUnits('3', 6)
    const before = {
      agentEth: await ethOf(agent.address),
      agentDollars: await dollarsOf(agent.address),
      relayerEth: await ethOf(relayer),
    }
    const authorization = await client.signAuthorization({
      nonce: await pc().getTransactionCount({ address: agent.address }),
    })
    assert.deepEqual(Object.keys(authorization).sort(), ['address', 'chainId', 'nonce', 'r', 's', 'yParity'])
    assert.equal(authorization.chainId, world.devnet.anvil.chainId)
    assert.equal(getAddress(authorization.address), contracts().accountDelegate)
    const { mode: _, ...intent } = transfer(amount)
    const result = await client.execute({ ...intent, authorization })
    assert.equal(result.httpStatus, 200, JSON.stringify(result.body))
    assert.equal(result.status, '0x11')
    assert.equal(result.action, 'done')
    assert.equal(result.intentHash, hashIntent(intent))
    assert.equal(await codeOf(agent.address), delegation())
    const receipt = await pc().getTransactionReceipt({ hash: result.transactionHash! })
    assert.equal(receipt.type, 'eip7702')
    const log = receipt.logs.find((l) => l.topics[0] === transferTopic)!
    assert.equal(getAddress(`0x${log.topics[1]!.slice(26)}`), agent.address, 'msg.sender at the token is the agent')
    assert.equal(await dollarsOf(agent.address), before.agentDollars - amount)
    assert.equal(await ethOf(agent.address), before.agentEth, 'the agent paid no gas')
    assert.equal(await ethOf(relayer), before.relayerEth - receipt.gasUsed * receipt.effectiveGasPrice)
  })

  it('delegated: the next intent goes without an authorization (the client signs none), and runs', async () => {
    const client = createGatewayClient({ url: url(), account: agent, mode: 'account' })
    const before = await dollarsOf(agent.address)
    const result = await client.execute(transfer(2n))
    assert.equal(result.httpStatus, 200, JSON.stringify(result.body))
    const tx = await pc().getTransaction({ hash: result.transactionHash! })
    assert.equal(tx.type, 'eip1559', 'no authorization list')
    assert.equal(await dollarsOf(agent.address), before - 2n)
  })

  it("a session key signs for the agent within its policy (the counter, 0.01 ETH from the agent's own balance); beyond it the intent is refused, nothing moves", async () => {
    const client = createGatewayClient({ url: url(), account: sessionKey, mode: 'account' })
    const counter = contracts().counter
    const count = () =>
      pc().readContract({
        address: counter,
        abi: demoCounterArtifact.abi,
        functionName: 'count',
      } as never) as Promise<bigint>
    const increment = (value: bigint): IntentInput => ({
      sender: agent.address,
      target: counter,
      data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
      value,
      nonce: nonce++,
      policyId: world.devnet.demo.account.policies.session,
    })
    const before = { count: await count(), agentEth: await ethOf(agent.address), counterEth: await ethOf(counter) }
    const ok = await client.execute(increment(parseEther('0.01')))
    assert.equal(ok.httpStatus, 200, JSON.stringify(ok.body))
    assert.equal(await count(), before.count + 1n)
    assert.equal(
      await ethOf(agent.address),
      before.agentEth - parseEther('0.01'),
      "value comes from the agent's own balance",
    )
    assert.equal(await ethOf(counter), before.counterEth + parseEther('0.01'))

    const txs = await relayerTxs()
    const agentDollars = await dollarsOf(agent.address)
    const tooMuch = await client.execute(increment(parseEther('0.02')))
    assert.equal(tooMuch.ok, false, JSON.stringify(tooMuch.body))
    assert.equal(tooMuch.status, '0x54', JSON.stringify(tooMuch.body))
    assert.equal(tooMuch.httpStatus, 402)
    // Outside the session policy's targets: the agent's tokens are not the session key's.
    const theft = await client.execute(transfer(1n, { policyId: world.devnet.demo.account.policies.session }))
    assert.equal(theft.httpStatus, 403, JSON.stringify(theft.body))
    assert.equal(theft.status, '0x10')
    assert.equal(await relayerTxs(), txs, 'nothing was sent')
    assert.equal(await count(), before.count + 1n)
    assert.equal(await dollarsOf(agent.address), agentDollars)
  })

  it("a batch the client signed runs on chain from the agent's account (approve + swap), and IntentExecuted carries the client's batch hash", async () => {
    // Relayed by hand here (anyone may relay): the gateway's batches are in accountBatch.test.ts.
    const other = world.clients.walletFor(devnetAccounts.other)
    const dollars = parseUnits('10', 6)
    const batch = approveAndSwap(dollars)
    const signature = await signIntent({
      intent: batch,
      chain: await createGatewayClient({ url: url() }).getChain(),
      signer: agent,
    })
    const message = toEvmBatch(toIntentBody(batch))
    const before = { dollars: await dollarsOf(agent.address), eth: await ethOf(agent.address) }
    const hash = await other.sendTransaction({
      to: agent.address,
      data: encodeFunctionData({
        abi: intentAccountArtifact.abi,
        functionName: 'executeBatch',
        args: [message, signature],
      } as never),
      account: other.account!,
      chain: other.chain,
    } as never)
    const receipt = await pc().waitForTransactionReceipt({ hash })
    assert.equal(receipt.status, 'success')
    const executed = receipt.logs
      .filter((l) => getAddress(l.address) === agent.address)
      .map((l) => {
        try {
          return decodeEventLog({ abi: intentAccountArtifact.abi, ...l } as never) as {
            eventName: string
            args: { intentHash: Hex }
          }
        } catch {
          return undefined
        }
      })
      .find((e) => e?.eventName === 'IntentExecuted')
    assert.equal(executed?.args.intentHash, hashIntent(batch))
    const swapped = receipt.logs.find((l) => getAddress(l.address) === contracts().swap)!
    assert.equal(getAddress(`0x${swapped.topics[1]!.slice(26)}`), agent.address, 'the trader at the pool is the agent')
    assert.equal(await dollarsOf(agent.address), before.dollars - dollars)
    assert.equal(
      await ethOf(agent.address),
      before.eth + dollars * (10n ** 18n / 2000_000_000n),
      'the ETH the dollars bought, the agent paying no gas',
    )
  })

  it('CLI: execute --mode account with the agent’s key (exit 0, its DemoDollar moves), sign and hash for account mode and batches, the account delegate in chains', async () => {
    const env = { INTENT_GATEWAY_URL: url(), INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.agent }
    const i = toIntentBody(transfer(4n))
    const flags = [
      '--mode',
      'account',
      '--sender',
      i.sender,
      '--target',
      i.target,
      '--data',
      i.data,
      '--nonce',
      i.nonce,
      '--policy-id',
      i.policyId,
    ]
    const before = await dollarsOf(agent.address)
    const run = await cli(['execute', '--json', ...flags], env)
    assert.equal(run.code, 0, run.stdout + run.stderr)
    const out = JSON.parse(run.stdout)
    assert.equal(out.status, '0x11')
    assert.equal(out.intentHash, hashIntent(i))
    assert.equal(await dollarsOf(agent.address), before - 4n)
    assert.ok(
      !run.stdout.includes(devnetAccounts.agent.slice(2)) && !run.stderr.includes(devnetAccounts.agent.slice(2)),
      'the key is never printed',
    )

    const validated = await cli(
      [
        'validate',
        '--json',
        '--mode',
        'account',
        '--sender',
        i.sender,
        '--target',
        i.target,
        '--data',
        i.data,
        '--nonce',
        String(nonce++),
        '--policy-id',
        i.policyId,
      ],
      env,
    )
    assert.equal(validated.code, 0, validated.stdout + validated.stderr)
    assert.equal(
      JSON.parse(validated.stdout).status,
      '0x01',
      'validate in account mode is signed with the key (unsigned: 0xE5)',
    )

    const next = toIntentBody(transfer(5n))
    const signed = await cli(
      [
        'sign',
        '--json',
        '--mode',
        'account',
        '--sender',
        next.sender,
        '--target',
        next.target,
        '--data',
        next.data,
        '--nonce',
        next.nonce,
        '--policy-id',
        next.policyId,
      ],
      env,
    )
    assert.equal(signed.code, 0, signed.stderr)
    const chain = await createGatewayClient({ url: url() }).getChain()
    assert.equal(JSON.parse(signed.stdout).signature, await signIntent({ intent: next, chain, signer: agent }))

    const batch = approveAndSwap(1n)
    const calls = JSON.stringify(toIntentBody(batch).calls)
    const hashed = await cli([
      'hash',
      '--chain-type',
      'evm',
      '--mode',
      'account',
      '--sender',
      agent.address,
      '--calls',
      calls,
      '--nonce',
      String(batch.nonce),
      '--valid-before',
      String(batch.validBefore),
      '--policy-id',
      batch.policyId,
    ])
    assert.equal(hashed.code, 0, hashed.stderr)
    assert.equal(hashed.stdout.trim(), hashIntent(batch))

    const chains = await cli(['chains'], env)
    assert.equal(chains.code, 0, chains.stderr)
    assert.match(chains.stdout, new RegExp(`account delegate\\s+${contracts().accountDelegate}`, 'i'))
  })

  it('CLI: bad account-mode usage exits 2 naming the flag, nothing sent', async () => {
    const env = { INTENT_GATEWAY_URL: url(), INTENT_SIGNER_PRIVATE_KEY: devnetAccounts.agent }
    const base = ['--sender', agent.address, '--nonce', '1', '--policy-id', world.devnet.demo.account.policies.own]
    const txs = await relayerTxs()
    const cases: Array<[string[], RegExp]> = [
      [['execute', ...base, '--mode', 'account', '--calls', '[{"target": '], /--calls is not JSON/],
      [
        ['execute', ...base, '--mode', 'account', '--calls', '/no/such/calls.json'],
        /--calls \/no\/such\/calls\.json: not JSON, and no file can be read there \(ENOENT\)/,
      ],
      [['execute', ...base, '--mode', 'account', '--calls', '{"target": "0x"}'], /--calls must be a JSON list/],
      [
        ['execute', ...base, '--mode', 'account', '--calls', '[]'],
        /calls must hold 1 to 16 calls \(it holds 0\) \(--calls\)/,
      ],
      [
        ['execute', ...base, '--calls', `[{"target":"${recipient}"}]`],
        /mode must be "account" for a batch .*\(--mode\)/,
      ],
      [
        ['execute', ...base, '--mode', 'account', '--target', recipient, '--calls', `[{"target":"${recipient}"}]`],
        /target must be left out of a batch.*\(--target\)/,
      ],
      [
        ['execute', ...base, '--target', recipient, '--mode', 'delegated'],
        /mode must be "executor" or "account" \(--mode\)/,
      ],
      [
        ['execute', ...base, '--target', recipient, '--mode', 'account', '--authorization', '[1]'],
        /--authorization must be a JSON object/,
      ],
      [
        ['execute', ...base, '--target', recipient, '--authorization', '{"chainId":1}'],
        /authorization is taken in account mode only.*\(--authorization\)/,
      ],
      [['account'], /account takes one argument/],
      [['account', '0x1234'], /must be an EVM address/],
    ]
    for (const [args, message] of cases) {
      const r = await cli(args, env)
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`)
      assert.match(r.stderr, message, args.join(' '))
    }
    const help = await cli(['--help'])
    for (const flag of [
      '--mode <executor|account>',
      '--calls <json|file>',
      '--authorization <json|file>',
      '--no-authorize',
      'account <address>',
    ])
      assert.ok(help.stdout.includes(flag), flag)
    assert.equal(await relayerTxs(), txs)
  })

  it('a gateway naming another account delegate: a client pinned to the delegate (accountDelegate) signs no authorization for it; an unpinned one trusts the gateway', async () => {
    const attacker = contracts().executor
    // The gateway's GET /chains answer, its accountDelegate swapped for a contract that is not IntentAccount.
    const lying: typeof fetch = async (input, init) => {
      const response = await globalThis.fetch(input, init)
      if (!/\/chains(\/|$)/.test(new URL(String(input)).pathname)) return response
      const body = JSON.parse(await response.text())
      for (const chain of body.chains ?? [body])
        if (chain.contracts?.accountDelegate) chain.contracts.accountDelegate = attacker
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers })
    }
    const pinned = createGatewayClient({
      url: url(),
      account: agent,
      fetch: lying,
      accountDelegate: contracts().accountDelegate,
    })
    await assert.rejects(
      pinned.signAuthorization({ nonce: 0 }),
      (err: unknown) =>
        err instanceof GatewayClientError && err.field === 'accountDelegate' && err.message.includes(attacker),
    )
    // Pinned to the true delegate against the true gateway: signed as usual.
    const honest = createGatewayClient({ url: url(), account: agent, accountDelegate: contracts().accountDelegate })
    assert.equal(getAddress((await honest.signAuthorization({ nonce: 0 })).address), contracts().accountDelegate)
    const trusting = createGatewayClient({ url: url(), account: agent, fetch: lying })
    assert.equal(getAddress((await trusting.signAuthorization({ nonce: 0 })).address), attacker)
  })

  it('CLI account on a gateway that does not serve GET /accounts (here: a path prefix it has no routes under): exit 3, UNSUPPORTED, with what to do', async () => {
    const r = await cli(['account', agent.address, '--json', '--url', `${url()}/older`])
    assert.equal(r.code, 3, r.stdout + r.stderr)
    const out = JSON.parse(r.stdout)
    assert.equal(out.error.code, 'UNSUPPORTED')
    assert.match(out.error.message, /sign the authorization yourself/)
  })

  it('signAccountAuthorization refuses chain 0 and a signer that cannot sign authorizations', async () => {
    await assert.rejects(
      signAccountAuthorization({ signer: agent, chainId: 0, delegate: contracts().accountDelegate, nonce: 0 }),
      (err: unknown) => err instanceof GatewayClientError && err.field === 'chainId',
    )
    const typedOnly = { address: agent.address, signTypedData: agent.signTypedData }
    await assert.rejects(
      signAccountAuthorization({ signer: typedOnly, chainId: 1, delegate: contracts().accountDelegate, nonce: 0 }),
      /cannot sign EIP-7702 authorizations/,
    )
  })
})
