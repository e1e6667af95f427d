// The values a deployed contract keeps in its immutables, read through its getters and compared
// with the plan: code that matches the build with its immutables masked may still point at another
// registry or ledger (put there with another salt, or by a node's setCode), and must not be used.
// The executor's EIP-712 domain (cached in immutables) is checked by hashing a sample intent.
import { type Address, hashTypedData, isAddressEqual, type PublicClient, zeroAddress } from 'viem'
import { intentAccountArtifact } from '../../../contracts/intentAccountArtifact.ts'
import { intentExecutorArtifact } from '../../../contracts/intentExecutorArtifact.ts'
import { intentLedgerArtifact } from '../../../contracts/intentLedgerArtifact.ts'
import { intentValidatorArtifact } from '../../../contracts/intentValidatorArtifact.ts'
import { intentTypedData } from '../intentTypedData.ts'
import type { ContractName, DeploymentPlan } from './planDeployment.ts'

/** What differs from the plan, one line each; empty: all as planned. */
export async function checkImmutables({
  client,
  plan,
  name,
  chainId,
}: {
  client: PublicClient
  plan: DeploymentPlan
  name: ContractName
  chainId: number
}): Promise<string[]> {
  const { registry, executor, ledger, validator, accountDelegate } = plan.addresses
  const problems: string[] = []
  const expect = async (getter: string, read: Promise<Address>, expected: Address) => {
    const actual = await read.catch(() => zeroAddress)
    if (!isAddressEqual(actual, expected)) problems.push(`${getter}() is ${actual}, not ${expected}`)
  }
  if (name === 'IntentExecutor') {
    const at = { address: executor, abi: intentExecutorArtifact.abi } as const
    await expect('registry', client.readContract({ ...at, functionName: 'registry' }), registry)
    await expect('ledger', client.readContract({ ...at, functionName: 'ledger' }), ledger)
    await expect('validator', client.readContract({ ...at, functionName: 'validator' }), validator)
    const intent = {
      sender: executor,
      target: registry,
      data: '0x',
      value: 1n,
      nonce: 2n,
      validAfter: 3n,
      validBefore: 4n,
      policyId: `0x${'5'.repeat(64)}`,
    } as const
    const signingHash = await client
      .readContract({ ...at, functionName: 'signingHash', args: [{ ...intent, sender: executor, target: registry }] })
      .catch(() => undefined)
    if (signingHash !== hashTypedData(intentTypedData({ chainId, executor, intent })))
      problems.push('signingHash() does not use the EIP-712 domain IntentExecutor/1 of this chain and address')
  }
  if (name === 'IntentLedger') {
    const at = { address: ledger, abi: intentLedgerArtifact.abi } as const
    await expect('registry', client.readContract({ ...at, functionName: 'registry' }), registry)
    await expect('executor', client.readContract({ ...at, functionName: 'executor' }), executor)
  }
  if (name === 'IntentValidator') {
    const at = { address: validator, abi: intentValidatorArtifact.abi } as const
    await expect('registry', client.readContract({ ...at, functionName: 'registry' }), registry)
    await expect('executor', client.readContract({ ...at, functionName: 'executor' }), executor)
    await expect('ledger', client.readContract({ ...at, functionName: 'ledger' }), ledger)
  }
  if (name === 'IntentAccount') {
    await expect(
      'ledger',
      client.readContract({ address: accountDelegate, abi: intentAccountArtifact.abi, functionName: 'ledger' }),
      ledger,
    )
  }
  return problems
}
