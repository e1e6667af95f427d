// The adapter contract's Sui world: the real Sui adapter and @mysten/sui gRPC client against the
// local stand-in (test/support/suiStandIn.ts). The stand-in runs no Move: what the module answers
// (validate's u8, execute's success) is scripted, so cases whose answer only Move could give
// (signature checks, deposits, used nonces) are skipped here with that reason. What the adapter
// decides itself (an unknown policy object, missing objects, what it signs and sends, the relayer's
// transaction signature, which the stand-in verifies as a node does) is tested for real.
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519'
import type { Hex } from 'viem'
import { createSuiAdapter } from '../../src/chains/sui/createSuiAdapter.ts'
import { encodeSuiIntent } from '../../src/chains/sui/encodeSuiIntent.ts'
import { createLogger } from '../../src/logging/createLogger.ts'
import type { Intent } from '../../src/ports/intent.ts'
import { Status } from '../../src/status/statusCodes.ts'
import type { AdapterWorld } from './adapterContract.ts'
import { startSuiStandIn } from './suiStandIn.ts'

const noMove = "the Sui stand-in runs no Move: the module's answer here would be scripted, not the chain's"

export async function makeSuiWorld(): Promise<AdapterWorld> {
  const relayerSeed = new Uint8Array(32).fill(3)
  const relayerKey = Ed25519Keypair.fromSecretKey(relayerSeed)
  const sender = Ed25519Keypair.fromSecretKey(new Uint8Array(32).fill(9))
  const relayer = relayerKey.toSuiAddress()
  const standIn = await startSuiStandIn({ relayer })
  const nothing = `0x${'ab'.repeat(32)}`
  const make = (missing = false) =>
    createSuiAdapter({
      chain: {
        chainId: 'sui:localnet',
        rpcUrl: standIn.url,
        packageId: missing ? nothing : standIn.packageId,
        hubId: standIn.hubId,
      },
      relayerSecretKey: relayerKey.getSecretKey(),
      rpcTimeoutMs: 2_000,
      logger: createLogger({ level: 'silent' }),
    })
  let nonce = 5_000n
  const intent = (overrides: Partial<Intent> = {}): Intent => ({
    sender: sender.toSuiAddress(),
    target: `0x${'22'.repeat(32)}`,
    data: '0x',
    value: 1_000n,
    nonce: nonce++,
    validAfter: 0n,
    validBefore: 0n,
    policyId: standIn.policyId as Hex,
    ...overrides,
  })
  return {
    adapter: make(),
    expected: {
      chainId: 'sui:localnet',
      chainType: 'sui',
      contracts: { validator: standIn.packageId, executor: standIn.packageId, registry: standIn.hubId },
      relayer,
    },
    secrets: [
      relayerKey.getSecretKey(),
      Buffer.from(relayerSeed).toString('hex'),
      Buffer.from(relayerSeed).toString('base64'),
    ],
    intent,
    // No object at this policy id: the adapter answers DISALLOWED itself, as EVM's validator answers an unknown policy.
    refused: { intent: () => intent({ policyId: `0x${'77'.repeat(32)}` }), status: Status.DISALLOWED },
    foreignAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    async sign(request) {
      const { signature } = await sender.signPersonalMessage(Buffer.from(String(request.message), 'base64'))
      return `0x${Buffer.from(signature, 'base64').toString('hex')}`
    },
    checkSigning(request, i) {
      if (request.scheme !== 'sui-personal-message') throw new Error(`scheme ${String(request.scheme)}`)
      if (request.message !== Buffer.from(encodeSuiIntent(i)).toString('base64'))
        throw new Error(`message ${String(request.message)}`)
    },
    // The Move module checks the sender's signature (aborting 0xE4 or 0xE5); the stand-in does not run it.
    stranger: { ok: false, skip: noMove },
    // Not the runtime's limit: the stand-in does not serve StateService/GetBalance (test/support/suiStandIn.ts).
    relayerBalance: { ok: false, skip: 'the Sui stand-in does not implement StateService/GetBalance' },
    validateSignature: { ok: false, skip: noMove },
    unsigned: { ok: false, skip: noMove },
    nonces: { ok: false, skip: noMove },
    unfund: { ok: false, skip: `${noMove} (deposits live in the Move Hub)` },
    // What the node was asked to execute: a Sui relayer has no account nonce to read.
    relayerState: async () => ({ executions: standIn.calls.filter((c) => c.method === 'ExecuteTransaction').length }),
    hasTransaction: async (id) => standIn.executed.has(id),
    makeAdapter: async ({ missing = false } = {}) =>
      missing ? { adapter: make(true), address: nothing } : { adapter: make() },
    stop: () => standIn.close(),
  }
}
