// An agent that pays the gateway's x402 price itself, with no API key: it signs its intent as the
// sender and pays with an EIP-3009 token as the payer, through the typed client (which uses the
// unmodified @x402/fetch). Against the embedded devnet, where execute costs 0.01 DemoDollar:
//
//   INTENT_SIGNER_PRIVATE_KEY=<the demo sender's key> INTENT_PAYER_PRIVATE_KEY=<the demo payer's key> \
//   INTENT_PAY_ASSET=<DemoDollar's address> INTENT_POLICY_ID=<the open policy> INTENT_TARGET=<the demo counter> \
//   npx tsx examples/paidAgent.ts
//
// The devnet's start-up output prints them all (the keys are anvil's public accounts #1 and #4).
// INTENT_MAX_PRICE caps what one request may cost, in the token's smallest unit (default 0.1 DUSD).
// Exit code 0 when the intent ran and was paid, 1 otherwise.
import { createGatewayClient, type IntentInput } from '@intent-gateway/client'
import { encodeFunctionData, type Hex, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback
  if (value === undefined) throw new Error(`set ${name}`)
  return value
}

const sender = privateKeyToAccount(env('INTENT_SIGNER_PRIVATE_KEY') as Hex)
const payer = privateKeyToAccount(env('INTENT_PAYER_PRIVATE_KEY') as Hex)
const network = env('INTENT_PAY_NETWORK', 'eip155:31337') as `${string}:${string}`
const client = createGatewayClient({
  url: env('INTENT_GATEWAY_URL', 'http://127.0.0.1:3000'),
  account: sender,
  // x402 pays only the assets named here, and at most this much per request.
  payment: {
    signer: payer,
    spendControls: {
      allowedAssets: [
        { network, asset: env('INTENT_PAY_ASSET'), maxAmountPerPayment: env('INTENT_MAX_PRICE', '100000') },
      ],
    },
  },
})

const intent: IntentInput = {
  sender: sender.address,
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

// Signs, sends, meets the 402 (0x55), pays it, and sends again with PAYMENT-SIGNATURE.
const result = await client.execute(intent)
console.log(`execute: ${result.status} ${result.statusName} (${result.action}) intent ${result.intentHash}`)
if (result.payment) console.log(`paid: ${JSON.stringify(result.payment)}`)
if (result.paymentError) console.log(`not paid: ${result.paymentError}`)
process.exit(result.ok && result.payment ? 0 : 1)
