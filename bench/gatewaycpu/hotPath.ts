// Each JavaScript step of an execute's hot path, before (viem's general code) and after (this
// round's hand-written or native code), in-process: CPU µs per call, median of 5 rounds.
// Usage: npx tsx bench/gatewaycpu/hotPath.ts
import { encodeAbiParameters, type Hex, serializeTransaction, keccak256 as viemKeccak256 } from 'viem'
import { encodeIntent, toIntentTuple } from '../../src/chains/evm/evmRuntime.ts'
import { encodeSignedIntent } from '../../src/chains/evm/intentAbi.ts'
import { serializeRelayed } from '../../src/chains/evm/relayer/signRelayed.ts'
import { toRelayerAccount } from '../../src/chains/evm/relayer/toRelayerAccount.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { keccak256 } from '../../src/crypto/keccak256.ts'

const intent = {
  sender: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  target: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  data: `0xd09de08a${'00'.repeat(64)}` as Hex,
  value: 0n,
  nonce: 123456789n,
  validAfter: 0n,
  validBefore: 1893456000n,
  policyId: `0x${'ab'.repeat(32)}` as Hex,
}
const signature = `0x${'cd'.repeat(65)}` as Hex
const signedArguments = intentExecutorArtifact.abi.find(
  (i) => i.type === 'function' && i.name === 'executeSigned',
)!.inputs
const calldata = `0x12345678${encodeSignedIntent(encodeIntent(intent), signature).slice(2)}` as Hex
const tx = {
  chainId: 31337,
  type: 'eip1559' as const,
  to: intent.target as Hex,
  data: calldata,
  value: 0n,
  gas: 120_000n,
  nonce: 42,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
}
const account = toRelayerAccount(`0x${'11'.repeat(32)}`)
const raw = await account.signTransaction(tx)

async function measure(name: string, run: () => unknown | Promise<unknown>, n = 3000): Promise<void> {
  const rounds: number[] = []
  for (let r = 0; r < 6; r++) {
    const start = process.cpuUsage()
    for (let i = 0; i < n; i++) await run()
    const used = process.cpuUsage(start)
    if (r > 0) rounds.push((used.user + used.system) / n) // the first round warms up
  }
  rounds.sort((a, b) => a - b)
  process.stdout.write(`${rounds[2]!.toFixed(1).padStart(7)} µs  ${name}\n`)
}

await measure("executeSigned's arguments: viem encodeAbiParameters", () =>
  encodeAbiParameters(signedArguments, [toIntentTuple(intent), signature]),
)
await measure("executeSigned's arguments: encodeSignedIntent (hand-written)", () =>
  encodeSignedIntent(encodeIntent({ ...intent }), signature),
)
await measure('signed transaction id: viem keccak256 (JavaScript)', () => viemKeccak256(raw))
await measure('signed transaction id: crypto/keccak256 (hash-wasm)', () => keccak256(raw))
await measure(
  'serialize, unsigned + signed: viem serializeTransaction',
  () =>
    serializeTransaction(tx, { r: `0x${'12'.repeat(32)}`, s: `0x${'34'.repeat(32)}`, yParity: 1 }) +
    serializeTransaction(tx),
)
await measure(
  'serialize, unsigned + signed: serializeRelayed (hand-written)',
  () =>
    serializeRelayed(tx, { r: `0x${'12'.repeat(32)}`, s: `0x${'34'.repeat(32)}`, yParity: 1 }) + serializeRelayed(tx),
)
await measure('sign a relayed transaction: viem serializer', () => account.signTransaction(tx))
await measure('sign a relayed transaction: serializeRelayed', () =>
  account.signTransaction(tx, { serializer: serializeRelayed }),
)
