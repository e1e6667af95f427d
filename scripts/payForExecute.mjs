// The devnet's paid-execute demo: sends a signed intent to POST /intents/execute without an API
// key and pays the gateway's x402 price with the unmodified @x402/fetch client, as the demo payer
// (anvil #4, a public devnet key). Printed, ready to run, by `npm start`.
// Plain JavaScript run by `node` itself: no TypeScript step, so it starts in well under a second
// where `npx tsx` took most of 15 s.
//   node scripts/payForExecute.mjs <gateway url> <CAIP-2 chain> <token address> '<signed intent JSON>'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { privateKeyToAccount } from 'viem/accounts'

/** anvil's account #4, the devnet's demo payer (src/chains/evm/devnet/devnetAccounts.ts `payer`; a test keeps them equal). */
const devnetPayerKey = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a'

const [url, network, asset, intent] = process.argv.slice(2)
if (!url || !network?.includes(':') || !asset || !intent) {
  process.stderr.write(
    "usage: node scripts/payForExecute.mjs <gateway url> <CAIP-2 chain, e.g. eip155:31337> <token address> '<signed intent JSON>'\n",
  )
  process.exit(2)
}

const client = new x402Client()
registerExactEvmScheme(client, { signer: privateKeyToAccount(devnetPayerKey) })
// The client pays only assets it knows unless told: the devnet's token is allowed here.
client.setSpendControls({ allowedAssets: [{ network, asset }] })
const pay = wrapFetchWithPayment(fetch, client)

const res = await pay(`${url.replace(/\/+$/, '')}/intents/execute`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-chain-id': network },
  body: intent,
})
const settlement = res.headers.get('payment-response')
process.stdout.write(
  `HTTP ${res.status} ${res.headers.get('x-erc1066-status')}\n${JSON.stringify(await res.json(), null, 2)}\n`,
)
if (settlement)
  process.stdout.write(`PAYMENT-RESPONSE: ${JSON.stringify(decodePaymentResponseHeader(settlement), null, 2)}\n`)
process.exit(res.ok ? 0 : 1)
