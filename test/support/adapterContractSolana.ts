// The adapter contract's Solana world: LiteSVM behind its JSON-RPC front, the committed program
// deployed through Loader V3 with its config and demo policies (startSolanaDevnet), the real
// Solana adapter with the devnet's relayer key.
import { type Address, getBase58Decoder, signature as toSignature } from '@solana/kit'
import type { Hex } from 'viem'
import { saltOf } from '../../src/chains/derivePolicyId.ts'
import { ed25519Seed } from '../../src/chains/solana/ed25519Seed.ts'
import type { SigningRequest } from '../../src/ports/chainAdapter.ts'
import { Status } from '../../src/status/statusCodes.ts'
import type { AdapterWorld } from './adapterContract.ts'
import { demoIntents, solanaAdapterFor, startSolanaDevnet } from './solanaGateway.ts'

const signRequest = (seed: Uint8Array, request: SigningRequest): Hex => {
  const message = Buffer.from(String(request.message).slice(2), 'hex')
  return `0x${Buffer.from(ed25519Seed.sign(seed, message)).toString('hex')}`
}

export async function makeSolanaWorld(): Promise<AdapterWorld> {
  const devnet = await startSolanaDevnet()
  try {
    const relayer = getBase58Decoder().decode(ed25519Seed.publicKey(devnet.relayerSecretKey)) as Address
    // A key with no account behind it: no program there.
    const nothing = getBase58Decoder().decode(ed25519Seed.publicKey(new Uint8Array(32).fill(77))) as Address
    const { intent } = demoIntents(() => devnet, 5_000n)
    const seed = devnet.relayerSecretKey
    const balance = async (address: Address) =>
      (await devnet.rpc.getBalance(address, { commitment: 'confirmed' }).send()).value
    return {
      adapter: solanaAdapterFor(devnet, { relayer: true }),
      expected: {
        chainId: devnet.chainId,
        chainType: 'solana',
        contracts: { validator: devnet.programId, executor: devnet.programId, registry: devnet.config },
        relayer,
      },
      secrets: [
        Buffer.from(seed).toString('hex'),
        Buffer.from(seed).toString('base64'),
        getBase58Decoder().decode(seed),
        getBase58Decoder().decode(Buffer.concat([seed, ed25519Seed.publicKey(seed)])),
        JSON.stringify([...seed]),
      ],
      intent,
      // A policy id the sender never set: the program finds no policy account.
      refused: {
        intent: () => intent({ policyId: saltOf('adapter contract: no such policy') }),
        status: Status.DISALLOWED,
      },
      foreignAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      sign: async (request) => signRequest(devnet.demo.senderSecretKey, request),
      checkSigning(request, i) {
        if (request.scheme !== 'ed25519') throw new Error(`scheme ${String(request.scheme)}`)
        // The message is the intent hash, bound to this program and config account.
        if (request.message !== solanaAdapterFor(devnet).runtime.hashIntent(i))
          throw new Error(`message ${String(request.message)}`)
      },
      stranger: { ok: true, value: async (request) => signRequest(new Uint8Array(32).fill(42), request) },
      relayerBalance: { ok: true, value: true },
      validateSignature: { ok: true, value: true },
      unsigned: { ok: true, value: true },
      nonces: { ok: true, value: true },
      unfund: {
        ok: true,
        async value() {
          const vault = await devnet.program.vaultAddress(devnet.accounts.sender.address)
          const rent = await devnet.rpc.getMinimumBalanceForRentExemption(48n).send()
          const deposit = (await balance(vault)) - rent
          await devnet.send([await devnet.program.withdraw(devnet.accounts.sender, deposit)], devnet.accounts.sender)
          return {
            intent: intent(),
            async restore() {
              // LiteSVM keeps one blockhash until told: the seed's deposit of the same amount had these very bytes.
              await devnet.control('litesvm_expireBlockhash', [])
              await devnet.send([await devnet.program.deposit(devnet.accounts.sender, deposit)], devnet.accounts.sender)
            },
          }
        },
      },
      // Every transaction the relayer signs pays a fee from its balance.
      relayerState: async () => ({ balance: await balance(relayer) }),
      async hasTransaction(id) {
        const { value } = await devnet.rpc
          .getSignatureStatuses([toSignature(id)], { searchTransactionHistory: true })
          .send()
        return value[0] !== null
      },
      makeAdapter: async ({ missing = false } = {}) =>
        missing
          ? { adapter: solanaAdapterFor(devnet, { relayer: true, programId: nothing }), address: nothing }
          : { adapter: solanaAdapterFor(devnet, { relayer: true }) },
      stop: () => devnet.stop(),
    }
  } catch (err) {
    await devnet.stop()
    throw err
  }
}
