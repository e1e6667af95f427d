// What eth_simulateV1's `validation` flag costs anvil per call, in the gateway's batch shape (200
// calls of executeSigned in one block on `latest`), rounds alternating (docs/performance.md,
// sixteenth session). Run: node --import tsx bench/simValidationCost.ts [rounds]
import { numberToHex } from 'viem'
import { cpuUsOf, createRpc, executeSignedData, fundedRelayer } from './anvilProbe.ts'
import { startDevnet } from './gatewayParts.ts'

const rounds = Number(process.argv[2] ?? 6)
const perRound = 10 // batches of 200 a round
const devnet = await startDevnet({ blockTime: 0.2 })
const rpc = createRpc(devnet.anvil.rpcUrl)
// The devnet is stopped however the measure ends (an error included): no node is left behind.
try {
  const relayer = await fundedRelayer(rpc)
  const datas = await Promise.all(
    Array.from({ length: 200 }, (_, i) => executeSignedData(devnet, BigInt(2_000_000 + i))),
  )
  const calls = datas.map((data) => ({
    from: relayer.address,
    to: devnet.contracts.executor,
    data,
    gas: numberToHex(300_000n),
    maxFeePerGas: numberToHex(20_000_000_000n),
    maxPriorityFeePerGas: numberToHex(1_000_000_000n),
  }))
  const kinds = { validation: true, 'no validation': false }
  const seen: Record<string, number[]> = { validation: [], 'no validation': [] }
  // The first round warms up and is not counted.
  for (let r = 0; r <= rounds; r++) {
    for (const [name, validation] of Object.entries(kinds)) {
      const before = cpuUsOf(devnet.anvil.pid)
      for (let b = 0; b < perRound; b++)
        await rpc('eth_simulateV1', [{ blockStateCalls: [{ calls }], validation }, 'latest'])
      if (r > 0) seen[name]!.push((cpuUsOf(devnet.anvil.pid) - before) / (perRound * calls.length))
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  for (const [name, xs] of Object.entries(seen)) {
    const each = xs.map((x) => x.toFixed(0)).join(' ')
    process.stdout.write(`${name.padEnd(16)} median ${median(xs).toFixed(0)} µs a call; rounds ${each}\n`)
  }
} finally {
  await devnet.stop()
}
process.exit(0)
