// anvil's first funded accounts. These keys are public: devnet only, refused in production.
import type { Hex } from 'viem'

export const devnetAccounts = {
  /** Relays executions (anvil #0). It owns nothing: the contracts have no owner. */
  relayer: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as Hex,
  /** The agent's account: owns the demo policies and funds its intents by deposit. */
  sender: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as Hex,
  /** A second agent, for tests that need someone who is not the policy owner. */
  other: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a' as Hex,
  /** Deploys the contracts (anvil #3): never the relayer, so no relayer key ever deployed them. */
  deployer: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6' as Hex,
  /** The demo agent that pays for requests with x402 (anvil #4): holds DemoDollar, signs EIP-3009 authorizations. */
  payer: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a' as Hex,
  /** Submits x402 settlements (anvil #5): its own key, never the relayer's, whose nonces belong to the journal. */
  facilitator: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba' as Hex,
  /** Receives the gateway's x402 payments (anvil #6). */
  treasury: '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e' as Hex,
  /** The demo agent of account mode (anvil #7): holds DemoDollar in its own EOA, no deposit, and delegates to IntentAccount on first use. */
  agent: '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356' as Hex,
  /** A session key (anvil #8): a delegate of the agent's narrow session policy, never the agent's own key. */
  sessionKey: '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97' as Hex,
}
