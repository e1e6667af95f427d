// IntentAccount, the EIP-7702 delegate, against anvil (Prague): an agent's EOA that holds
// DemoDollar and no deposit delegates with a signed authorization, and the relayer runs the
// agent's signed intents from the agent's own address in type-4 transactions, paying the gas.
// Then the attacks, each written to fail on a naive delegate, each asserting the relayer's and
// the agent's balances: replays across chains and accounts (of an intent and of an
// authorization), a stranger using the agent's authorization first, re-delegation between two
// calls, a session key exceeding its policy through a batch, storage left by another delegate,
// reentrancy, a target reaching for more tokens than the intent gave, forbidden targets, and one
// nonce space for both modes.
import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import solc from 'solc'
import {
  type Address,
  concatHex,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  hashTypedData,
  keccak256,
  parseEther,
  parseUnits,
  type TransactionReceipt,
  toFunctionSelector,
  toHex,
} from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { accountDomain, batchIntentTypes, intentTypedData, intentTypes } from '../../src/chains/evm/intentTypedData.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import { demoSwapArtifact } from '../../src/contracts/demoSwapArtifact.ts'
import { intentAccountArtifact } from '../../src/contracts/intentAccountArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { intentLedgerArtifact } from '../../src/contracts/intentLedgerArtifact.ts'
import { policyRegistryArtifact } from '../../src/contracts/policyRegistryArtifact.ts'
import { rpc } from '../support/testGateway.ts'

const helpersSource = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IToken {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function balanceOf(address who) external view returns (uint256);
}

/// Calls back into the account that called it with calldata armed beforehand (the very intent
/// being run, or another), and records whether that got through.
contract Reentrant {
    address public account;
    bytes public replay;
    uint256 public pokes;
    bool public reentered;

    function arm(address account_, bytes calldata replay_) external {
        account = account_;
        replay = replay_;
    }

    function poke() external payable {
        pokes += 1;
        if (pokes > 1) return;
        (bool ok,) = account.call(replay);
        reentered = ok;
    }
}

/// Takes what the batch approved, then reaches for the rest of the victim's tokens.
contract Thief {
    struct Execution {
        address target;
        uint256 value;
        bytes callData;
    }

    uint256 public extraTaken;

    function take(address token, address victim, uint256 amount) external {
        require(IToken(token).transferFrom(victim, address(this), amount), "approved amount");
        uint256 rest = IToken(token).balanceOf(victim);
        try IToken(token).transferFrom(victim, address(this), rest) returns (bool ok) {
            if (ok) extraTaken += rest;
        } catch {}
        // The account's ERC-7821 batch execution, asked by someone other than the account.
        Execution[] memory calls = new Execution[](1);
        calls[0] = Execution(token, 0, abi.encodeWithSignature("transfer(address,uint256)", address(this), rest));
        (bool ok2,) = victim.call(abi.encodeWithSignature("execute(bytes32,bytes)", bytes32(uint256(1) << 248), abi.encode(calls)));
        if (ok2) extraTaken += rest;
    }
}

