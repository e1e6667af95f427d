// x402 on the Solana devnet: DemoDollar (DUSD, 6 decimals), an SPL Token mint made through the
// real Token program LiteSVM loads; a demo payer holding 1000 DUSD (and no SOL: the facilitator
// pays the fees of the transfers it co-signs); the treasury's token account, which x402's client
// pays into and does not create; and the facilitator's key, funded with SOL for those fees.
// Every key is derived from a public label: devnet only.
import { type Address, type Instruction, type KeyPairSigner, lamports, type Rpc, type SolanaRpcApi } from '@solana/kit'
import { getCreateAccountInstruction } from '@solana-program/system'
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'

export type SolanaDemoDollar = {
  /** The DemoDollar mint. */
  mint: Address
  decimals: 6
  /** The demo payer (holds 1000 DUSD) and its 32-byte seed: a public devnet key, so the demo can pay. */
  payer: Address
  payerSecretKey: Uint8Array
  /** Who execute's price is paid to (its DUSD token account exists). */
  payTo: Address
  /** The in-process facilitator's seed (funded with 100 SOL): it co-signs and pays the settlement fees. */
  facilitatorSecretKey: Uint8Array
  facilitator: Address
  /** The price of one execute: 0.01 DUSD. */
  amount: bigint
  /** The payer's token balance, in the mint's smallest unit. */
  balanceOf(owner: Address): Promise<bigint>
}

export async function seedDemoDollar({
  rpc,
  send,
  devKey,
  devSeed,
  funder,
}: {
  rpc: Rpc<SolanaRpcApi>
  send(instructions: Instruction[], payer: KeyPairSigner): Promise<string>
  devKey(label: string): Promise<KeyPairSigner>
  devSeed(label: string): Uint8Array
  funder: KeyPairSigner
}): Promise<SolanaDemoDollar> {
  const [mint, mintAuthority, payer, treasury, facilitator] = await Promise.all([
    devKey('demo dollar mint'),
    devKey('demo dollar authority'),
    devKey('payer'),
    devKey('treasury'),
    devKey('facilitator'),
  ])
  await rpc.requestAirdrop(facilitator.address, lamports(100_000_000_000n)).send()
  const space = BigInt(getMintSize())
  const rent = await rpc.getMinimumBalanceForRentExemption(space).send()
  const decimals = 6
  await send(
    [
      getCreateAccountInstruction({
        payer: funder,
        newAccount: mint,
        lamports: rent,
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: mintAuthority.address }),
    ],
    funder,
  )
  const [payerAccount] = await findAssociatedTokenPda({
    mint: mint.address,
    owner: payer.address,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  })
  await send(
    [
      await getCreateAssociatedTokenIdempotentInstructionAsync({
        payer: funder,
        mint: mint.address,
        owner: payer.address,
      }),
      await getCreateAssociatedTokenIdempotentInstructionAsync({
        payer: funder,
        mint: mint.address,
        owner: treasury.address,
      }),
      getMintToCheckedInstruction({
        mint: mint.address,
        token: payerAccount,
        mintAuthority,
        amount: 1000n * 10n ** BigInt(decimals),
        decimals,
      }),
    ],
    funder,
  )
  return {
    mint: mint.address,
    decimals,
    payer: payer.address,
    payerSecretKey: devSeed('payer'),
    payTo: treasury.address,
    facilitatorSecretKey: devSeed('facilitator'),
    facilitator: facilitator.address,
    amount: 10_000n,
    async balanceOf(owner) {
      const [account] = await findAssociatedTokenPda({ mint: mint.address, owner, tokenProgram: TOKEN_PROGRAM_ADDRESS })
      const info = await rpc.getAccountInfo(account, { encoding: 'base64' }).send()
      if (!info.value) return 0n
      // An SPL token account: mint (32), owner (32), amount (u64 little-endian).
      return Buffer.from(info.value.data[0], 'base64').readBigUInt64LE(64)
    },
  }
}
