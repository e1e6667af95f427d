// The deterministic deployment proxy (github.com/Arachnid/deterministic-deployment-proxy): a
// contract at the same address on most EVM chains (anvil has it from genesis) that CREATE2s
// `initCode` with the first 32 bytes of its calldata as the salt. Deploying through it makes an
// address a function of the code and the salt alone, so a second run finds what the first deployed.
import type { Address } from 'viem'

export const deterministicDeployer = {
  address: '0x4e59b44847b379578588920ca78fbf26c0b4956c' as Address,
  /** What to do on a chain without it: its pre-signed deployment, whose signer must be funded first. */
  howToDeploy:
    'Most chains have it (OP Stack chains as a preinstall). On one that does not, send 0.01 ETH to its one-time signer 0x3fab184622dc19b6109349b94811493bf2a45362 ' +
    'and broadcast the pre-signed transaction published at https://github.com/Arachnid/deterministic-deployment-proxy (eth_sendRawTransaction; ' +
    "it has no chain id, so the node must accept pre-EIP-155 transactions: geth --rpc.allow-unprotected-txs), or ask the chain's operators to add it.",
} as const