/// Another wallet's delegate: writes anywhere in the EOA's storage and accepts any call.
contract JunkDelegate {
    function scribble(bytes32[] calldata slots, bytes32[] calldata values) external {
        for (uint256 i = 0; i < slots.length; i++) {
            bytes32 slot = slots[i];
            bytes32 value = values[i];
            assembly {
                sstore(slot, value)
            }
        }
    }

    fallback() external payable {}
}
`

type Helper = { abi: readonly unknown[]; bytecode: Hex }
type Helpers = Record<'Reentrant' | 'Thief' | 'JunkDelegate', Helper>

function compileHelpers(): Helpers {
  const input = {
    language: 'Solidity',
    sources: { 'H.sol': { content: helpersSource } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
  const pick = (name: string) => ({
    abi: out.contracts['H.sol'][name].abi,
    bytecode: `0x${out.contracts['H.sol'][name].evm.bytecode.object}` as Hex,
  })
  return { Reentrant: pick('Reentrant'), Thief: pick('Thief'), JunkDelegate: pick('JunkDelegate') }
}

type Intent = {
  sender: Address
  target: Address
  data: Hex
  value: bigint
  nonce: bigint
  validAfter: bigint
  validBefore: bigint
  policyId: Hex
}
type Call = { target: Address; value: bigint; data: Hex }
type Batch = { sender: Address; calls: Call[]; nonce: bigint; validAfter: bigint; validBefore: bigint; policyId: Hex }

const inputOf = (name: string) =>
  (intentAccountArtifact.abi.find((i) => i.type === 'function' && i.name === name) as { inputs: readonly unknown[] })
    .inputs[0]
/** keccak256(abi.encode(intent)) and keccak256(abi.encode(batch)): the hashes IntentExecuted carries, from the compiled ABI. */
const hashIntent = (intent: Intent) =>
  keccak256(encodeAbiParameters([inputOf('executeIntent')] as never, [intent] as never))
const hashBatch = (batch: Batch) => keccak256(encodeAbiParameters([inputOf('executeBatch')] as never, [batch] as never))
const intentExecutedTopic = keccak256(toHex('IntentExecuted(bytes32,bytes1,address,bytes)'))
const ledgerSlotJunk = `0x${'ab'.repeat(32)}` as Hex

describe('IntentAccount: an agent executes from its own EOA through EIP-7702', () => {
  let devnet: Devnet
  let clients: ReturnType<typeof createDevClients>
  let helpers: Helpers
  let anyCall: Hex
  let snapshot: Hex
  const agent = privateKeyToAccount(devnetAccounts.agent)
  const relayerKey = devnetAccounts.relayer
  const relayer = privateKeyToAccount(relayerKey).address
  const sessionKey = privateKeyToAccount(devnetAccounts.sessionKey)
  const recipient = privateKeyToAccount(devnetAccounts.treasury).address
  let nonce = 100n

  const pc = () => clients.publicClient
  const ethOf = (who: Address) => pc().getBalance({ address: who })
  const dollarsOf = (who: Address) =>
    pc().readContract({
      address: devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  const codeOf = async (who: Address) => (await pc().getCode({ address: who })) ?? '0x'
  const delegation = (delegate: Address) => concatHex(['0xef0100', delegate]).toLowerCase()
  const nonceUsed = (who: Address, n: bigint) =>
    pc().readContract({
      address: devnet.contracts.ledger,
      abi: intentLedgerArtifact.abi,
      functionName: 'nonceUsed',
      args: [who, n],
    })

  async function send(
    key: Hex,
    tx: { to: Address; data?: Hex; value?: bigint; authorizationList?: unknown[]; gas?: bigint },
  ): Promise<TransactionReceipt> {
    const wallet = clients.walletFor(key)
    const hash = await wallet.sendTransaction({ ...tx, account: wallet.account!, chain: wallet.chain } as never)
    return pc().waitForTransactionReceipt({ hash })
  }
  /** What a transaction cost its sender: gas × effective price (it carries no value in these tests). */
  const paidFor = (r: TransactionReceipt) => r.gasUsed * r.effectiveGasPrice
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
    const wallet = clients.walletFor(key)
    const hash = await wallet.writeContract({ ...call, account: wallet.account!, chain: wallet.chain } as never)
    const receipt = await pc().waitForTransactionReceipt({ hash })
    assert.equal(receipt.status, 'success', `${call.functionName} reverted`)
    return receipt
  }
  async function deploy(helper: Helper): Promise<Address> {
    const wallet = clients.walletFor(devnetAccounts.other)
    const hash = await wallet.deployContract({
      abi: helper.abi,
      bytecode: helper.bytecode,
      account: wallet.account!,
      chain: wallet.chain,
    } as never)
    return getAddress((await pc().waitForTransactionReceipt({ hash })).contractAddress!)
  }
  /** The agent's EIP-7702 authorization: this chain, the delegate, the agent's current nonce unless told. */
  async function authorize(
    options: { signer?: PrivateKeyAccount; chainId?: number; address?: Address; nonce?: number } = {},
  ) {
    const signer = options.signer ?? agent
    return signer.signAuthorization({
      chainId: options.chainId ?? devnet.anvil.chainId,
      address: options.address ?? devnet.contracts.accountDelegate,
      nonce: options.nonce ?? (await pc().getTransactionCount({ address: signer.address })),
    })
  }
  const signIntent = (
    intent: Intent,
    {
      signer = agent,
      chainId = devnet.anvil.chainId,
      account = intent.sender,
    }: { signer?: PrivateKeyAccount; chainId?: number; account?: Address } = {},
  ) =>
    signer.signTypedData({
      domain: accountDomain({ chainId, account }),
      types: intentTypes,
      primaryType: 'Intent',
      message: intent,
    })
  const signBatch = (
    batch: Batch,
    { signer = agent, chainId = devnet.anvil.chainId }: { signer?: PrivateKeyAccount; chainId?: number } = {},
  ) =>
    signer.signTypedData({
      domain: accountDomain({ chainId, account: batch.sender }),
      types: batchIntentTypes,
      primaryType: 'BatchIntent',
      message: batch,
    })
  const executeIntentData = (intent: Intent, signature: Hex) =>
    encodeFunctionData({ abi: intentAccountArtifact.abi, functionName: 'executeIntent', args: [intent, signature] })
  const executeBatchData = (batch: Batch, signature: Hex) =>
    encodeFunctionData({ abi: intentAccountArtifact.abi, functionName: 'executeBatch', args: [batch, signature] })
  const increment = (by = 1n) =>
    encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [by] })
  const transferDollars = (to: Address, amount: bigint) =>
    encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'transfer', args: [to, amount] })
  const intentOf = (overrides: Partial<Intent> = {}): Intent => ({
    sender: agent.address,
    target: devnet.contracts.counter,
    data: increment(),
    value: 0n,
    nonce: nonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId: devnet.demo.account.policies.own,
    ...overrides,
  })
  const batchOf = (calls: Call[], overrides: Partial<Batch> = {}): Batch => ({
    sender: agent.address,
    calls,
    nonce: nonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId: anyCall,
    ...overrides,
  })
  /** The IntentExecuted logs a receipt holds from `emitter` for `hash`. */
  const executedLogs = (receipt: TransactionReceipt, emitter: Address, hash: Hex) =>
    receipt.logs.filter(
      (l) =>
        l.address.toLowerCase() === emitter.toLowerCase() &&
        l.topics[0] === intentExecutedTopic &&
        l.topics[1] === hash,
    )
  /** Delegates the agent (or `signer`) to IntentAccount in a relayed type-4 transaction that calls nothing else. */
  async function delegate(signer: PrivateKeyAccount = agent) {
    const receipt = await send(relayerKey, {
      to: signer.address,
      data: '0x',
      authorizationList: [await authorize({ signer })],
    })
    assert.equal(receipt.status, 'success')
    assert.equal(await codeOf(signer.address), delegation(devnet.contracts.accountDelegate))
  }
  const checkBatch = (batch: Batch, signature: Hex) =>
    pc().readContract({
      address: batch.sender,
      abi: intentAccountArtifact.abi,
      functionName: 'checkBatch',
      args: [batch, signature],
    }) as Promise<readonly [Hex, bigint]>
  const checkIntent = (intent: Intent, signature: Hex) =>
    pc().readContract({
      address: intent.sender,
      abi: intentAccountArtifact.abi,
      functionName: 'checkIntent',
      args: [intent, signature],
    })

  before(async () => {
    helpers = compileHelpers()
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    // A policy of the agent's that allows any call: for tests whose targets are helpers.
    const salt = saltOf('test.account.any-call')
    const policy = {
      owner: agent.address,
      allowedTargets: [],
      allowedSelectors: [],
      maxValuePerTx: parseEther('1'),
      maxAggregateValue: parseEther('10'),
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [],
    }
    await write(devnetAccounts.agent, {
      address: devnet.contracts.registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'createPolicy',
      args: [salt, policy],
    })
    anyCall = derivePolicyId(agent.address, salt)
  })
  after(async () => {
    await devnet?.stop()
  })
  beforeEach(async () => {
    snapshot = (await rpc(devnet.anvil.rpcUrl, 'evm_snapshot', [])) as Hex
  })
  afterEach(async () => {
    assert.equal(await rpc(devnet.anvil.rpcUrl, 'evm_revert', [snapshot]), true)
  })

  it("hashes as the gateway will: EIP-712 digests under the account's domain, and keccak256(abi.encode(...)) for IntentExecuted", async () => {
    await delegate()
    const intent = intentOf()
    const batch = batchOf([{ target: devnet.contracts.counter, value: 1n, data: increment(2n) }])
    const onChainIntent = await pc().readContract({
      address: agent.address,
      abi: intentAccountArtifact.abi,
      functionName: 'intentSigningHash',
      args: [intent],
    })
    assert.equal(
      onChainIntent,
      hashTypedData({
        domain: accountDomain({ chainId: devnet.anvil.chainId, account: agent.address }),
        types: intentTypes,
        primaryType: 'Intent',
        message: intent,
      }),
    )
    const onChainBatch = await pc().readContract({
      address: agent.address,
      abi: intentAccountArtifact.abi,
      functionName: 'batchSigningHash',
      args: [batch],
    })
    assert.equal(
      onChainBatch,
      hashTypedData({
        domain: accountDomain({ chainId: devnet.anvil.chainId, account: agent.address }),
        types: batchIntentTypes,
        primaryType: 'BatchIntent',
        message: batch,
      }),
    )
    // A single-call intent's hash is the executor's intent hash for the same fields.
    assert.equal(
      hashIntent(intent),
      keccak256(
        encodeAbiParameters(
          [intentExecutorArtifact.abi.find((i) => i.type === 'function' && i.name === 'execute')!.inputs[0]] as never,
          [intent] as never,
        ),
      ),
    )
  })

  it("delegates and executes in one type-4 transaction: the agent's own DemoDollar moves, the relayer pays the gas, IntentExecuted comes from the agent", async () => {
    assert.equal(await codeOf(agent.address), '0x', 'the agent starts undelegated')
    const agentEth = await ethOf(agent.address)
    const agentDollars = await dollarsOf(agent.address)
    const recipientDollars = await dollarsOf(recipient)
    const relayerEth = await ethOf(relayer)
    const amount = parseUnits('25', 6)
    const intent = intentOf({ target: devnet.contracts.dollar, data: transferDollars(recipient, amount) })
    const receipt = await send(relayerKey, {
      to: agent.address,
      data: executeIntentData(intent, await signIntent(intent)),
      authorizationList: [await authorize()],
    })

    assert.equal(receipt.status, 'success')
    assert.equal(receipt.type, 'eip7702')
    assert.equal(await codeOf(agent.address), delegation(devnet.contracts.accountDelegate))
    assert.equal(
      executedLogs(receipt, agent.address, hashIntent(intent)).length,
      1,
      'IntentExecuted from the agent, for the intent hash',
    )
    assert.equal(await dollarsOf(agent.address), agentDollars - amount)
    assert.equal(await dollarsOf(recipient), recipientDollars + amount)
    assert.equal(await ethOf(agent.address), agentEth, 'the agent paid no gas')
    assert.equal(await ethOf(relayer), relayerEth - paidFor(receipt), 'the relayer paid exactly the gas')
    assert.equal(await nonceUsed(agent.address, intent.nonce), true)
  })

  it("calls the target as the agent, with value from the agent's own ETH (msg.sender at DemoCounter is the agent)", async () => {
    await delegate()
    const agentEth = await ethOf(agent.address)
    const relayerEth = await ethOf(relayer)
    const counterReceived = await pc().readContract({
      address: devnet.contracts.counter,
      abi: demoCounterArtifact.abi,
      functionName: 'received',
    })
    const intent = intentOf({ value: parseEther('0.1') })
    const receipt = await send(relayerKey, {
      to: agent.address,
      data: executeIntentData(intent, await signIntent(intent)),
    })
    assert.equal(receipt.status, 'success')
    const incremented = receipt.logs.find((l) => l.address.toLowerCase() === devnet.contracts.counter.toLowerCase())!
    assert.equal(
      getAddress(`0x${incremented.topics[1]!.slice(26)}`),
      agent.address,
      'msg.sender at the target is the agent',
    )
    assert.equal(await ethOf(agent.address), agentEth - parseEther('0.1'))
    assert.equal(
      await pc().readContract({
        address: devnet.contracts.counter,
        abi: demoCounterArtifact.abi,
        functionName: 'received',
      }),
      counterReceived + parseEther('0.1'),
    )
    assert.equal(await ethOf(relayer), relayerEth - paidFor(receipt))
  })

  it('runs approve + swap as one batch intent: DemoDollar out of the agent, ETH into it, nothing left approved', async () => {
    await delegate()
    const swap = devnet.demo.account.swap
    const amount = parseUnits('100', 6)
    const agentEth = await ethOf(agent.address)
    const agentDollars = await dollarsOf(agent.address)
    const relayerEth = await ethOf(relayer)
    const batch = batchOf(
      [
        {
          target: devnet.contracts.dollar,
          value: 0n,
          data: encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'approve', args: [swap, amount] }),
        },
        {
          target: swap,
          value: 0n,
          data: encodeFunctionData({ abi: demoSwapArtifact.abi, functionName: 'sellDollars', args: [amount] }),
        },
      ],
      { policyId: devnet.demo.account.policies.own },
    )
    const signature = await signBatch(batch)
    assert.deepEqual(await checkBatch(batch, signature), ['0x01', 0n])
    const receipt = await send(relayerKey, { to: agent.address, data: executeBatchData(batch, signature) })
    assert.equal(receipt.status, 'success')
    assert.equal(executedLogs(receipt, agent.address, hashBatch(batch)).length, 1)
    const swapped = receipt.logs.find((l) => l.address.toLowerCase() === swap.toLowerCase())!
    assert.equal(getAddress(`0x${swapped.topics[1]!.slice(26)}`), agent.address, 'the pool traded with the agent')
    assert.equal(await dollarsOf(agent.address), agentDollars - amount)
    assert.equal(await ethOf(agent.address), agentEth + parseEther('0.05'), '100 DemoDollar at 2000 a ETH')
    assert.equal(
      await pc().readContract({
        address: devnet.contracts.dollar,
        abi: demoDollarArtifact.abi,
        functionName: 'allowance',
        args: [agent.address, swap],
      }),
      0n,
    )
    assert.equal(await ethOf(relayer), relayerEth - paidFor(receipt))
  })

  it("accepts ERC-1271 signatures by the account's own key only, and lets only the account itself use ERC-7821 execute", async () => {
    await delegate()
    const hash = keccak256(toHex('a message'))
    const isValid = (signature: Hex) =>
      pc().readContract({
        address: agent.address,
        abi: intentAccountArtifact.abi,
        functionName: 'isValidSignature',
        args: [hash, signature],
      })
    assert.equal(await isValid(await agent.sign({ hash })), '0x1626ba7e')
    assert.equal(await isValid(await sessionKey.sign({ hash })), '0xffffffff')
    // ERC-7821 from the agent's own key (a transaction to itself): its DemoDollar moves, no policy.
    const executionData = encodeAbiParameters(
      [
        {
          type: 'tuple[]',
          components: [
            { name: 'target', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'callData', type: 'bytes' },
          ],
        },
      ],
      [[{ target: devnet.contracts.dollar, value: 0n, callData: transferDollars(recipient, 1n) }]],
    )
    const mode = `0x01${'00'.repeat(31)}` as Hex
    const data = encodeFunctionData({
      abi: intentAccountArtifact.abi,
      functionName: 'execute',
      args: [mode, executionData],
    })
    const before = await dollarsOf(recipient)
    assert.equal((await send(devnetAccounts.agent, { to: agent.address, data })).status, 'success')
    assert.equal(await dollarsOf(recipient), before + 1n)
    // The same call from anyone else is refused, and moves nothing.
    await assert.rejects(pc().call({ account: relayer, to: agent.address, data }), /AccountUnauthorized|revert/)
  })

  describe('attacks', () => {
    it('refuses an intent replayed on another chain, and a chain-specific authorization does not delegate there (chainId 0 would)', async () => {
      const second = await startDevnet({ chainId: 31338 })
      try {
        const other = createDevClients(second.anvil.rpcUrl, second.anvil.chainId)
        assert.equal(
          second.contracts.accountDelegate,
          devnet.contracts.accountDelegate,
          'the same deployer gives the same delegate address on both chains',
        )
        const sendThere = async (tx: { to: Address; data: Hex; authorizationList?: unknown[]; gas?: bigint }) => {
          const wallet = other.walletFor(relayerKey)
          const hash = await wallet.sendTransaction({ ...tx, account: wallet.account!, chain: wallet.chain } as never)
          return other.publicClient.waitForTransactionReceipt({ hash })
        }
        const dollarsThere = (who: Address) =>
          other.publicClient.readContract({
            address: second.contracts.dollar,
            abi: demoDollarArtifact.abi,
            functionName: 'balanceOf',
            args: [who],
          })
        const agentDollars = await dollarsThere(agent.address)
        const agentEth = await other.publicClient.getBalance({ address: agent.address })

        // This chain's authorization and intent, sent to the other chain in one type-4 transaction.
        const authorization = await authorize()
        const intent = intentOf({
          target: devnet.contracts.dollar,
          data: transferDollars(recipient, parseUnits('5', 6)),
        })
        const signature = await signIntent(intent)
        const relayerEth = await other.publicClient.getBalance({ address: relayer })
        const replayed = await sendThere({
          to: agent.address,
          data: executeIntentData(intent, signature),
          authorizationList: [authorization],
          gas: 300_000n,
        })
        assert.equal(
          replayed.status,
          'success',
          'EIP-7702 skips the foreign tuple and runs the call against a code-less EOA',
        )
        assert.equal(
          (await other.publicClient.getCode({ address: agent.address })) ?? '0x',
          '0x',
          'not delegated on the other chain',
        )
        assert.equal(
          executedLogs(replayed, agent.address, hashIntent(intent)).length,
          0,
          'nothing executed: no IntentExecuted from the agent',
        )
        assert.equal(await dollarsThere(agent.address), agentDollars)
        assert.equal(await other.publicClient.getBalance({ address: relayer }), relayerEth - paidFor(replayed))

        // Delegated there by its own authorization for that chain, the agent's intent signed for this chain is still refused: the domain binds the chain.
        const own = await agent.signAuthorization({
          chainId: 31338,
          address: second.contracts.accountDelegate,
          nonce: await other.publicClient.getTransactionCount({ address: agent.address }),
        })
        await sendThere({ to: agent.address, data: '0x', authorizationList: [own] })
        assert.equal(
          await other.publicClient.readContract({
            address: agent.address,
            abi: intentAccountArtifact.abi,
            functionName: 'checkIntent',
            args: [intent, signature],
          }),
          '0xe4',
        )
        const refused = await sendThere({
          to: agent.address,
          data: executeIntentData(intent, signature),
          gas: 300_000n,
        })
        assert.equal(refused.status, 'reverted')
        assert.equal(await dollarsThere(agent.address), agentDollars)
        assert.equal(
          await other.publicClient.getBalance({ address: agent.address }),
          agentEth,
          "the agent's ETH never moved on the other chain",
        )

        // Why the gateway refuses chainId 0: such an authorization delegates on every chain.
        const anyChain = await agent.signAuthorization({
          chainId: 0,
          address: devnet.contracts.accountDelegate,
          nonce: await pc().getTransactionCount({ address: agent.address }),
        })
        await send(relayerKey, { to: agent.address, data: '0x', authorizationList: [anyChain] })
        assert.equal(await codeOf(agent.address), delegation(devnet.contracts.accountDelegate))
      } finally {
        await second.stop()
      }
    })

    it("refuses another account's intent at this account, even signed by a session key both accounts trust", async () => {
      const victim = privateKeyToAccount(devnetAccounts.other)
      await delegate()
      await delegate(victim)
      // The victim trusts the same session key under its own policy for the same calls.
      const salt = saltOf('test.victim.session')
      const policy = {
        owner: victim.address,
        allowedTargets: [devnet.contracts.counter],
        allowedSelectors: [toFunctionSelector('increment(uint256)')],
        maxValuePerTx: parseEther('0.01'),
        maxAggregateValue: parseEther('1'),
        validAfter: 0n,
        validBefore: 0n,
        allowedChains: [],
      }
      await write(devnetAccounts.other, {
        address: devnet.contracts.registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'createPolicy',
        args: [salt, policy],
      })
      await write(devnetAccounts.other, {
        address: devnet.contracts.registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'addDelegate',
        args: [derivePolicyId(victim.address, salt), sessionKey.address],
      })

      const intent = intentOf({ value: parseEther('0.01'), policyId: devnet.demo.account.policies.session })
      const signature = await signIntent(intent, { signer: sessionKey })
      assert.equal(await checkIntent(intent, signature), '0x01', "valid at the agent's own address")
      // At the victim's address: the intent names another sender, and the domain names another account.
      const victimEth = await ethOf(victim.address)
      const relayerEth = await ethOf(relayer)
      const atVictim = {
        address: victim.address,
        abi: intentAccountArtifact.abi,
        functionName: 'checkIntent',
        args: [intent, signature],
      } as const
      assert.equal(await pc().readContract(atVictim), '0xe4')
      const receipt = await send(relayerKey, {
        to: victim.address,
        data: executeIntentData(intent, signature),
        gas: 300_000n,
      })
      assert.equal(receipt.status, 'reverted')
      assert.equal(await ethOf(victim.address), victimEth, "the victim's ETH did not move")
      assert.equal(await ethOf(relayer), relayerEth - paidFor(receipt))
      // And the agent's authorization delegates the agent only: it cannot make the victim's (or a fresh EOA's) code.
      const fresh = privateKeyToAccount(devnetAccounts.payer)
      const authorization = await authorize()
      await send(relayerKey, { to: fresh.address, data: '0x', authorizationList: [authorization], gas: 100_000n })
      assert.equal(await codeOf(fresh.address), '0x')
    })

    it("lets a stranger submit the agent's authorization first: it only delegates the agent, and the relayer's execute still runs once", async () => {
      const stranger = devnetAccounts.other
      const strangerAddress = privateKeyToAccount(stranger).address
      const authorization = await authorize()
      const agentEth = await ethOf(agent.address)
      const agentDollars = await dollarsOf(agent.address)
      const strangerDollars = await dollarsOf(strangerAddress)
      // The stranger front-runs with the agent's authorization and asks the account to hand it DemoDollar.
      const grab = encodeFunctionData({
        abi: intentAccountArtifact.abi,
        functionName: 'execute',
        args: [
          `0x01${'00'.repeat(31)}`,
          encodeAbiParameters(
            [
              {
                type: 'tuple[]',
                components: [
                  { name: 'target', type: 'address' },
                  { name: 'value', type: 'uint256' },
                  { name: 'callData', type: 'bytes' },
                ],
              },
            ],
            [
              [
                {
                  target: devnet.contracts.dollar,
                  value: 0n,
                  callData: transferDollars(strangerAddress, agentDollars),
                },
              ],
            ],
          ),
        ],
      })
      const first = await send(stranger, {
        to: agent.address,
        data: grab,
        authorizationList: [authorization],
        gas: 300_000n,
      })
      assert.equal(first.status, 'reverted', 'the account runs ERC-7821 batches for itself only')
      assert.equal(
        await codeOf(agent.address),
        delegation(devnet.contracts.accountDelegate),
        'the authorization applied anyway: it is what the agent signed',
      )
      assert.equal(await dollarsOf(strangerAddress), strangerDollars)

      // The relayer's transaction carries the now used authorization: skipped, and the intent runs.
      const relayerEth = await ethOf(relayer)
      const intent = intentOf({ target: devnet.contracts.dollar, data: transferDollars(recipient, 7n) })
      const receipt = await send(relayerKey, {
        to: agent.address,
        data: executeIntentData(intent, await signIntent(intent)),
        authorizationList: [authorization],
        gas: 300_000n,
      })
      assert.equal(receipt.status, 'success')
      assert.equal(executedLogs(receipt, agent.address, hashIntent(intent)).length, 1)
      assert.equal(await dollarsOf(agent.address), agentDollars - 7n)
      assert.equal(await ethOf(agent.address), agentEth)
      assert.equal(await ethOf(relayer), relayerEth - paidFor(receipt))
    })

    it('re-delegation between two calls: the intent does nothing under another delegate (no IntentExecuted, nonce unspent), then runs once back under ours', async () => {
      const junk = await deploy(helpers.JunkDelegate)
      await delegate()
      const intent = intentOf({ target: devnet.contracts.dollar, data: transferDollars(recipient, 9n) })
      const signature = await signIntent(intent)
      // The agent re-delegates to another wallet's delegate before the relayer's transaction lands.
      await send(relayerKey, { to: agent.address, data: '0x', authorizationList: [await authorize({ address: junk })] })
      assert.equal(await codeOf(agent.address), delegation(junk))
      const agentDollars = await dollarsOf(agent.address)
      const agentEth = await ethOf(agent.address)
      const relayerEth = await ethOf(relayer)
      const landed = await send(relayerKey, {
        to: agent.address,
        data: executeIntentData(intent, signature),
        gas: 300_000n,
      })
      assert.equal(landed.status, 'success', 'the other delegate accepts any call')
      assert.equal(
        executedLogs(landed, agent.address, hashIntent(intent)).length,
        0,
        'no IntentExecuted from the agent: not an execution',
      )
      assert.equal(await nonceUsed(agent.address, intent.nonce), false)
      assert.equal(await dollarsOf(agent.address), agentDollars)
      assert.equal(await ethOf(agent.address), agentEth)
      assert.equal(
        await ethOf(relayer),
        relayerEth - paidFor(landed),
        'the relayer paid for nothing: the gateway must count it against the sender',
      )

      // Back under IntentAccount, the same intent runs, once.
      await send(relayerKey, { to: agent.address, data: '0x', authorizationList: [await authorize()] })
      const ran = await send(relayerKey, { to: agent.address, data: executeIntentData(intent, signature) })
      assert.equal(executedLogs(ran, agent.address, hashIntent(intent)).length, 1)
      assert.equal(await dollarsOf(agent.address), agentDollars - 9n)
      assert.equal(await checkIntent(intent, signature), '0x22')
    })

    it('keeps its rules over storage another delegate left: nonces, the reentrancy guard and initialization do not live in the account', async () => {
      const junk = await deploy(helpers.JunkDelegate)
      await delegate()
      const used = intentOf()
      const usedSignature = await signIntent(used)
      assert.equal(
        (await send(relayerKey, { to: agent.address, data: executeIntentData(used, usedSignature) })).status,
        'success',
      )
      const fresh = intentOf({ target: devnet.contracts.dollar, data: transferDollars(recipient, 3n) })

      // Another delegate writes junk where a naive account would keep its state: slots 0-15, the
      // mapping entries of slot 0 for both nonces (used → 0, fresh → 1), OpenZeppelin's
      // ReentrancyGuard slot set to ENTERED and Initializable's set to initialized.
      const mappingSlot = (key: bigint) =>
        keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [key, 0n]))
      const slots: Hex[] = Array.from({ length: 16 }, (_, i) => toHex(i, { size: 32 }))
      const values: Hex[] = slots.map(() => ledgerSlotJunk)
      slots.push(
        mappingSlot(used.nonce),
        mappingSlot(fresh.nonce),
        '0x9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f00',
        '0xf0c57e16840df040f15088dc2f81fe391c3923bec73e23a9662efc9c229c6a00',
      )
      values.push(toHex(0, { size: 32 }), toHex(1, { size: 32 }), toHex(2, { size: 32 }), `0x${'ff'.repeat(32)}`)
      await send(relayerKey, { to: agent.address, data: '0x', authorizationList: [await authorize({ address: junk })] })
      const scribble = encodeFunctionData({
        abi: helpers.JunkDelegate.abi,
        functionName: 'scribble',
        args: [slots, values],
      } as never)
      assert.equal((await send(devnetAccounts.agent, { to: agent.address, data: scribble })).status, 'success')
      assert.equal(await pc().getStorageAt({ address: agent.address, slot: slots[0]! }), ledgerSlotJunk)
      await send(relayerKey, { to: agent.address, data: '0x', authorizationList: [await authorize()] })

      const agentDollars = await dollarsOf(agent.address)
      assert.equal(await checkIntent(used, usedSignature), '0x22', 'the used nonce stays used')
      await assert.rejects(
        pc().call({ account: relayer, to: agent.address, data: executeIntentData(used, usedSignature) }),
        /revert/,
      )
      const receipt = await send(relayerKey, {
        to: agent.address,
        data: executeIntentData(fresh, await signIntent(fresh)),
      })
      assert.equal(receipt.status, 'success', 'the guard is not stuck and the fresh nonce is free')
      assert.equal(executedLogs(receipt, agent.address, hashIntent(fresh)).length, 1)
      assert.equal(await dollarsOf(agent.address), agentDollars - 3n)
    })

    it('blocks reentrancy from a target: the intent being run cannot run again, nor another one, from inside it', async () => {
      const reentrant = await deploy(helpers.Reentrant)
      await delegate()
      const intent = intentOf({
        target: reentrant,
        data: encodeFunctionData({ abi: helpers.Reentrant.abi, functionName: 'poke' } as never),
        value: parseEther('0.1'),
        policyId: anyCall,
      })
      const signature = await signIntent(intent)
      // The target re-enters with the very intent and signature (as seen in the mempool).
      await write(devnetAccounts.other, {
        address: reentrant,
        abi: helpers.Reentrant.abi,
        functionName: 'arm',
        args: [agent.address, executeIntentData(intent, signature)],
      })
      const agentEth = await ethOf(agent.address)
      const relayerEth = await ethOf(relayer)
      const receipt = await send(relayerKey, { to: agent.address, data: executeIntentData(intent, signature) })
      assert.equal(receipt.status, 'success')
      assert.equal(
        await pc().readContract({ address: reentrant, abi: helpers.Reentrant.abi, functionName: 'reentered' } as never),
        false,
      )
      assert.equal(await ethOf(reentrant), parseEther('0.1'), 'paid once')
      assert.equal(await ethOf(agent.address), agentEth - parseEther('0.1'))
      assert.equal(await ethOf(relayer), relayerEth - paidFor(receipt))

      // Another valid intent of the agent's, re-entered from inside the first: refused too.
      const reentrant2 = await deploy(helpers.Reentrant)
      const inner = intentOf({ target: devnet.contracts.dollar, data: transferDollars(reentrant2, 11n) })
      await write(devnetAccounts.other, {
        address: reentrant2,
        abi: helpers.Reentrant.abi,
        functionName: 'arm',
        args: [agent.address, executeIntentData(inner, await signIntent(inner))],
      })
      const outer = intentOf({
        target: reentrant2,
        data: encodeFunctionData({ abi: helpers.Reentrant.abi, functionName: 'poke' } as never),
        policyId: anyCall,
      })
      await send(relayerKey, { to: agent.address, data: executeIntentData(outer, await signIntent(outer)) })
      assert.equal(
        await pc().readContract({
          address: reentrant2,
          abi: helpers.Reentrant.abi,
          functionName: 'reentered',
        } as never),
        false,
      )
      assert.equal(await dollarsOf(reentrant2), 0n)
      assert.equal(await nonceUsed(agent.address, inner.nonce), false)
    })

    it('gives a target only what the batch approved: transferFrom beyond the allowance and ERC-7821 calls from it move nothing', async () => {
      const thief = await deploy(helpers.Thief)
      await delegate()
      const amount = parseUnits('10', 6)
      const agentDollars = await dollarsOf(agent.address)
      const agentEth = await ethOf(agent.address)
      const relayerEth = await ethOf(relayer)
      const batch = batchOf([
        {
          target: devnet.contracts.dollar,
          value: 0n,
          data: encodeFunctionData({ abi: demoDollarArtifact.abi, functionName: 'approve', args: [thief, amount] }),
        },
        {
          target: thief,
          value: 0n,
          data: encodeFunctionData({
            abi: helpers.Thief.abi,
            functionName: 'take',
            args: [devnet.contracts.dollar, agent.address, amount],
          } as never),
        },
      ])
      const receipt = await send(relayerKey, {
        to: agent.address,
        data: executeBatchData(batch, await signBatch(batch)),
      })
      assert.equal(receipt.status, 'success')
      assert.equal(
        await pc().readContract({ address: thief, abi: helpers.Thief.abi, functionName: 'extraTaken' } as never),
        0n,
      )
      assert.equal(await dollarsOf(thief), amount)
      assert.equal(await dollarsOf(agent.address), agentDollars - amount)
      assert.equal(await ethOf(agent.address), agentEth)
      assert.equal(await ethOf(relayer), relayerEth - paidFor(receipt))
    })

    it("refuses a session key's batch whose summed value exceeds its policy (each call alone fits), and the policy's aggregate after its limit", async () => {
      await delegate()
      const session = devnet.demo.account.policies.session
      const call = { target: devnet.contracts.counter, value: parseEther('0.006'), data: increment() }
      const batch = batchOf([call, call], { policyId: session })
      const signature = await signBatch(batch, { signer: sessionKey })
      assert.deepEqual(await checkBatch(batch, signature), ['0x54', 1n], 'the second call takes the sum over 0.01 ETH')
      const agentEth = await ethOf(agent.address)
      const relayerEth = await ethOf(relayer)
      const refused = await send(relayerKey, {
        to: agent.address,
        data: executeBatchData(batch, signature),
        gas: 300_000n,
      })
      assert.equal(refused.status, 'reverted')
      assert.equal(await ethOf(agent.address), agentEth)
      assert.equal(await ethOf(relayer), relayerEth - paidFor(refused))

      // Two intents of 0.01 ETH use up its 0.02 ETH; the third is refused.
      for (let i = 0; i < 2; i++) {
        const allowed = batchOf([{ ...call, value: parseEther('0.01') }], { policyId: session })
        assert.equal(
          (
            await send(relayerKey, {
              to: agent.address,
              data: executeBatchData(allowed, await signBatch(allowed, { signer: sessionKey })),
            })
          ).status,
          'success',
        )
      }
      const third = batchOf([{ ...call, value: parseEther('0.01') }], { policyId: session })
      assert.deepEqual(await checkBatch(third, await signBatch(third, { signer: sessionKey })), ['0x54', 0n])
      assert.equal(await ethOf(agent.address), agentEth - parseEther('0.02'))
    })

    it("does not count a session key's signature under a policy that leaves targets or selectors open", async () => {
      await delegate()
      // The agent names the session key a delegate of its open policy (any target, any selector).
      await write(devnetAccounts.agent, {
        address: devnet.contracts.registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'addDelegate',
        args: [anyCall, sessionKey.address],
      })
      const agentDollars = await dollarsOf(agent.address)
      const batch = batchOf([
        { target: devnet.contracts.dollar, value: 0n, data: transferDollars(sessionKey.address, agentDollars) },
      ])
      const signature = await signBatch(batch, { signer: sessionKey })
      assert.deepEqual(await checkBatch(batch, signature), ['0xe4', 0n])
      const receipt = await send(relayerKey, {
        to: agent.address,
        data: executeBatchData(batch, signature),
        gas: 300_000n,
      })
      assert.equal(receipt.status, 'reverted')
      assert.equal(await dollarsOf(agent.address), agentDollars)
      // The agent's own key may.
      assert.deepEqual(await checkBatch(batch, await signBatch(batch)), ['0x01', 0n])
    })

    it('refuses 0x10, whoever signed, a call to the account itself, the registry, the ledger, the executor or the delegate', async () => {
      await delegate()
      const widen = encodeFunctionData({
        abi: policyRegistryArtifact.abi,
        functionName: 'updatePolicy',
        args: [
          devnet.demo.account.policies.session,
          {
            owner: agent.address,
            allowedTargets: [devnet.contracts.counter],
            allowedSelectors: [toFunctionSelector('increment(uint256)')],
            maxValuePerTx: parseEther('100'),
            maxAggregateValue: parseEther('100'),
            validAfter: 0n,
            validBefore: 0n,
            allowedChains: [],
          },
        ],
      })
      const forbidden: Array<[string, Call]> = [
        ['the account', { target: agent.address, value: 0n, data: '0x' }],
        ['the registry', { target: devnet.contracts.registry, value: 0n, data: widen }],
        [
          'the ledger',
          {
            target: devnet.contracts.ledger,
            value: 0n,
            data: encodeFunctionData({
              abi: intentLedgerArtifact.abi,
              functionName: 'cancelNonce',
              args: [agent.address, 1n],
            }),
          },
        ],
        [
          'the executor',
          {
            target: devnet.contracts.executor,
            value: 0n,
            data: encodeFunctionData({ abi: intentExecutorArtifact.abi, functionName: 'cancelNonce', args: [1n] }),
          },
        ],
        ['the delegate', { target: devnet.contracts.accountDelegate, value: 0n, data: '0x' }],
      ]
      const ok: Call = { target: devnet.contracts.counter, value: 0n, data: increment() }
      for (const [name, call] of forbidden) {
        const batch = batchOf([ok, call])
        assert.deepEqual(await checkBatch(batch, await signBatch(batch)), ['0x10', 1n], name)
      }
      // Mined: the registry call that would widen the session policy reverts, and the policy is unchanged.
      const batch = batchOf([forbidden[1]![1]])
      const agentEth = await ethOf(agent.address)
      const relayerEth = await ethOf(relayer)
      const receipt = await send(relayerKey, {
        to: agent.address,
        data: executeBatchData(batch, await signBatch(batch)),
        gas: 300_000n,
      })
      assert.equal(receipt.status, 'reverted')
      const policy = await pc().readContract({
        address: devnet.contracts.registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'getPolicy',
        args: [devnet.demo.account.policies.session],
      })
      assert.equal(policy.maxValuePerTx, parseEther('0.01'))
      assert.equal(await ethOf(agent.address), agentEth)
      assert.equal(await ethOf(relayer), relayerEth - paidFor(receipt))
      // The executor refuses the ledger as a target too: it may write any sender's records there.
      const viaExecutor = intentOf({ target: devnet.contracts.ledger, data: forbidden[2]![1].data, policyId: anyCall })
      assert.equal(
        await pc().readContract({
          address: devnet.contracts.executor,
          abi: intentExecutorArtifact.abi,
          functionName: 'checkSigned',
          args: [
            viaExecutor,
            await agent.signTypedData(
              intentTypedData({
                chainId: devnet.anvil.chainId,
                executor: devnet.contracts.executor,
                intent: viaExecutor,
              }),
            ),
          ],
        }),
        '0x10',
      )
    })

    it('shares one nonce space with the executor: a nonce spent or cancelled in one mode is refused in the other', async () => {
      await delegate()
      const signForExecutor = (intent: Intent) =>
        agent.signTypedData(
          intentTypedData({ chainId: devnet.anvil.chainId, executor: devnet.contracts.executor, intent }),
        )
      const checkSigned = async (intent: Intent) =>
        pc().readContract({
          address: devnet.contracts.executor,
          abi: intentExecutorArtifact.abi,
          functionName: 'checkSigned',
          args: [intent, await signForExecutor(intent)],
        })
      const counterCount = () =>
        pc().readContract({ address: devnet.contracts.counter, abi: demoCounterArtifact.abi, functionName: 'count' })

      // Executor mode first (value 0: the agent has no deposit), then account mode with the same nonce.
      const viaExecutor = intentOf()
      await write(relayerKey, {
        address: devnet.contracts.executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'executeSigned',
        args: [viaExecutor, await signForExecutor(viaExecutor)],
      })
      const sameNonce = intentOf({ nonce: viaExecutor.nonce, data: increment(5n) })
      const sameNonceSignature = await signIntent(sameNonce)
      assert.equal(await checkIntent(sameNonce, sameNonceSignature), '0x22')
      const count = await counterCount()
      const relayerEth = await ethOf(relayer)
      const refused = await send(relayerKey, {
        to: agent.address,
        data: executeIntentData(sameNonce, sameNonceSignature),
        gas: 300_000n,
      })
      assert.equal(refused.status, 'reverted')
      assert.equal(await counterCount(), count)
      assert.equal(await ethOf(relayer), relayerEth - paidFor(refused))

      // Account mode first, then the executor.
      const viaAccount = intentOf()
      await send(relayerKey, { to: agent.address, data: executeIntentData(viaAccount, await signIntent(viaAccount)) })
      assert.equal(await checkSigned({ ...viaAccount, data: increment(5n) }), '0x22')
      assert.equal(
        await pc().readContract({
          address: devnet.contracts.executor,
          abi: intentExecutorArtifact.abi,
          functionName: 'nonceUsed',
          args: [agent.address, viaAccount.nonce],
        }),
        true,
      )

      // Cancelled by the agent at the ledger itself: revoked in both modes.
      const cancelled = intentOf()
      await write(devnetAccounts.agent, {
        address: devnet.contracts.ledger,
        abi: intentLedgerArtifact.abi,
        functionName: 'cancelNonce',
        args: [agent.address, cancelled.nonce],
      })
      assert.equal(await checkIntent(cancelled, await signIntent(cancelled)), '0x16')
      assert.equal(await checkSigned(cancelled), '0x16')
      // Nobody else writes the agent's records at the ledger.
      await assert.rejects(
        pc().simulateContract({
          account: relayer,
          address: devnet.contracts.ledger,
          abi: intentLedgerArtifact.abi,
          functionName: 'cancelNonce',
          args: [agent.address, nonce + 1n],
        }),
        /NotAllowedToWrite/,
      )
    })
  })
})
