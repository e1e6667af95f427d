// What each kind of JSON-RPC call costs anvil, alone: its CPU time (user + system from
// /proc/<pid>/stat) over a run of identical-shape calls, divided by the calls. The execute path's
// levers are chosen from these numbers (docs/performance.md). Run: node --import tsx bench/nodeCallCost.ts [calls]
import { encodeFunctionData, type Hex, numberToHex } from 'viem'
import { cpuUsOf, createRpc, fundedRelayer, signedIncrement } from './anvilProbe.ts'
import { createDevClients, intentExecutorArtifact, intentValidatorArtifact, startDevnet } from './gatewayParts.ts'

const calls = Number(process.argv[2] ?? 500)
/** Concurrent requests in flight, as the gateway has them under load. */
const inFlight = Number(process.env.IN_FLIGHT ?? 8)
const blockTime = Number(process.env.BENCH_BLOCK_TIME ?? 0.2)

const devnet = await startDevnet({ blockTime })
const url = devnet.anvil.rpcUrl
const cpuUs = () => cpuUsOf(devnet.anvil.pid)
const rpc = createRpc(url)
const relayer = await fundedRelayer(rpc)
const chainId = devnet.anvil.chainId
const fees = { maxFeePerGas: numberToHex(20_000_000_000n), maxPriorityFeePerGas: numberToHex(1_000_000_000n) }

/** A distinct signed intent (the demo counter's increment), its executeSigned and checkSigned calldata, and canExecute's. */
let nextNonce = 1_000_000
async function signedIntent() {
  const { tuple, signature } = await signedIncrement(devnet, BigInt(nextNonce++))
  return {
    execute: encodeFunctionData({
      abi: intentExecutorArtifact.abi,
      functionName: 'executeSigned',
      args: [tuple, signature],
    }),
    checkSigned: encodeFunctionData({
      abi: intentExecutorArtifact.abi,
      functionName: 'checkSigned',
      args: [tuple, signature],
    }),
    canExecute: encodeFunctionData({ abi: intentValidatorArtifact.abi, functionName: 'canExecute', args: [tuple] }),
  }
}
const intents = await Promise.all(Array.from({ length: calls }, signedIntent))
const executor = devnet.contracts.executor
const tx = (data: Hex, gas: bigint) => ({ from: relayer.address, to: executor, data, gas: numberToHex(gas), ...fees })

/** Runs `count` requests made by `make(i)`, `inFlight` at a time; anvil's CPU per request, µs. */
async function measure(count: number, make: (i: number) => Promise<unknown>): Promise<number> {
  await make(0) // warm
  const before = cpuUs()
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await make(next++)
    }),
  )
  return (cpuUs() - before) / count
}

