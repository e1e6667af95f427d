// What a mined transaction's receipt costs anvil by the size of its block: a block of k
// executeSigned transactions mined at once (automine off, one evm_mine), then its receipts read
// whole (eth_getBlockReceipts, the gateway's receipt watch) and one request each
// (eth_getTransactionReceipt), anvil's CPU (user + system from /proc) per receipt
// (docs/performance.md, sixteenth session); and the block's logs read whole (eth_getLogs by its
// hash: what reading a block's outcome costs without its receipts' gas, twenty-fourth session).
// Run: node --import tsx bench/receiptCost.ts [sizes, comma-separated]
import type { Hex } from 'viem'
import { cpuUsOf, createRpc, executeSignedData, fundedRelayer } from './anvilProbe.ts'
import { startDevnet } from './gatewayParts.ts'

/** At most ~296 of these fit in one block of anvil's 30 M gas. */
const sizes = (process.argv[2] ?? '10,50,200').split(',').map(Number)
/** Receipts read per measure, so that /proc's 10 ms ticks are a small part of it. */
const reads = 4000
const devnet = await startDevnet()
const rpc = createRpc(devnet.anvil.rpcUrl)
const relayer = await fundedRelayer(rpc)
let intentNonce = 3_000_000n
let txNonce = 0
const signedExecute = async (): Promise<Hex> =>
  relayer.signTransaction({
    chainId: devnet.anvil.chainId,
    type: 'eip1559',
    to: devnet.contracts.executor,
    data: await executeSignedData(devnet, intentNonce++),
    gas: 300_000n,
    nonce: txNonce++,
    maxFeePerGas: 20_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  })
/** Runs `count` requests made by `make(i)`, 8 at a time; anvil's CPU over them, µs. */
async function cpuOf(count: number, make: (i: number) => Promise<unknown>): Promise<number> {
  const before = cpuUsOf(devnet.anvil.pid)
  let next = 0
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) await make(next++)
    }),
  )
  return cpuUsOf(devnet.anvil.pid) - before
}
// The devnet is stopped however the measure ends (an error included): no node is left behind.
try {
  await rpc('evm_setAutomine', [false])
  process.stdout.write(
    'block size   eth_getBlockReceipts per receipt   eth_getTransactionReceipt per receipt   eth_getLogs per transaction\n',
  )
  for (const k of sizes) {
    const raws: Hex[] = []
    for (let i = 0; i < k; i++) raws.push(await signedExecute())
    const hashes: Hex[] = []
    for (const raw of raws) hashes.push((await rpc('eth_sendRawTransaction', [raw])) as Hex)
    await rpc('evm_mine', [])
    const block = ((await rpc('eth_getTransactionReceipt', [hashes[0]])) as { blockNumber: Hex }).blockNumber
    const inBlock = ((await rpc('eth_getBlockReceipts', [block])) as unknown[]).length
    if (inBlock !== k) throw new Error(`block ${block} holds ${inBlock} transactions, not ${k}`)
    const wholes = Math.max(2, Math.ceil(reads / k))
    const whole = (await cpuOf(wholes, () => rpc('eth_getBlockReceipts', [block]))) / (wholes * k)
    const single = (await cpuOf(reads, (i) => rpc('eth_getTransactionReceipt', [hashes[i % k]]))) / reads
    const blockHash = ((await rpc('eth_getBlockByNumber', [block, false])) as { hash: Hex }).hash
    const logCount = ((await rpc('eth_getLogs', [{ blockHash }])) as unknown[]).length
    if (logCount < k)
      throw new Error(`block ${block}'s ${k} transactions logged ${logCount} events, fewer than one each`)
    const logs = (await cpuOf(wholes, () => rpc('eth_getLogs', [{ blockHash }]))) / (wholes * k)
    process.stdout.write(
      `${String(k).padStart(10)}   ${whole.toFixed(0).padStart(30)} µs   ${single.toFixed(0).padStart(34)} µs   ${logs.toFixed(0).padStart(24)} µs\n`,
    )
  }
} finally {
  await devnet.stop()
}
process.exit(0)
