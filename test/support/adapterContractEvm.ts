// The adapter contract's EVM world: anvil with the reference contracts and demo data
// (startDevnet), the real EVM adapter with anvil #0 as its relayer key.
import { type Address, encodeFunctionData, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { saltOf } from '../../src/chains/derivePolicyId.ts'
import { createEvmAdapter } from '../../src/chains/evm/createEvmAdapter.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { resolveChains } from '../../src/chains/evm/discovery/resolveChains.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { SigningRequest } from '../../src/ports/chainAdapter.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { Status } from '../../src/status/statusCodes.ts'
import type { AdapterWorld } from './adapterContract.ts'

/** Signs EIP-712 typed data as the adapter's signingRequest gives it (JSON: integers as strings). */
async function signTypedJson(key: Hex, request: SigningRequest): Promise<Hex> {
  const { domain, types, primaryType, message } = request as {
    domain: Record<string, unknown>
    types: Record<string, Array<{ name: string; type: string }>>
    primaryType: string
    message: Record<string, unknown>
  }
  const { EIP712Domain: _, ...intentTypes } = types
  // uint fields arrive as decimal strings; viem signs them as bigints.
  const typed = Object.fromEntries(
    Object.entries(message).map(([k, v]) => [
      k,
      intentTypes[primaryType]!.find((f) => f.name === k)?.type.startsWith('uint') ? BigInt(v as string) : v,
    ]),
  )
  return privateKeyToAccount(key).signTypedData({
    domain: domain as never,
    types: intentTypes,
    primaryType,
    message: typed,
  })
}

export async function makeEvmWorld(): Promise<AdapterWorld> {
  const devnet = await startDevnet()
  try {
    const { publicClient, walletFor } = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
    const [resolved] = await resolveChains({
      chains: [devnet.chain],
      chainList: undefined,
      production: false,
      logger: createLogger({ level: 'silent' }),
    })
    const relayer = privateKeyToAccount(devnetAccounts.relayer).address
    const make = (missing = false) => {
      // An address with no code: anvil #9, never deployed to.
      const nothing = privateKeyToAccount('0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6').address
      return {
        adapter: createEvmAdapter({
          chain: missing ? { ...resolved!, validator: nothing } : resolved!,
          relayerPrivateKey: undefined,
          relayerPrivateKeys: [devnetAccounts.relayer],
          rpcTimeoutMs: 2_000,
          pollingIntervalMs: 20,
          logger: createLogger({ level: 'silent' }),
        }),
        address: nothing,
      }
    }
    let nonce = 5_000n
    const intent = (overrides: Partial<Intent> = {}): Intent => ({
      sender: devnet.demo.sender,
      target: devnet.demo.counter,
      data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
      value: 0n,
      nonce: nonce++,
      validAfter: 0n,
      validBefore: 0n,
      policyId: devnet.demo.policies.open,
      ...overrides,
    })
    const sender = walletFor(devnetAccounts.sender)
    const executor = devnet.contracts.executor
    const mined = async (hash: Promise<Hex>) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash })
      if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} reverted`)
    }
    return {
      adapter: make().adapter,
      expected: {
        chainId: devnet.chain.chainId,
        chainType: 'evm',
        contracts: {
          validator: devnet.contracts.validator,
          executor,
          registry: devnet.contracts.registry,
          accountDelegate: devnet.contracts.accountDelegate,
        },
        relayer,
      },
      secrets: [
        devnetAccounts.relayer.slice(2),
        Buffer.from(devnetAccounts.relayer.slice(2), 'hex').toString('base64'),
      ],
      intent,
      // A policy id nobody created: the validator finds no owner.
      refused: {
        intent: () => intent({ policyId: saltOf('adapter contract: no such policy') }),
        status: Status.DISALLOWED,
      },
      foreignAddress: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
      sign: (request) => signTypedJson(devnetAccounts.sender, request),
      checkSigning(request, i) {
        const r = request as {
          domain: { chainId: number; verifyingContract: string }
          primaryType: string
          message: Record<string, string>
        }
        if (r.primaryType !== 'Intent') throw new Error(`primaryType ${r.primaryType}`)
        if (r.domain.chainId !== devnet.anvil.chainId || r.domain.verifyingContract !== executor)
          throw new Error(`domain ${JSON.stringify(r.domain)}`)
        if (
          r.message.sender !== i.sender ||
          r.message.nonce !== i.nonce.toString() ||
          r.message.policyId !== i.policyId
        )
          throw new Error(`message ${JSON.stringify(r.message)}`)
      },
      stranger: { ok: true, value: (request) => signTypedJson(devnetAccounts.other, request) },
      relayerBalance: { ok: true, value: true },
      validateSignature: { ok: true, value: true },
      unsigned: { ok: true, value: true },
      nonces: { ok: true, value: true },
      unfund: {
        ok: true,
        async value() {
          const account = sender.account!
          const deposit = await publicClient.readContract({
            address: executor,
            abi: intentExecutorArtifact.abi,
            functionName: 'deposits',
            args: [account.address],
          })
          await mined(
            sender.writeContract({
              address: executor,
              abi: intentExecutorArtifact.abi,
              functionName: 'withdraw',
              args: [deposit],
              account,
              chain: sender.chain,
            }),
          )
          return {
            intent: intent({ value: 1n }),
            restore: () =>
              mined(
                sender.writeContract({
                  address: executor,
                  abi: intentExecutorArtifact.abi,
                  functionName: 'deposit',
                  value: deposit,
                  account,
                  chain: sender.chain,
                }),
              ),
          }
        },
      },
      relayerState: async () => ({
        nonce: await publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' }),
        balance: await publicClient.getBalance({ address: relayer, blockTag: 'pending' }),
      }),
      async hasTransaction(id) {
        // The node's pool included: a pending transaction counts as broadcast.
        return (await publicClient.request({ method: 'eth_getTransactionByHash', params: [id as Hex] })) !== null
      },
      makeAdapter: async ({ missing = false } = {}) => make(missing),
      stop: () => devnet.stop(),
    } satisfies AdapterWorld & { expected: { relayer: Address } }
  } catch (err) {
    await devnet.stop()
    throw err
  }
}
