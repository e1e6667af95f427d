// The Solana validate commands printed when the devnet starts, one per status, with the chain's
// CAIP-2 id.
import type { SolanaDevnet } from './startSolanaDevnet.ts'

export function solanaDemoCommands({ baseUrl, devnet }: { baseUrl: string; devnet: Pick<SolanaDevnet, 'chainId' | 'demo'> }): string {
  const { demo, chainId } = devnet
  const intent = (overrides: Partial<Record<string, string>>) =>
    JSON.stringify({ sender: demo.sender, target: demo.target, data: `${demo.allowedPrefix}40420f0000000000`, value: '1000', nonce: '0', validAfter: '0', validBefore: '0', policyId: demo.policies.narrow, ...overrides })
  const curl = (body: string, chain = chainId) => `curl -i -X POST ${baseUrl}/intents/validate -H 'Content-Type: application/json' -H 'X-Chain-Id: ${chain}' -d '${body}'`
  const lines: Array<[string, string]> = [
    ['200 SUCCESS (0x01): a valid intent', curl(intent({}))],
    ['403 DISALLOWED (0x10): a target the policy does not allow', curl(intent({ target: demo.otherTarget }))],
    ['402 INSUFFICIENT_FUNDS (0x54): value above the policy\'s per-transaction cap', curl(intent({ value: '200000000' }))],
    ['410 TOO_LATE (0x21): validBefore in the past', curl(intent({ validBefore: '1' }))],
    ['202 TOO_EARLY (0x20): validAfter in the future', curl(intent({ validAfter: '4102444800' }))],
    ['421 UNSUPPORTED_CHAIN (0xA2): a Solana chain this gateway does not serve', curl(intent({}), 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')],
  ]
  // The same layout as the EVM commands (demoCommands), so one reader (and the start-up test) takes both.
  return lines.map(([title, command]) => `# ${title}\n${command}\n`).join('\n')
}
