// The contracts a gateway needs on an EVM chain and where they will be, computed before anything is
// sent: PolicyRegistry, IntentExecutor (whose constructor creates its IntentLedger and
// IntentValidator with CREATE, at its nonces 1 and 2), the EIP-7702 account delegate
// IntentAccount (constructor: the executor's ledger) and IntentBundler (a relayer's executions in
// one transaction; no constructor), each CREATE2'd by the deterministic deployment proxy with one
// salt. No demo contract.
import { type Address, concat, encodeDeployData, getContractAddress, type Hex } from 'viem'
import { intentAccountArtifact } from '../../../contracts/intentAccountArtifact.ts'
import { intentBundlerArtifact } from '../../../contracts/intentBundlerArtifact.ts'
import { intentExecutorArtifact } from '../../../contracts/intentExecutorArtifact.ts'
import { intentLedgerArtifact } from '../../../contracts/intentLedgerArtifact.ts'
import { intentValidatorArtifact } from '../../../contracts/intentValidatorArtifact.ts'
import { policyRegistryArtifact } from '../../../contracts/policyRegistryArtifact.ts'
import { deterministicDeployer } from './deterministicDeployer.ts'
import type { RuntimeArtifact } from './matchesRuntimeCode.ts'

export type ContractName =
  | 'PolicyRegistry'
  | 'IntentExecutor'
  | 'IntentLedger'
  | 'IntentValidator'
  | 'IntentAccount'
  | 'IntentBundler'

export type PlannedContract = {
  name: ContractName
  address: Address
  artifact: RuntimeArtifact
  /** What the deployer sends to the proxy (salt ++ init code); absent: another contract's constructor creates it. */
  deployData?: Hex
  /** The contract whose constructor creates this one. */
  createdBy?: ContractName
}

export type DeploymentPlan = {
  salt: Hex
  addresses: {
    registry: Address
    executor: Address
    ledger: Address
    validator: Address
    accountDelegate: Address
    bundler: Address
  }
  /** In the order they are deployed: each one's constructor arguments are the ones before it. */
  contracts: PlannedContract[]
}

export function planDeployment({ salt }: { salt: Hex }): DeploymentPlan {
  const create2 = (initCode: Hex) => ({
    address: getContractAddress({ opcode: 'CREATE2', from: deterministicDeployer.address, salt, bytecode: initCode }),
    deployData: concat([salt, initCode]),
  })
  const registry = create2(policyRegistryArtifact.bytecode)
  const executor = create2(
    encodeDeployData({
      abi: intentExecutorArtifact.abi,
      bytecode: intentExecutorArtifact.bytecode,
      args: [registry.address],
    }),
  )
  // A contract's nonce starts at 1 (EIP-161): the ledger is its first creation, the validator its second.
  const ledger = getContractAddress({ opcode: 'CREATE', from: executor.address, nonce: 1n })
  const validator = getContractAddress({ opcode: 'CREATE', from: executor.address, nonce: 2n })
  const accountDelegate = create2(
    encodeDeployData({ abi: intentAccountArtifact.abi, bytecode: intentAccountArtifact.bytecode, args: [ledger] }),
  )
  const bundler = create2(intentBundlerArtifact.bytecode)
  return {
    salt,
    addresses: {
      registry: registry.address,
      executor: executor.address,
      ledger,
      validator,
      accountDelegate: accountDelegate.address,
      bundler: bundler.address,
    },
    contracts: [
      { name: 'PolicyRegistry', artifact: policyRegistryArtifact, ...registry },
      { name: 'IntentExecutor', artifact: intentExecutorArtifact, ...executor },
      { name: 'IntentLedger', artifact: intentLedgerArtifact, address: ledger, createdBy: 'IntentExecutor' },
      { name: 'IntentValidator', artifact: intentValidatorArtifact, address: validator, createdBy: 'IntentExecutor' },
      { name: 'IntentAccount', artifact: intentAccountArtifact, ...accountDelegate },
      { name: 'IntentBundler', artifact: intentBundlerArtifact, ...bundler },
    ],
  }
}
