// Account mode on the devnet (issue 46): a demo agent with no vault, whose own wallet holds
// DemoDollar in its own associated token account and a little SOL (the nonce records' rent: the
// relayer pays only fees), with a policy that allows SPL Token transfers only (tag 3, `Transfer`);
// the recipient's DemoDollar account exists. Its key is derived from a public label: devnet only.
import { type Address, type Instruction, type KeyPairSigner, lamports, type Rpc, type SolanaRpcApi } from '@solana/kit'
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getMintToCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'
import { saltOf } from '../../derivePolicyId.ts'
import type { IntentGatewayProgram } from '../intentGatewayProgram.ts'

export type SolanaDemoAgent = {
  /** The agent's own key (no vault): it signs account-mode transactions itself. */
  address: Address
  /** Its 32-byte seed: a public devnet key, so the printed commands can sign. */
  secretKey: Uint8Array
  /** Its own DemoDollar account (associated token account), holding 1000 DUSD. */
  tokenAccount: Address
  /** Who receives its transfers, and that owner's DemoDollar account. */
  recipient: Address
  recipientTokenAccount: Address
  /** The policy allowing SPL Token `Transfer` (data prefix 0x03) and nothing else. */
  policyId: `0x${string}`
}

export async function seedDemoAgent({
  rpc,
  send,
  devKey,
  devSeed,
  funder,
  program,
  mint,
  recipient,
}: {
  rpc: Rpc<SolanaRpcApi>
  send(instructions: Instruction[], payer: KeyPairSigner): Promise<string>
  devKey(label: string): Promise<KeyPairSigner>
  devSeed(label: string): Uint8Array
  funder: KeyPairSigner
  program: IntentGatewayProgram
  mint: Address
  recipient: Address
}): Promise<SolanaDemoAgent> {
  const [agent, mintAuthority] = await Promise.all([devKey('agent'), devKey('demo dollar authority')])
  // 0.05 SOL: its policy's rent and the nonce records' (about 0.0012 SOL each), nothing for fees.
  await rpc.requestAirdrop(agent.address, lamports(50_000_000n)).send()
  const [tokenAccount] = await findAssociatedTokenPda({
    mint,
    owner: agent.address,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  })
  const [recipientTokenAccount] = await findAssociatedTokenPda({
    mint,
    owner: recipient,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  })
  await send(
    [
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: funder, mint, owner: agent.address }),
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: funder, mint, owner: recipient }),
      getMintToCheckedInstruction({ mint, token: tokenAccount, mintAuthority, amount: 1000n * 10n ** 6n, decimals: 6 }),
    ],
    funder,
  )
  const policyId = saltOf('solana-agent-tokens')
  // The funder pays the policy's fee; the agent signs (and pays its rent) as its owner.
  await send(
    [
      await program.setPolicy(agent, {
        policyId,
        maxValuePerTx: 0n,
        maxAggregateValue: 0n,
        allowedTargets: [TOKEN_PROGRAM_ADDRESS],
        allowedPrefixes: ['0x03'],
      }),
    ],
    funder,
  )
  return {
    address: agent.address,
    secretKey: devSeed('agent'),
    tokenAccount,
    recipient,
    recipientTokenAccount,
    policyId,
  }
}
