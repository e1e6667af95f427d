// A minimal agent: validate an intent, sign it, execute it, and wait for the receipt, with the
// typed client. Against the embedded devnet (`npx intent-gateway start`):
//
//   INTENT_GATEWAY_API_KEY=devnet-demo-api-key-not-a-secret \
//   INTENT_SIGNER_PRIVATE_KEY=<the demo sender's key> INTENT_POLICY_ID=<its open policy> \
//   INTENT_TARGET=<the demo counter> npx tsx examples/agent.ts
//
// The devnet prices execute (x402) and does not charge a request with its API key, printed at
// start-up (without it, execute answers 402 and this agent, which does not pay, stops: see
// paidAgent.ts for one that pays). The start-up output also prints the sender, its policies and
// the counter; the sender's key is anvil's public account #1. Exit code 0 when the intent ran, 1
// otherwise.
import { createGatewayClient, type IntentInput } from '@intent-gateway/client'
import { encodeFunctionData, type Hex, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback
  if (value === undefined) throw new Error(`set ${name}`)
  return value
}

const account = privateKeyToAccount(env('INTENT_SIGNER_PRIVATE_KEY') as Hex)
const client = createGatewayClient({
  url: env('INTENT_GATEWAY_URL', 'http://127.0.0.1:3000'),
  apiKey: process.env.INTENT_GATEWAY_API_KEY,
  account,
})

// The demo counter's increment(1), for the sender, under its policy; a fresh nonce each run.
const intent: IntentInput = {
  sender: account.address,
  target: env('INTENT_TARGET'),
  data: encodeFunctionData({
    abi: parseAbi(['function increment(uint256 by)']),
    functionName: 'increment',
    args: [1n],
  }),
  value: 0n,
  nonce: BigInt(env('INTENT_NONCE', String(Date.now()))),
  policyId: env('INTENT_POLICY_ID'),
}

// 1. Would the chain let it run?
const validated = await client.validate(intent)
console.log(`validate: ${validated.status} ${validated.statusName} (${validated.action})`)
if (!validated.ok) {
  console.log(validated.detail ?? validated.description)
  process.exit(1)
}

// 2. Sign it for the chain the gateway serves (EIP-712, domain from GET /chains/{chainId}).
const signature = await client.signIntent(intent)
console.log(`signed by ${account.address}`)

// 3. Execute, and 4. wait while the gateway has sent it but not seen the receipt.
let result = await client.execute({ ...intent, signature })
if (result.action === 'retry' && result.location) {
  result = await client.waitForIntent(result, {
    onProgress: ({ elapsedMs, result: r }) => console.log(`waiting for the receipt (${elapsedMs} ms, ${r.statusName})`),
  })
}
console.log(`execute: ${result.status} ${result.statusName} (${result.action}) intent ${result.intentHash}`)
if (result.transactionHash) console.log(`transaction ${result.transactionHash} in block ${result.blockNumber}`)
process.exit(result.ok ? 0 : 1)