const cap = 5_000_000n
const block = 'pending'
const n = 10
const rows: [string, number][] = []
const kinds: [string, number, (i: number) => Promise<unknown>][] = [
  ['eth_blockNumber', calls, () => rpc('eth_blockNumber', [])],
  ['eth_getTransactionReceipt (unknown hash)', calls, () => rpc('eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`])],
  [
    'eth_call canExecute (latest)',
    calls,
    (i) => rpc('eth_call', [{ to: devnet.contracts.validator, data: intents[i % calls]!.canExecute }, 'latest']),
  ],
  [
    'eth_call checkSigned (latest)',
    calls,
    (i) => rpc('eth_call', [{ to: executor, data: intents[i % calls]!.checkSigned }, 'latest']),
  ],
  [
    'eth_call executeSigned (pending, from relayer, gas, fees)',
    calls,
    (i) => rpc('eth_call', [tx(intents[i % calls]!.execute, cap), block]),
  ],
  [
    'eth_createAccessList executeSigned (pending)',
    calls,
    (i) => rpc('eth_createAccessList', [tx(intents[i % calls]!.execute, cap), block]),
  ],
  [
    'eth_estimateGas executeSigned (pending, cap)',
    Math.ceil(calls / 5),
    (i) => rpc('eth_estimateGas', [tx(intents[i % calls]!.execute, cap), block]),
  ],
  [
    'eth_simulateV1, 1 call (pending, validation)',
    calls,
    (i) =>
      rpc('eth_simulateV1', [
        { blockStateCalls: [{ calls: [tx(intents[i % calls]!.execute, cap)] }], validation: true },
        block,
      ]),
  ],
  [
    'eth_simulateV1, 1 call (pending, no validation)',
    calls,
    (i) => rpc('eth_simulateV1', [{ blockStateCalls: [{ calls: [tx(intents[i % calls]!.execute, cap)] }] }, block]),
  ],
  [
    'eth_simulateV1, 1 call (latest, validation)',
    calls,
    (i) =>
      rpc('eth_simulateV1', [
        { blockStateCalls: [{ calls: [tx(intents[i % calls]!.execute, cap)] }], validation: true },
        'latest',
      ]),
  ],
  [
    `eth_simulateV1, ${n} calls in one block (per call)`,
    Math.ceil(calls / n),
    (i) =>
      rpc('eth_simulateV1', [
        {
          blockStateCalls: [
            { calls: Array.from({ length: n }, (_, k) => tx(intents[(i * n + k) % calls]!.execute, 1_000_000n)) },
          ],
          validation: false,
        },
        block,
      ]),
  ],
  // The gateway's batch under the execute bench: 200 calls in one block on `latest`, with and without validation.
  ...[true, false].map((validation): [string, number, (i: number) => Promise<unknown>] => [
    `eth_simulateV1, 200 calls in one block (latest, ${validation ? '' : 'no '}validation, per call)`,
    Math.max(2, Math.ceil(calls / 200)),
    (i) =>
      rpc('eth_simulateV1', [
        {
          blockStateCalls: [
            { calls: Array.from({ length: 200 }, (_, k) => tx(intents[(i * 200 + k) % calls]!.execute, cap)) },
          ],
          validation,
        },
        'latest',
      ]),
  ]),
  [
    `eth_simulateV1, ${n} blockStateCalls of 1 call (per call)`,
    Math.ceil(calls / n),
    (i) =>
      rpc('eth_simulateV1', [
        {
          blockStateCalls: Array.from({ length: n }, (_, k) => ({
            calls: [tx(intents[(i * n + k) % calls]!.execute, 1_000_000n)],
          })),
          validation: false,
        },
        block,
      ]),
  ],
]
for (const [name, count, make] of kinds) {
  let perCall = await measure(count, make)
  if (name.includes('(per call)')) perCall /= n
  else if (name.includes('200 calls')) perCall /= 200
  rows.push([name, perCall])
  process.stdout.write(`${name.padEnd(62)} ${perCall.toFixed(0).padStart(7)} µs\n`)
}

// The raw transaction: pre-signed executeSigned at a fixed limit, sent and mined (the receipt read once).
const { publicClient } = createDevClients(url, chainId)
let txNonce = await publicClient.getTransactionCount({ address: relayer.address, blockTag: 'pending' })
const raws: Hex[] = []
for (const intent of await Promise.all(Array.from({ length: calls }, signedIntent))) {
  raws.push(
    await relayer.signTransaction({
      chainId,
      type: 'eip1559',
      to: executor,
      data: intent.execute,
      gas: 300_000n,
      nonce: txNonce++,
      maxFeePerGas: 20_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    }),
  )
}
const before = cpuUs()
const hashes: Hex[] = []
let next = 0
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (next < calls) {
      const i = next++
      hashes[i] = (await rpc('eth_sendRawTransaction', [raws[i]])) as Hex
    }
  }),
)
for (;;) {
  const last = await rpc('eth_getTransactionReceipt', [hashes[calls - 1]])
  if (last) break
  await new Promise((r) => setTimeout(r, 50))
}
const sendCost = (cpuUs() - before) / calls
rows.push(['eth_sendRawTransaction and mining (per tx, interval mining)', sendCost])
process.stdout.write(
  `${'eth_sendRawTransaction and mining (per tx)'.padEnd(62)} ${sendCost.toFixed(0).padStart(7)} µs\n`,
)

// Reading those transactions back: one receipt at a time (the raw sender's way) against a whole
// block's (the gateway's receipt watch reads eth_getBlockReceipts once per block), per receipt.
{
  const blockOf = new Map<string, number>()
  for (const hash of hashes) {
    const r = (await rpc('eth_getTransactionReceipt', [hash])) as { blockNumber: Hex }
    blockOf.set(r.blockNumber, (blockOf.get(r.blockNumber) ?? 0) + 1)
  }
  const [fullest, inIt] = [...blockOf].sort((a, b) => b[1] - a[1])[0]!
  const perReceipt: Array<[string, number]> = [
    [
      'eth_getTransactionReceipt (a mined transaction)',
      await measure(calls, (i) => rpc('eth_getTransactionReceipt', [hashes[i % calls]])),
    ],
    [
      `eth_getBlockReceipts of a block of ${inIt} (per receipt)`,
      (await measure(Math.max(4, Math.ceil(calls / inIt)), () => rpc('eth_getBlockReceipts', [fullest]))) / inIt,
    ],
  ]
  for (const [name, cost] of perReceipt) {
    rows.push([name, cost])
    process.stdout.write(`${name.padEnd(62)} ${cost.toFixed(0).padStart(7)} µs
`)
  }
}

