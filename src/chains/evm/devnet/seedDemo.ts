// Demo data on a fresh deployment: the sender's policies and deposit, chosen so that each seed
// status (200, 403, 402, 410, 202, 421) has an intent that produces it, a DemoDollar balance
// for the demo agent that pays for requests with x402, and for account mode (EIP-7702) an agent
// holding DemoDollar in its own EOA with its policies (one for its own key, a narrow one for a
// session key) and a funded DemoDollar ↔ ETH pool.
import { type Abi, type Address, type Hex, parseEther, parseUnits, toFunctionSelector } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { demoDollarArtifact } from '../../../contracts/demoDollarArtifact.ts'
import { intentExecutorArtifact } from '../../../contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../../../contracts/policyRegistryArtifact.ts'
import { derivePolicyId, saltOf } from '../../derivePolicyId.ts'
import { createDevClients, type DeployedContracts, demoDollarDomain } from './deployContracts.ts'
import { devnetAccounts } from './devnetAccounts.ts'

export type Demo = {
  sender: Address
  policies: { open: Hex; mainnetOnly: Hex }
  counter: Address
  incrementSelector: Hex
  deposit: bigint
  /** What x402 payments are made in, who pays in the demo and who is paid. */
  payment: {
    asset: Address
    name: string
    version: string
    decimals: 6
    payer: Address
    payTo: Address
    payerBalance: bigint
  }
  /** Account mode: the agent's EOA (not delegated yet: its first execute carries the authorization), its policies and the pool. */
  account: DemoAccount
}

export type DemoAccount = {
  agent: Address
  /** The EIP-7702 delegate (IntentAccount) an authorization names. */
  delegate: Address
  policies: {
    /** For the agent's own key: the counter, DemoDollar's transfer and approve, the pool's swaps; up to 1 ETH a transaction. */
    own: Hex
    /** For the session key: the counter's increment only, 0.01 ETH a transaction, 0.02 ETH in all. */
    session: Hex
  }
  sessionKey: Address
  swap: Address
  /** DemoDollar (6 decimals) in the agent's own EOA. */
  dollarBalance: bigint
  /** What the pool holds to pay swaps with. */
  pool: { wei: bigint; dollars: bigint }
}

export async function seedDemo({
  rpcUrl,
  chainId,
  contracts,
  senderKey,
  minterKey = devnetAccounts.deployer,
  payer = privateKeyToAccount(devnetAccounts.payer).address,
  payTo = privateKeyToAccount(devnetAccounts.treasury).address,
  agentKey = devnetAccounts.agent,
  sessionKey = privateKeyToAccount(devnetAccounts.sessionKey).address,
}: {
  rpcUrl: string
  chainId: number
  contracts: DeployedContracts
  senderKey: Hex
  /** The key that deployed DemoDollar: only it can mint. */
  minterKey?: Hex
  payer?: Address
  payTo?: Address
  agentKey?: Hex
  sessionKey?: Address
}): Promise<Demo> {
  const { publicClient, walletFor } = createDevClients(rpcUrl, chainId)
  const wallet = walletFor(senderKey)
  const account = wallet.account!
  const incrementSelector = toFunctionSelector('increment(uint256)')

  const base = {
    owner: account.address,
    allowedTargets: [contracts.counter],
    allowedSelectors: [incrementSelector],
    maxValuePerTx: parseEther('1'),
    maxAggregateValue: parseEther('100'),
    validAfter: 0n,
    validBefore: 0n,
  }
  const salts = { open: saltOf('demo.open'), mainnetOnly: saltOf('demo.mainnet-only') }
  const policies = {
    open: derivePolicyId(account.address, salts.open),
    mainnetOnly: derivePolicyId(account.address, salts.mainnetOnly),
  }
  const deposit = parseEther('10')

  const send = async (hash: Promise<Hex>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash })
    if (receipt.status !== 'success') throw new Error(`demo seeding transaction reverted: ${receipt.transactionHash}`)
  }
  await send(
    wallet.writeContract({
      address: contracts.registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'createPolicy',
      args: [salts.open, { ...base, allowedChains: [BigInt(chainId)] }],
      account,
      chain: wallet.chain,
    }),
  )
  await send(
    wallet.writeContract({
      address: contracts.registry,
      abi: policyRegistryArtifact.abi,
      functionName: 'createPolicy',
      args: [salts.mainnetOnly, { ...base, allowedChains: [1n] }],
      account,
      chain: wallet.chain,
    }),
  )
  await send(
    wallet.writeContract({
      address: contracts.executor,
      abi: intentExecutorArtifact.abi,
      functionName: 'deposit',
      value: deposit,
      account,
      chain: wallet.chain,
    }),
  )

  const payerBalance = parseUnits('1000', 6)
  const minter = walletFor(minterKey)
  await send(
    minter.writeContract({
      address: contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'mint',
      args: [payer, payerBalance],
      account: minter.account!,
      chain: minter.chain,
    }),
  )

  const accountDemo = await seedAccountDemo({ contracts, chainId, agentKey, sessionKey, minterKey, walletFor, send })

  return {
    account: accountDemo,
    sender: account.address,
    policies,
    counter: contracts.counter,
    incrementSelector,
    deposit,
    payment: { asset: contracts.dollar, ...demoDollarDomain, decimals: 6, payer, payTo, payerBalance },
  }
}

