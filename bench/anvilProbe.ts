// What the bench's measurements of anvil alone share: its CPU read from /proc, one JSON-RPC call,
// a funded relayer key and a distinct signed intent's executeSigned calldata (the demo counter's
// increment). Used by nodeCallCost.ts, simValidationCost.ts and receiptCost.ts.
import { readFileSync } from 'node:fs'
import { encodeFunctionData, type Hex, parseEther, toHex } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import {
  type Devnet,
  demoCounterArtifact,
  devnetAccounts,
  type Intent,
  intentExecutorArtifact,
  intentTypedData,
  toIntentTuple,
} from './gatewayParts.ts'

const ticks = 100 // USER_HZ on Linux

/** The process's CPU time so far (user + system), µs. */
export function cpuUsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticks
}

export type Rpc = (method: string, params: unknown[]) => Promise<unknown>

/** One JSON-RPC call per HTTP request to `url`; the node's error is thrown. */
export function createRpc(url: string): Rpc {
  let id = 0
  return async (method, params) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    })
    const body = (await res.json()) as { result?: unknown; error?: { message: string } }
    if (body.error) throw new Error(`${method}: ${body.error.message}`)
    return body.result
  }
}

/** A new key with 1000 ether on the devnet. */
export async function fundedRelayer(rpc: Rpc): Promise<PrivateKeyAccount> {
  const relayer = privateKeyToAccount(generatePrivateKey())
  await rpc('anvil_setBalance', [relayer.address, toHex(parseEther('1000'))])
  return relayer
}

/**
 * The demo sender's intent to increment the demo counter with `nonce`, signed: the intent, its tuple
 * and its signature. `by`: another sender's key and a policy it owns (bench/bundleGas.ts).
 */
export async function signedIncrement(devnet: Devnet, nonce: bigint, by?: { key: Hex; policyId: Hex }) {
  const signer = privateKeyToAccount(by?.key ?? devnetAccounts.sender)
  const intent: Intent = {
    sender: signer.address,
    target: devnet.demo.counter,
    data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
    value: 0n,
    nonce,
    validAfter: 0n,
    validBefore: 0n,
    policyId: by?.policyId ?? devnet.demo.policies.open,
  }
  const signature = await signer.signTypedData(
    intentTypedData({ chainId: devnet.anvil.chainId, executor: devnet.contracts.executor, intent }),
  )
  return { intent, tuple: toIntentTuple(intent), signature }
}

/** executeSigned's calldata for a distinct signed increment (see signedIncrement). */
export async function executeSignedData(devnet: Devnet, nonce: bigint): Promise<Hex> {
  const { tuple, signature } = await signedIncrement(devnet, nonce)
  return encodeFunctionData({
    abi: intentExecutorArtifact.abi,
    functionName: 'executeSigned',
    args: [tuple, signature],
  })
}
