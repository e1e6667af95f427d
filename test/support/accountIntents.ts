// Account-mode intents for tests against the devnet: single calls and batches signed under the
// account's own EIP-712 domain, EIP-7702 authorizations, request bodies, and a guard that nothing
// moved (the relayer's nonce and balance, the agent's ETH and DemoDollar) when nothing was sent.
import assert from 'node:assert/strict'
import { type Address, encodeAbiParameters, type Hex, keccak256 } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { batchIntentAbiParameter } from '../../src/chains/evm/encodeBatchIntent.ts'
import { batchIntentTypes, intentTypes } from '../../src/chains/evm/intentTypedData.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import type { World } from './testGateway.ts'

export type TestCall = { target: Address; value: bigint; data: Hex }
export type TestBatch = {
  sender: Address
  calls: TestCall[]
  nonce: bigint
  validAfter: bigint
  validBefore: bigint
  policyId: Hex
}
export type TestIntent = {
  sender: Address
  target: Address
  data: Hex
  value: bigint
  nonce: bigint
  validAfter: bigint
  validBefore: bigint
  policyId: Hex
}

export function accountIntents(world: () => World, relayer: Address) {
  const pc = () => world().clients.publicClient
  const chainId = () => world().devnet.anvil.chainId
  const domain = (sender: Address, onChain = chainId()) =>
    ({ name: 'IntentAccount', version: '1', chainId: onChain, verifyingContract: sender }) as const
  const ethOf = (who: Address) => pc().getBalance({ address: who })
  const dollarsOf = (who: Address) =>
    pc().readContract({
      address: world().devnet.contracts.dollar,
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  const relayerNonce = () => pc().getTransactionCount({ address: relayer, blockTag: 'pending' })
  return {
    ethOf,
    dollarsOf,
    relayerNonce,
    headers: () => ({ 'x-chain-id': world().devnet.chain.chainId }),
    codeOf: async (who: Address) => ((await pc().getCode({ address: who })) ?? '0x').toLowerCase(),
    signBatch: (batch: TestBatch, signer: PrivateKeyAccount, onChain?: number) =>
      signer.signTypedData({
        domain: domain(batch.sender, onChain),
        types: batchIntentTypes,
        primaryType: 'BatchIntent',
        message: batch,
      }),
    signIntent: (intent: TestIntent, signer: PrivateKeyAccount, onChain?: number) =>
      signer.signTypedData({
        domain: domain(intent.sender, onChain),
        types: intentTypes,
        primaryType: 'Intent',
        message: intent,
      }),
    /** keccak256(abi.encode(BatchIntent)), as the contract computes it. */
    batchHash: (batch: TestBatch) => keccak256(encodeAbiParameters([batchIntentAbiParameter], [batch])),
    batchBody: (batch: TestBatch, signature: Hex | undefined, extra: Record<string, unknown> = {}) => ({
      sender: batch.sender,
      calls: batch.calls.map((c) => ({ target: c.target, data: c.data, value: c.value.toString() })),
      nonce: batch.nonce.toString(),
      validAfter: batch.validAfter.toString(),
      validBefore: batch.validBefore.toString(),
      policyId: batch.policyId,
      mode: 'account',
      ...(signature ? { signature } : {}),
      ...extra,
    }),
    intentBody: (intent: TestIntent, signature: Hex | undefined, extra: Record<string, unknown> = {}) => ({
      ...intent,
      value: intent.value.toString(),
      nonce: intent.nonce.toString(),
      validAfter: intent.validAfter.toString(),
      validBefore: intent.validBefore.toString(),
      mode: 'account',
      ...(signature ? { signature } : {}),
      ...extra,
    }),
    async authorize(signer: PrivateKeyAccount, options: { chainId?: number; address?: Address; nonce?: number } = {}) {
      const a = await signer.signAuthorization({
        chainId: options.chainId ?? chainId(),
        address: options.address ?? world().devnet.contracts.accountDelegate,
        nonce: options.nonce ?? (await pc().getTransactionCount({ address: signer.address })),
      })
      return { chainId: a.chainId, address: a.address, nonce: a.nonce, yParity: a.yParity, r: a.r, s: a.s }
    },
    /** Runs `what` and asserts that nothing was sent and no balance of the relayer or of `agents` moved. */
    async untouched<T>(agents: Address[], what: () => Promise<T>): Promise<T> {
      const read = async () => ({
        relayerNonce: await relayerNonce(),
        relayerEth: await ethOf(relayer),
        agents: await Promise.all(agents.map(async (a) => [await ethOf(a), await dollarsOf(a)])),
      })
      const before = await read()
      const result = await what()
      assert.deepEqual(await read(), before, 'nothing was sent: the relayer and the agents are untouched')
      return result
    },
  }
}
