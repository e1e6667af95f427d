// Validator reads for the tests of the read path (folding, the answer cache) against a real anvil:
// canExecute calls with two different verdicts, a call that reverts, and the plain eth_call each
// is compared with. `devnet` and `rpc` are read when called (a test file starts them in `before`).
import { type Address, encodeFunctionData, type Hex } from 'viem'
import type { JsonRpcClient } from '../../src/chains/createJsonRpcClient.ts'
import type { Devnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { toIntentTuple } from '../../src/chains/evm/evmRuntime.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { intentValidatorArtifact } from '../../src/contracts/intentValidatorArtifact.ts'

export type Read = { to: Address; data: Hex }
export type Settled = { ok: unknown } | { err: string }

export function validatorReads(devnet: () => Devnet, rpc: () => JsonRpcClient) {
  // The node's error, without the request body (whose JSON-RPC id differs from call to call).
  const message = (e: Error) => e.message.replace(/Request body: .*\n/, '')
  return {
    /** Odd nonces under the open policy (allowed), even ones under a policy that does not exist. */
    canExecute: (nonce: number, validAfter = 0n): Read => ({
      to: devnet().contracts.validator,
      data: encodeFunctionData({
        abi: intentValidatorArtifact.abi,
        functionName: 'canExecute',
        args: [
          toIntentTuple({
            sender: devnet().demo.sender,
            target: devnet().demo.counter,
            data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
            value: 0n,
            nonce: BigInt(nonce),
            validAfter,
            validBefore: 0n,
            policyId: nonce % 2 ? devnet().demo.policies.open : `0x${'ee'.repeat(32)}`,
          }),
        ],
      }),
    }),
    /** A selector the validator does not have: the node answers with a revert. */
    reverting: (): Read => ({ to: devnet().contracts.validator, data: '0xdeadbeef' }),
    /** The plain eth_call at the latest block, settled. */
    direct: (c: Read): Promise<Settled> =>
      rpc()
        .request({ method: 'eth_call', params: [c, 'latest'] })
        .then(
          (v) => ({ ok: v }),
          (e: Error) => ({ err: message(e) }),
        ),
    settled: (p: Promise<Hex>): Promise<Settled> =>
      p.then(
        (v) => ({ ok: v }),
        (e: Error) => ({ err: message(e) }),
      ),
  }
}
