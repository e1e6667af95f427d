// What a relayer pays in gas for each execution sent one transaction each, against the same
// executions sent as one Multicall3 aggregate3 transaction (bench/experiments/bundle.patch; the
// fortieth session in docs/performance.md) and as one IntentBundler run (a gas limit for each call,
// each call logged; the forty-first session). The demo counter's increment by the demo sender, signed
// intents with consecutive nonces in fresh words of the ledger on both sides, after a warm-up; or
// (DISTINCT_SENDERS=1) each execution by a sender of its own.
// Run: npx tsx bench/bundleGas.ts [executions in a bundle, comma-separated]
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, numberToHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId } from '../src/chains/derivePolicyId.ts'
import { encodeAggregate3 } from '../src/chains/evm/aggregate3Codec.ts'
import { multicall3Address } from '../src/chains/evm/multicall3Address.ts'
import { intentBundlerArtifact } from '../src/contracts/intentBundlerArtifact.ts'
import { policyRegistryArtifact } from '../src/contracts/policyRegistryArtifact.ts'
import { createRpc, fundedRelayer, signedIncrement } from './anvilProbe.ts'
import { intentExecutorArtifact, startDevnet } from './gatewayParts.ts'

const sizes = (process.argv[2] ?? '10,50,100').split(',').map(Number)
const devnet = await startDevnet({})
try {
  const rpc = createRpc(devnet.anvil.rpcUrl)
  const relayer = await fundedRelayer(rpc)
  await rpc('anvil_impersonateAccount', [relayer.address])
  const executor = devnet.contracts.executor
  // One sender for every execution (the bench's load: its slots stay warm within a bundle), or a
  // new sender for each (DISTINCT_SENDERS=1: each execution's own slots are cold in a bundle too).
  const distinct = process.env.DISTINCT_SENDERS === '1'
  const executeData = async (nonce: bigint): Promise<Hex> => {
    let by: { key: Hex; policyId: Hex } | undefined
    if (distinct) {
      const key = generatePrivateKey()
      by = { key, policyId: await ownPolicy(privateKeyToAccount(key).address) }
    }
    const { tuple, signature } = await signedIncrement(devnet, nonce, by)
    return encodeFunctionData({
      abi: intentExecutorArtifact.abi,
      functionName: 'executeSigned',
      args: [tuple, signature],
    })
  }
  // A sender's own policy, the open demo policy's terms with it as the owner (a policy runs only its owner's intents).
  const registry = devnet.contracts.registry
  const openTerms = decodeFunctionResult({
    abi: policyRegistryArtifact.abi,
    functionName: 'getPolicy',
    data: (await rpc('eth_call', [
      {
        to: registry,
        data: encodeFunctionData({
          abi: policyRegistryArtifact.abi,
          functionName: 'getPolicy',
          args: [devnet.demo.policies.open],
        }),
      },
      'latest',
    ])) as Hex,
  })
  const ownPolicy = async (owner: Address): Promise<Hex> => {
    await rpc('anvil_setBalance', [owner, numberToHex(10n ** 18n)])
    await rpc('anvil_impersonateAccount', [owner])
    const salt = `0x${'00'.repeat(32)}` as Hex
    const hash = await rpc('eth_sendTransaction', [
      {
        from: owner,
        to: registry,
        data: encodeFunctionData({
          abi: policyRegistryArtifact.abi,
          functionName: 'createPolicy',
          args: [salt, { ...openTerms, owner }],
        }),
      },
    ])
    await receiptOf(hash as Hex)
    return derivePolicyId(owner, salt)
  }
  type Receipt = { gasUsed: Hex; status: Hex; logs: { address: string; topics: string[] }[] }
  // The devnet mines on its own clock: the receipt is there once its block is. A revert throws.
  async function receiptOf(hash: Hex): Promise<Receipt> {
    for (;;) {
      const receipt = (await rpc('eth_getTransactionReceipt', [hash])) as Receipt | null
      if (receipt) {
        if (receipt.status !== '0x1') throw new Error(`transaction ${hash} reverted`)
        return receipt
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const send = async (to: string, data: Hex, gas: bigint): Promise<Receipt> => {
    const hash = await rpc('eth_sendTransaction', [{ from: relayer.address, to, data, gas: numberToHex(gas) }])
    return receiptOf(hash as Hex)
  }
  // One word of the ledger's nonces (128 to a word) for each side and size, none used before.
  let word = 10_000n
  const freshNonces = (n: number) => {
    const base = word++ * 128n
    if (n > 128) throw new Error('at most 128 executions: one word of nonces')
    return Array.from({ length: n }, (_, i) => base + BigInt(i))
  }
  // Warm-up: the counter's slot (and the one sender's records) written once before either side.
  await send(executor, await executeData(freshNonces(1)[0]!), 1_000_000n)

  // The same calls through IntentBundler (each with a limit of its own and a log of the gas it used).
  const callLimit = 200_000n
  const bundlerRun = (calls: { target: Address; callData: Hex }[]) =>
    encodeFunctionData({
      abi: intentBundlerArtifact.abi,
      functionName: 'run',
      args: [calls.map((c) => ({ target: c.target, gasLimit: callLimit, data: c.callData }))],
    })

  console.log(
    'executions | one transaction each: gas per execution | Multicall3 aggregate3: gas per execution, saved | IntentBundler: gas per execution, saved',
  )
  for (const n of sizes) {
    let each = 0n
    for (const nonce of freshNonces(n)) {
      each += BigInt((await send(executor, await executeData(nonce), 1_000_000n)).gasUsed)
    }
    const calls = await Promise.all(
      freshNonces(n).map(async (nonce) => ({ target: executor, callData: await executeData(nonce) })),
    )
    const r = await send(multicall3Address, encodeAggregate3(calls), 29_000_000n)
    const executed = r.logs.filter((l) => l.address.toLowerCase() === executor.toLowerCase()).length
    if (executed < n) throw new Error(`the bundle ran ${executed} of ${n} executions`)
    const own = await Promise.all(
      freshNonces(n).map(async (nonce) => ({ target: executor, callData: await executeData(nonce) })),
    )
    const b = await send(devnet.contracts.bundler, bundlerRun(own), 29_000_000n)
    const ran = b.logs.filter((l) => l.address.toLowerCase() === executor.toLowerCase()).length
    if (ran < n) throw new Error(`IntentBundler ran ${ran} of ${n} executions`)
    const alone = Number(each) / n
    const saved = (gas: Hex) => {
      const per = Number(BigInt(gas)) / n
      return `${per.toFixed(0)}, ${(100 * (1 - per / alone)).toFixed(1)}%`
    }
    console.log(`${n} | ${alone.toFixed(0)} | ${saved(r.gasUsed)} | ${saved(b.gasUsed)}`)
  }
} finally {
  await devnet.stop()
}
