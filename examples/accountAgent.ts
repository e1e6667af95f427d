// An agent that acts from its own account (account mode, EIP-7702): it sends 1 DemoDollar of its
// own to a recipient, then approves the demo pool and sells 5 DemoDollar for ETH in one batch,
// with `msg.sender` at the token and the pool equal to its own address, no deposit anywhere and
// the gas paid by the gateway's relayer. Its first intent carries the EIP-7702 authorization the
// client signs when GET /accounts says the account is not delegated yet. Against the embedded
// devnet (`npx intent-gateway start`):
//
//   INTENT_GATEWAY_API_KEY=devnet-demo-api-key-not-a-secret \
//   INTENT_SIGNER_PRIVATE_KEY=<the demo agent's key> INTENT_POLICY_ID=<its own policy> \
//   INTENT_DOLLAR=<DemoDollar> INTENT_SWAP=<the demo pool> npx tsx examples/accountAgent.ts
//
// The devnet's start-up output prints the demo agent (anvil's public account #7), its policies,
// DemoDollar and the demo pool. `transfer` or `swap` as the argument runs one step only. Exit code
// 0 when every step ran, 1 otherwise.
import { type AnyIntentInput, createGatewayClient, type GatewayResult } from '@intent-gateway/client'
import { encodeFunctionData, type Hex, parseAbi, parseUnits } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback
  if (value === undefined) throw new Error(`set ${name}`)
  return value
}

const erc20 = parseAbi([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
])
const pool = parseAbi(['function sellDollars(uint256 dollars) returns (uint256 weiOut)'])
const step = process.argv[2]
if (step !== undefined && step !== 'transfer' && step !== 'swap')
  throw new Error('the argument is transfer, swap or nothing (both)')

const account = privateKeyToAccount(env('INTENT_SIGNER_PRIVATE_KEY') as Hex)
// mode 'account': every intent runs from the sender's own address; the client signs it under
// the account's own EIP-712 domain and, on first use, the account's authorization.
const client = createGatewayClient({
  url: env('INTENT_GATEWAY_URL', 'http://127.0.0.1:3000'),
  apiKey: process.env.INTENT_GATEWAY_API_KEY,
  account,
  mode: 'account',
})
const dollar = env('INTENT_DOLLAR')
const swap = env('INTENT_SWAP')
const policyId = env('INTENT_POLICY_ID')
let nonce = BigInt(env('INTENT_NONCE', String(Date.now())))

async function describeAccount() {
  const state = await client.account(account.address)
  console.log(
    `account ${state.address}: ${state.delegated ? `delegated to ${state.delegatedTo}` : `not delegated (code ${state.code})`}, nonce ${state.nonce}`,
  )
  return state
}

async function run(label: string, intent: AnyIntentInput): Promise<boolean> {
  let result: GatewayResult = await client.execute(intent)
  if (result.action === 'retry' && result.location) result = await client.waitForIntent(result)
  console.log(`${label}: ${result.status} ${result.statusName} (${result.action}) intent ${result.intentHash}`)
  if (result.transactionHash) console.log(`transaction ${result.transactionHash} in block ${result.blockNumber}`)
  if (!result.ok) console.log(result.detail ?? result.description)
  return result.ok
}

const before = await describeAccount()
let ok = true

if (ok && step !== 'swap') {
  // 1 DemoDollar (6 decimals) of the agent's own, to the recipient.
  const recipient = env('INTENT_RECIPIENT', '0x000000000000000000000000000000000000dEaD')
  ok = await run('transfer', {
    sender: account.address,
    target: dollar,
    data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [recipient as Hex, parseUnits('1', 6)] }),
    nonce: nonce++,
    policyId,
  })
}

if (ok && step !== 'transfer') {
  // approve + swap, one intent: both calls run in order from the agent's address, or neither does.
  const dollars = parseUnits('5', 6)
  ok = await run('approve + swap', {
    sender: account.address,
    calls: [
      {
        target: dollar,
        data: encodeFunctionData({ abi: erc20, functionName: 'approve', args: [swap as Hex, dollars] }),
      },
      { target: swap, data: encodeFunctionData({ abi: pool, functionName: 'sellDollars', args: [dollars] }) },
    ],
    nonce: nonce++,
    policyId,
  })
}

const after = await describeAccount()
if (!before.delegated && after.delegated)
  console.log('delegated on first use: the first intent carried the authorization the client signed')
process.exit(ok ? 0 : 1)
