// Demo data on a fresh deployment: the sender's policies and deposit, chosen so that each seed
// status (200, 403, 402, 410, 202, 421) has an intent that produces it, and a DemoDollar balance
// for the demo agent that pays for requests with x402.
import { type Address, type Hex, parseEther, parseUnits, toFunctionSelector } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { demoDollarArtifact } from '../../../contracts/demoDollarArtifact.ts'
import { intentExecutorArtifact } from '../../../contracts/intentExecutorArtifact.ts'
import { policyRegistryArtifact } from '../../../contracts/policyRegistryArtifact.ts'
import { createDevClients, type DeployedContracts, demoDollarDomain } from './deployContracts.ts'
import { devnetAccounts } from './devnetAccounts.ts'
import { derivePolicyId, saltOf } from '../../derivePolicyId.ts'

export type Demo = {
  sender: Address
  policies: { open: Hex; mainnetOnly: Hex }
  counter: Address
  incrementSelector: Hex
  deposit: bigint
  /** What x402 payments are made in, who pays in the demo and who is paid. */
  payment: { asset: Address; name: string; version: string; decimals: 6; payer: Address; payTo: Address; payerBalance: bigint }
}

export async function seedDemo({
  rpcUrl,
  chainId,
  contracts,
  senderKey,
  minterKey = devnetAccounts.deployer,
  payer = privateKeyToAccount(devnetAccounts.payer).address,
  payTo = privateKeyToAccount(devnetAccounts.treasury).address,
}: {
  rpcUrl: string
  chainId: number
  contracts: DeployedContracts
  senderKey: Hex
  /** The key that deployed DemoDollar: only it can mint. */
  minterKey?: Hex
  payer?: Address
  payTo?: Address
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
  const policies = { open: derivePolicyId(account.address, salts.open), mainnetOnly: derivePolicyId(account.address, salts.mainnetOnly) }
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
  await send(wallet.writeContract({ address: contracts.executor, abi: intentExecutorArtifact.abi, functionName: 'deposit', value: deposit, account, chain: wallet.chain }))

  const payerBalance = parseUnits('1000', 6)
  const minter = walletFor(minterKey)
  await send(minter.writeContract({ address: contracts.dollar, abi: demoDollarArtifact.abi, functionName: 'mint', args: [payer, payerBalance], account: minter.account!, chain: minter.chain }))

  return {
    sender: account.address,
    policies,
    counter: contracts.counter,
    incrementSelector,
    deposit,
    payment: { asset: contracts.dollar, ...demoDollarDomain, decimals: 6, payer, payTo, payerBalance },
  }
}