/** The agent's policies and DemoDollar, and the pool's funds. The agent's EOA stays undelegated. */
async function seedAccountDemo({
  contracts,
  chainId,
  agentKey,
  sessionKey,
  minterKey,
  walletFor,
  send,
}: {
  contracts: DeployedContracts
  chainId: number
  agentKey: Hex
  sessionKey: Address
  minterKey: Hex
  walletFor: ReturnType<typeof createDevClients>['walletFor']
  send: (hash: Promise<Hex>) => Promise<void>
}): Promise<DemoAccount> {
  const agent = walletFor(agentKey)
  const minter = walletFor(minterKey)
  const selector = (signature: string) => toFunctionSelector(signature)
  const salts = { own: saltOf('demo.account.own'), session: saltOf('demo.account.session') }
  const own = {
    owner: agent.account!.address,
    allowedTargets: [contracts.counter, contracts.dollar, contracts.swap],
    allowedSelectors: [
      selector('increment(uint256)'),
      selector('transfer(address,uint256)'),
      selector('approve(address,uint256)'),
      selector('sellDollars(uint256)'),
      selector('buyDollars()'),
    ],
    maxValuePerTx: parseEther('1'),
    maxAggregateValue: parseEther('100'),
    validAfter: 0n,
    validBefore: 0n,
    allowedChains: [BigInt(chainId)],
  }
  const session = {
    ...own,
    allowedTargets: [contracts.counter],
    allowedSelectors: [selector('increment(uint256)')],
    maxValuePerTx: parseEther('0.01'),
    maxAggregateValue: parseEther('0.02'),
  }
  // The general Abi: both functions' arguments come as one list, which viem then checks at run time.
  const policyRegistryAbi: Abi = policyRegistryArtifact.abi
  const write = (functionName: 'createPolicy' | 'addDelegate', args: readonly unknown[]) =>
    send(
      agent.writeContract({
        address: contracts.registry,
        abi: policyRegistryAbi,
        functionName,
        args,
        account: agent.account!,
        chain: agent.chain,
      }),
    )
  await write('createPolicy', [salts.own, own])
  await write('createPolicy', [salts.session, session])
  const policies = { own: derivePolicyId(own.owner, salts.own), session: derivePolicyId(own.owner, salts.session) }
  await write('addDelegate', [policies.session, sessionKey])

  const dollarBalance = parseUnits('1000', 6)
  const pool = { wei: parseEther('50'), dollars: parseUnits('100000', 6) }
  const mint = (to: Address, amount: bigint) =>
    send(
      minter.writeContract({
        address: contracts.dollar,
        abi: demoDollarArtifact.abi,
        functionName: 'mint',
        args: [to, amount],
        account: minter.account!,
        chain: minter.chain,
      }),
    )
  await mint(own.owner, dollarBalance)
  await mint(contracts.swap, pool.dollars)
  await send(
    minter.sendTransaction({ to: contracts.swap, value: pool.wei, account: minter.account!, chain: minter.chain }),
  )
  return {
    agent: own.owner,
    delegate: contracts.accountDelegate,
    policies,
    sessionKey,
    swap: contracts.swap,
    dollarBalance,
    pool,
  }
}
