// The Solana devnet's paid-execute demo: sends a signed intent to POST /intents/execute without an
// API key and pays the gateway's x402 price with the unmodified @x402/fetch client and @x402/svm's
// exact scheme, as the devnet's demo payer (a public devnet key holding DemoDollar). The offer names
// Solana devnet's cluster id (x402's client pays on the public clusters only); the client's own
// `rpcUrl` option points it at the local chain instead of api.devnet.solana.com. Printed, ready to
// run, by `npm start`.
//   npx tsx scripts/payForSolanaExecute.ts <gateway url> <intent's CAIP-2 chain> <payment network> <mint> <Solana RPC url> '<signed intent JSON>'
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit'
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import { devnetSeed } from '../src/chains/solana/devnet/devnetSeed.ts'

const [url, chainId, network, mint, rpcUrl, intent] = process.argv.slice(2)
if (!url || !chainId?.startsWith('solana:') || !network?.startsWith('solana:') || !mint || !rpcUrl || !intent) {
  process.stderr.write(
    "usage: npx tsx scripts/payForSolanaExecute.ts <gateway url> <intent's chain, solana:…> <payment network, solana:…> <mint> <Solana RPC url> '<signed intent JSON>'\n",
  )
  process.exit(2)
}

const payer = await createKeyPairSignerFromPrivateKeyBytes(devnetSeed('payer'))
const client = new x402Client()
// The scheme's own configuration: where it reads the mint and the latest blockhash.
client.register(network as `${string}:${string}`, new ExactSvmScheme(payer, { rpcUrl }))
// The client pays only assets it knows unless told: the devnet's DemoDollar is allowed here.
client.setSpendControls({ allowedAssets: [{ network: network as `${string}:${string}`, asset: mint }] })
const pay = wrapFetchWithPayment(fetch, client)

const res = await pay(`${url.replace(/\/+$/, '')}/intents/execute`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-chain-id': chainId },
  body: intent,
})
const settlement = res.headers.get('payment-response')
process.stdout.write(
  `HTTP ${res.status} ${res.headers.get('x-erc1066-status')}\n${JSON.stringify(await res.json(), null, 2)}\n`,
)
if (settlement)
  process.stdout.write(`PAYMENT-RESPONSE: ${JSON.stringify(decodePaymentResponseHeader(settlement), null, 2)}\n`)
process.exit(res.ok ? 0 : 1)
