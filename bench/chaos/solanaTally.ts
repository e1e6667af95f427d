// What the Solana chain says of a phase's intents: each one's nonce record (the program writes it in
// the execution, with the intent's hash) and what the demo recipient received (each execution
// moves the intent's value to it once). Exactly once: every record there with its intent's hash,
// and the recipient up by exactly the value times the intents.
import type { Address } from '@solana/kit'
import type { SolanaDevnet } from '../../src/chains/solana/devnet/startSolanaDevnet.ts'
import type { Sent } from './campaign.ts'

export type SolanaSent = Sent & { nonce: bigint }

export async function solanaTally(
  devnet: SolanaDevnet,
  sent: SolanaSent[],
): Promise<{ executed: SolanaSent[]; missing: SolanaSent[] }> {
  const executed: SolanaSent[] = []
  const missing: SolanaSent[] = []
  for (const s of sent) {
    const address = await devnet.program.nonceAddress(devnet.demo.sender as Address, s.nonce)
    const { value } = await devnet.rpc.getAccountInfo(address, { encoding: 'base64' }).send()
    const record = value ? devnet.program.decodeNonceRecord(Buffer.from(value.data[0], 'base64')) : undefined
    if (record?.state === 'executed' && record.intentHash === s.hash) executed.push(s)
    else missing.push(s)
  }
  return { executed, missing }
}
