// The demo agent's account-mode intent as an HTTP body: an SPL Token `Transfer` of `amount` (in
// the mint's smallest unit, default 1 DemoDollar) from its own token account to the recipient's,
// the agent the authority. What the devnet's printed commands send, and the tests with them.
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import type { SolanaDemoAgent } from './seedDemoAgent.ts'

export function agentTransferBody(
  agent: SolanaDemoAgent,
  { nonce, amount = 1_000_000n }: { nonce: bigint | number; amount?: bigint },
) {
  const data = Buffer.alloc(9)
  data.writeUInt8(3)
  data.writeBigUInt64LE(amount, 1)
  return {
    sender: agent.address,
    target: TOKEN_PROGRAM_ADDRESS as string,
    data: `0x${data.toString('hex')}` as `0x${string}`,
    value: '0',
    nonce: nonce.toString(),
    validAfter: '0',
    validBefore: '0',
    policyId: agent.policyId,
    accounts: [
      { address: agent.tokenAccount, signer: false, writable: true },
      { address: agent.recipientTokenAccount, signer: false, writable: true },
      { address: agent.address, signer: true, writable: false },
    ],
    mode: 'account' as const,
  }
}