// A wave of the execute bench at the node, alone: 200 executes simulated in one eth_simulateV1 on
// `latest`, then the same 200 transactions sent in groups of 50, one group after the other, as the
// gateway's outbox sends them. The node's wall time here is spent in series with the gateway's own
// work on the same wave, before the block that mines it (docs/performance.md).
{
  const wave = 200
  const group = 50
  for (let round = 0; round < 3; round++) {
    const waveIntents = await Promise.all(Array.from({ length: wave }, signedIntent))
    const waveRaws: Hex[] = []
    for (const intent of waveIntents)
      waveRaws.push(
        await relayer.signTransaction({
          chainId,
          type: 'eip1559',
          to: executor,
          data: intent.execute,
          gas: 300_000n,
          nonce: txNonce++,
          maxFeePerGas: 20_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
        }),
      )
    const head = await rpc('eth_blockNumber', [])
    while ((await rpc('eth_blockNumber', [])) === head) await new Promise((r) => setTimeout(r, 5))
    const cpu0 = cpuUs()
    const t0 = performance.now()
    await rpc('eth_simulateV1', [
      { blockStateCalls: [{ calls: waveIntents.map((i) => tx(i.execute, cap)) }], validation: true },
      'latest',
    ])
    const t1 = performance.now()
    const cpu1 = cpuUs()
    for (let i = 0; i < wave; i += group) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          waveRaws
            .slice(i, i + group)
            .map((raw, k) => ({ jsonrpc: '2.0', id: i + k + 1, method: 'eth_sendRawTransaction', params: [raw] })),
        ),
      })
      const answers = (await res.json()) as { error?: { message: string } }[]
      const refused = answers.find((a) => a.error)
      if (refused) throw new Error(`eth_sendRawTransaction: ${refused.error!.message}`)
    }
    const t2 = performance.now()
    const cpu2 = cpuUs()
    const line = `a wave of ${wave} at the node: simulated in ${(t1 - t0).toFixed(0)} ms (${((cpu1 - cpu0) / 1000).toFixed(0)} ms CPU), taken in ${(t2 - t1).toFixed(0)} ms (${((cpu2 - cpu1) / 1000).toFixed(0)} ms CPU), groups of ${group}`
    rows.push([`${line} (wall ms, simulation + sends)`, t2 - t0])
    process.stdout.write(`${line}\n`)
    const last = await rpc('eth_blockNumber', [])
    while ((await rpc('eth_blockNumber', [])) === last) await new Promise((r) => setTimeout(r, 5))
  }
}

// 'pending' with transactions waiting in the pool: anvil runs them all before the call (its pending
// block), so a simulation at the pending state costs more the fuller the pool is. Mining stops
// while K pre-signed transactions of another key wait.
const other = await fundedRelayer(rpc)
let otherNonce = 0
await rpc('evm_setIntervalMining', [0])
for (const waiting of [1, 20, 100]) {
  const pool = await Promise.all(Array.from({ length: waiting }, signedIntent))
  for (const intent of pool) {
    const raw = await other.signTransaction({
      chainId,
      type: 'eip1559',
      to: executor,
      data: intent.execute,
      gas: 300_000n,
      nonce: otherNonce++,
      maxFeePerGas: 20_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    })
    await rpc('eth_sendRawTransaction', [raw])
  }
  const few = Math.ceil(calls / 5)
  for (const [name, make] of [
    [
      'eth_simulateV1, 1 call (pending, validation)',
      (i: number) =>
        rpc('eth_simulateV1', [
          { blockStateCalls: [{ calls: [tx(intents[i % calls]!.execute, cap)] }], validation: true },
          'pending',
        ]),
    ],
    [
      'eth_simulateV1, 1 call (latest, validation)',
      (i: number) =>
        rpc('eth_simulateV1', [
          { blockStateCalls: [{ calls: [tx(intents[i % calls]!.execute, cap)] }], validation: true },
          'latest',
        ]),
    ],
    [
      'eth_call canExecute (latest)',
      (i: number) =>
        rpc('eth_call', [{ to: devnet.contracts.validator, data: intents[i % calls]!.canExecute }, 'latest']),
    ],
    [
      'eth_call canExecute (pending)',
      (i: number) =>
        rpc('eth_call', [{ to: devnet.contracts.validator, data: intents[i % calls]!.canExecute }, 'pending']),
    ],
    [
      'eth_createAccessList executeSigned (pending)',
      (i: number) => rpc('eth_createAccessList', [tx(intents[i % calls]!.execute, cap), 'pending']),
    ],
    ['eth_getTransactionCount (pending)', () => rpc('eth_getTransactionCount', [relayer.address, 'pending'])],
  ] as const) {
    const perCall = await measure(few, make)
    rows.push([`${name}, ${waiting} in the pool`, perCall])
    process.stdout.write(`${`${name}, ${waiting} in the pool`.padEnd(62)} ${perCall.toFixed(0).padStart(7)} µs\n`)
  }
  // Mining stays off (anvil takes whole seconds here): the next round starts from an empty pool.
  await rpc('evm_mine', [])
}
process.stdout.write(`${JSON.stringify({ calls, inFlight, blockTime, rows })}\n`)
await devnet.stop()
