// What the execute tests read of the demo devnet's chain: the demo counter, the relayer's next
// nonce (pending: what it has sent), and whether an intent nonce of the demo sender is used.
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import type { World } from './testGateway.ts'

const relayer = privateKeyToAccount(devnetAccounts.relayer).address

/** `world`: the world the reads go to, once started (a test file starts it in `before`). */
export function demoReads(world: () => Pick<World, 'devnet' | 'clients'>) {
  return {
    readCount: () =>
      world().clients.publicClient.readContract({
        address: world().devnet.contracts.counter,
        abi: demoCounterArtifact.abi,
        functionName: 'count',
      }),
    relayerNonce: () => world().clients.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' }),
    nonceUsed: (nonce: bigint) =>
      world().clients.publicClient.readContract({
        address: world().devnet.contracts.executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'nonceUsed',
        args: [world().devnet.demo.sender, nonce],
      }),
  }
}
