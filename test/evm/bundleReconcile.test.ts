// A bundle's executions found in the journal by the reconciler (a gateway that stopped after
// journaling a bundle and before its broadcast): the bundle's bytes, kept once for all its calls,
// are broadcast again whole, and each execution is settled from its own call's outcome in the
// bundle's receipt, with its share of the gas. A call of a bundle is never re-priced alone.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Address, encodeFunctionData, type Hex, parseGwei, parseTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { evmRuntime, toIntentTuple } from '../../src/chains/evm/evmRuntime.ts'
import { evmSignedExecution } from '../../src/chains/evm/evmSignedExecution.ts'
import { intentBundlerArtifact } from '../../src/contracts/intentBundlerArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { parseIntent } from '../../src/intents/parseIntent.ts'
import type { ExecutionRecord } from '../../src/ports/journal.ts'
import { Status } from '../../src/status/statusCodes.ts'
import { eventually } from '../support/eventually.ts'
import { demoIntent, rpc, signIntent, startTestGateway, type TestGateway } from '../support/testGateway.ts'

describe("a bundle's executions, reconciled from the journal", () => {
  let devnet: Devnet
  before(async () => {
    devnet = await startDevnet()
  })
  after(async () => {
    await devnet?.stop()
  })

  /**
   * Claims three intents in the gateway's journal (one that runs, one forged so the executor refuses
   * it, one given too little gas in the bundle), signs them as one IntentBundler run with the
   * gateway's relayer key, and journals each as its call, without broadcasting the bundle.
   */
  async function journaledBundle(
    gateway: TestGateway,
    firstNonce: bigint,
    fees?: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  ) {
    const clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const relayer = clients.walletFor(devnetAccounts.relayer)
    const address = privateKeyToAccount(devnetAccounts.relayer).address
    const members: { record: ExecutionRecord; call: { target: Address; gasLimit: bigint; data: Hex } }[] = []
    for (const [nonce, signer, gasLimit] of [
      [firstNonce, devnetAccounts.sender, 200_000n],
      [firstNonce + 1n, devnetAccounts.other, 200_000n],
      [firstNonce + 2n, devnetAccounts.sender, 30_000n],
    ] as const) {
      const body = await signIntent(devnet, demoIntent(devnet, { nonce: String(nonce) }), signer)
      const intent = parseIntent(body as never, evmRuntime)
      const data = encodeFunctionData({
        abi: intentExecutorArtifact.abi,
        functionName: 'executeSigned',
        args: [toIntentTuple(intent), body.signature as Hex],
      })
      const claim = await gateway.journal.claim({
        chainId: 'eip155:31337',
        intentHash: evmRuntime.hashIntent(intent) as Hex,
        intent,
      })
      assert.ok(claim.ok)
      members.push({ record: claim.record, call: { target: devnet.contracts.executor, gasLimit, data } })
    }
    const data = encodeFunctionData({
      abi: intentBundlerArtifact.abi,
      functionName: 'run',
      args: [members.map((m) => m.call)],
    })
    const txNonce = await clients.publicClient.getTransactionCount({ address, blockTag: 'pending' })
    const rawTransaction = await relayer.signTransaction({
      account: relayer.account!,
      chain: relayer.chain,
      to: devnet.contracts.bundler,
      data,
      gas: 1_000_000n,
      nonce: txNonce,
      ...(fees ?? (await clients.publicClient.estimateFeesPerGas())),
    })
    const bundle = evmSignedExecution.from({ relayer: address, txNonce, rawTransaction })
    for (const [index, m] of members.entries())
      await gateway.journal.recordSigned(m.record, { ...bundle, bundle: { index } })
    return { clients, address, members, bundle, txNonce, rawTransaction }
  }

  it('broadcasts the bundle again from its one copy of the bytes and settles each call from its own outcome', async () => {
    const gateway = await startTestGateway({ chains: [devnet.chain], receiptTimeoutMs: 300, reconcileIntervalMs: 300 })
    try {
      const { clients, address, members, bundle, txNonce } = await journaledBundle(gateway, 7_100_001n)
      // Journaled, each as its call, and never broadcast: the gateway "stopped" here.
      assert.equal(m0Bytes(await gateway.journal.get(members[0]!.record.intentHash)), '', 'the records keep no bytes')

      const settled = await eventually('every call settled', 20_000, async () => {
        const records = await Promise.all(members.map((m) => gateway.journal.get(m.record.intentHash)))
        return records.every((r) => r && r.state !== 'pending') ? records : undefined
      })
      assert.ok(gateway.logs.some((l) => l.includes('the node had lost a journaled transaction; broadcast it again')))
      assert.deepEqual(
        settled.map((r) => [r!.state, r!.status]),
        [
          ['mined', Status.EXECUTED],
          ['reverted', Status.UNAUTHORIZED],
          ['dropped', Status.GATEWAY_FAILURE],
        ],
        'executed; refused by the executor (its outcome); out of the gas the bundle gave it (not its outcome: it may be sent again)',
      )
      const receipt = await clients.publicClient.getTransactionReceipt({ hash: bundle.id as Hex })
      assert.equal(
        settled.reduce((sum, r) => sum + r!.gasUsed!, 0n),
        receipt.gasUsed,
        "each call's gas is its share: together, the bundle's",
      )
      // The one out of gas is free again, and its nonce unused on chain.
      assert.ok((await gateway.journal.claim({ ...members[2]!.record, intent: members[2]!.record.intent })).ok)
      assert.equal(
        await clients.publicClient.readContract({
          address: devnet.contracts.executor,
          abi: intentExecutorArtifact.abi,
          functionName: 'nonceUsed',
          args: [devnet.demo.sender, 7_100_003n],
        }),
        false,
      )
      assert.equal(
        await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionCount', [address, 'latest']),
        `0x${(txNonce + 1).toString(16)}`,
      )
    } finally {
      await gateway.close()
    }
  })
  it('re-prices a stuck bundle whole: every call of it a new attempt on the one re-priced bundle, journaled before its broadcast', async () => {
    const gateway = await startTestGateway({
      chains: [devnet.chain],
      receiptTimeoutMs: 300,
      reconcileIntervalMs: 300,
      maxFeePerGas: Number(parseGwei('10000')),
    })
    try {
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [false])
      const fees = await createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId).publicClient.estimateFeesPerGas()
      const { members, bundle, rawTransaction, txNonce } = await journaledBundle(gateway, 7_200_001n, fees)
      await rpc(devnet.anvil.rpcUrl, 'eth_sendRawTransaction', [rawTransaction])
      // Priced out: the base fee above its max fee, a block mined without it.
      await rpc(devnet.anvil.rpcUrl, 'anvil_setNextBlockBaseFeePerGas', [`0x${(fees.maxFeePerGas * 20n).toString(16)}`])
      await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
      const replaced = await eventually('every call on a re-priced bundle', 15_000, async () => {
        const attempts = await Promise.all(
          members.map((m) => gateway.journal.attempts('eip155:31337', m.record.intentHash)),
        )
        return attempts.every((a) => a.length === 2) ? attempts : undefined
      })
      const replacement = replaced[0]![1]!.transaction!.id
      assert.notEqual(replacement, bundle.id)
      for (const [i, a] of replaced.entries()) {
        assert.deepEqual(
          a.map((r) => [r.attempt, r.state, r.transaction?.id, r.transaction?.bundle?.index]),
          [
            [1, 'dropped', bundle.id, i],
            [2, 'pending', replacement, i],
          ],
          'each call: its first attempt replaced, its second on the one re-priced bundle, at its own index',
        )
      }
      const onNode = await eventually(
        'the re-priced bundle broadcast',
        15_000,
        async () => (await rpc(devnet.anvil.rpcUrl, 'eth_getTransactionByHash', [replacement])) ?? undefined,
      )
      assert.equal(BigInt(onNode.nonce), BigInt(txNonce), 'the same relayer nonce')
      assert.equal(onNode.input, parseTransaction(rawTransaction).data, 'the same run of the same calls')
      // Mined: each call settles from its own outcome in the re-priced bundle.
      const settled = await eventually('every call settled', 20_000, async () => {
        await rpc(devnet.anvil.rpcUrl, 'evm_mine', [])
        const records = await Promise.all(members.map((m) => gateway.journal.get(m.record.intentHash)))
        return records.every((r) => r && r.state !== 'pending') ? records : undefined
      })
      assert.deepEqual(
        settled.map((r) => [r!.attempt, r!.state, r!.status]),
        [
          [2, 'mined', Status.EXECUTED],
          [2, 'reverted', Status.UNAUTHORIZED],
          [2, 'dropped', Status.GATEWAY_FAILURE],
        ],
      )
      // Re-priced once, for its three calls; the calls found later in the same pass were not looked at again
      // (their old bundle would be broadcast again and refused, or re-priced a second time that no record names).
      assert.equal(
        gateway.logs.filter((l) => l.includes('stuck bundle re-priced as a new attempt of each of its executions'))
          .length,
        3,
      )
      // Priced out, the node refuses the bundle as it is once (its first call's look); the calls after it
      // in that pass are not looked at again once the bundle was re-priced for them.
      assert.equal(gateway.logs.filter((l) => l.includes('refuses it again as it is')).length, 1)
    } finally {
      await rpc(devnet.anvil.rpcUrl, 'evm_setAutomine', [true])
      await gateway.close()
    }
  })
})

const m0Bytes = (record: { transaction?: { bytes: string } | undefined } | undefined) => record?.transaction?.bytes
