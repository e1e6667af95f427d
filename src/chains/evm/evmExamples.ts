// What the API's documentation shows of the EVM runtime (config/runtimeModule.ts' RuntimeExamples):
// requests that work against the anvil devnet `npm start` runs (the same deterministic deployment
// the tests start), so that "Try it out" on /docs sends a real body, and answers in its terms.
import type { RuntimeExamples } from '../../config/runtimeModule.ts'
import { eip712DomainTypes, intentDomain, intentTypes } from './intentTypedData.ts'

/** The devnet's chain (anvil's default id). */
const devnetChainId = 'eip155:31337'
/** The demo sender: anvil's public account #1. */
const sender = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
/** The devnet's executor (the first contract anvil's account #0 deploys). */
const executor = '0x5FbDB2315678afecb367f032d93F642f64180aa3'

const intent = {
  sender,
  target: '0xCE3478A9E0167a6Bc5716DC39DbbbfAc38F27623',
  data: '0x7cf5dab00000000000000000000000000000000000000000000000000000000000000001',
  value: '0',
  nonce: '20',
  validAfter: '0',
  validBefore: '0',
  policyId: '0x534d0a7530c885628b4cbb5636d9425be9af4779f4d91cd499797596c0cb0583',
}

export const evmExamples: RuntimeExamples = {
  // Base Sepolia: the public chain the descriptions and the price example name.
  chainId: 'eip155:84532',
  devnet: {
    chainId: devnetChainId,
    intent,
    // Signed by the demo sender; a second send of it replays its outcome.
    signedIntent: {
      ...intent,
      signature:
        '0x8c9f4cb54d2faccd9e4fee8ebd991e2c71c40791bf86f2f6e313619d0a3ebfef72de3218d23223bd7a08f31868275410e79b3c622d790910ff0ce07ea630292e1b',
    },
    signedIntentHash: '0x85f28f3e02cc07a2dd03d6f4999047554fd78e19c865a10f3e00bce334197b47',
    intentHash: '0x5e0b8d4a2e6e3a5c1b8f0d6a7c2e9b4f1a3d5c7e9b0f2a4c6e8d0b2f4a6c8e0d',
    transactionHash: '0x3f9a0c5e7b1d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a',
    // The EIP-712 typed data the sender signs, sent back as `signature`.
    signing: {
      domain: intentDomain({ chainId: 31337, executor }),
      types: { EIP712Domain: eip712DomainTypes, ...intentTypes },
      primaryType: 'Intent',
      message: {
        sender,
        target: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
        data: '0xd09de08a',
        value: '0',
        nonce: '0',
        validAfter: '0',
        validBefore: '0',
        policyId: '0x8f2a5c1e9b3d7f6a0c4e2b8d1f5a3c7e9b0d2f4a6c8e1b3d5f7a9c0e2b4d6f8a',
      },
    },
    // The sender's deposit at the executor is short: depositFor(sender) adds to it.
    fundingExtensions: {
      deposit: { chainId: devnetChainId, executor, function: 'depositFor(address)', sender },
    },
    // 0.01 USDC on Base Sepolia, x402's `exact` scheme.
    price: {
      scheme: 'exact',
      amount: '10000',
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
      maxTimeoutSeconds: 60,
      extra: { name: 'USDC', version: '2' },
    },
  },
}
