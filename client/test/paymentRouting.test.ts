// Which 402s go to the x402 payer. The gateway prices nothing yet (x402 payments are being built),
// so this is a unit test of the routing against a small local HTTP server speaking the x402 v2
// wire format of api-contract.md §10: a 0x55 price is paid through @x402/fetch (one unpaid and one
// paid request, the same intent both times), within the spend controls; a 0x54 is never paid.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { resolve } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http'
import { privateKeyToAccount } from 'viem/accounts'
import { createGatewayClient } from '../src/index.ts'

const payer = privateKeyToAccount('0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a')
const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const payTo = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
const network = 'eip155:31337'
const intentHash = `0x${'ab'.repeat(32)}`
const intent = {
  sender: payer.address,
  target: payTo,
  data: '0x',
  value: '0',
  nonce: '1',
  policyId: `0x${'11'.repeat(32)}`,
}

type Seen = { signature: string | undefined; body: string }

describe('x402 routing: a 0x55 price is paid through @x402/fetch, a 0x54 shortfall never', () => {
  let server: Server
  let url: string
  let seen: Seen[] = []
  /** What the server answers an unpaid request with: the gateway's price, or the chain's shortfall. */
  let unpaidCode: '0x55' | '0x54' = '0x55'

  const headers = (code: string, httpStatus: number) => ({
    'content-type': httpStatus >= 400 ? 'application/problem+json' : 'application/json',
    'x-erc1066-status': code,
    'x-status-code': code,
    'x-intent-hash': intentHash,
    'x-chain-id': network,
    'x-chain-type': 'evm',
    'x-payment-required': String(httpStatus === 402),
  })

  before(async () => {
    server = createServer(async (req: IncomingMessage, res) => {
      let body = ''
      for await (const chunk of req) body += chunk
      const signature = req.headers['payment-signature'] as string | undefined
      seen.push({ signature, body })
      if (!signature) {
        const paymentRequired =
          unpaidCode === '0x55'
            ? {
                x402Version: 2,
                error: 'payment required',
                resource: { url: `${url}/intents/execute`, description: 'execute', mimeType: 'application/json' },
                accepts: [
                  {
                    scheme: 'exact',
                    network,
                    asset: token,
                    amount: '10000',
                    payTo,
                    maxTimeoutSeconds: 60,
                    extra: { name: 'Test USD', version: '1' },
                  },
                ],
              }
            : {
                x402Version: 2,
                error: 'deposit short',
                resource: { url: `${url}/intents/execute` },
                accepts: [],
                extensions: {
                  deposit: {
                    chainId: network,
                    executor: payTo,
                    function: 'depositFor(address)',
                    sender: payer.address,
                    amount: '5000',
                  },
                },
              }
        res.writeHead(402, {
          ...headers(unpaidCode, 402),
          'payment-required': encodePaymentRequiredHeader(paymentRequired as never),
        })
        res.end(
          JSON.stringify({
            type: 'about:blank',
            status: 402,
            erc1066Status: unpaidCode,
            statusName: unpaidCode === '0x55' ? 'FUNDS_REQUESTED' : 'INSUFFICIENT_FUNDS',
            intentHash,
            paymentRequired,
          }),
        )
        return
      }
      const payment = decodePaymentSignatureHeader(signature)
      const settlement = {
        success: true,
        transaction: `0x${'cd'.repeat(32)}`,
        network,
        payer: (payment.payload as { authorization: { from: string } }).authorization.from,
      }
      res.writeHead(200, {
        ...headers('0x11', 200),
        'payment-response': encodePaymentResponseHeader(settlement as never),
      })
      res.end(
        JSON.stringify({
          status: '0x11',
          erc1066Status: '0x11',
          statusName: 'EXECUTED',
          intentHash,
          chainId: network,
          chainType: 'evm',
          state: 'mined',
          transactionHash: `0x${'ef'.repeat(32)}`,
          blockNumber: '9',
        }),
      )
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  })
  after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  beforeEach(() => {
    seen = []
    unpaidCode = '0x55'
  })

  const allowToken = (maxAmountPerPayment: string) => ({
    allowedAssets: [{ network: network as `${string}:${string}`, asset: token, maxAmountPerPayment }],
  })

  it('pays a 0x55 price with an EIP-3009 authorization for exactly the price and returns the paid answer with the settlement', async () => {
    const client = createGatewayClient({ url, payment: { signer: payer, spendControls: allowToken('10000') } })
    const result = await client.execute(intent)
    assert.equal(result.action, 'done')
    assert.equal(result.status, '0x11')
    assert.deepEqual(result.payment, {
      success: true,
      transaction: `0x${'cd'.repeat(32)}`,
      network,
      payer: payer.address,
    })
    assert.equal(seen.length, 2, 'one unpaid request, then one paid: the 402 is not fetched twice')
    assert.equal(seen[0]!.signature, undefined)
    assert.equal(seen[1]!.body, seen[0]!.body, 'the paid request carries the same intent')
    const payment = decodePaymentSignatureHeader(seen[1]!.signature!)
    assert.equal(payment.x402Version, 2)
    assert.equal(payment.accepted.payTo, payTo)
    assert.equal(payment.accepted.amount, '10000')
    const authorization = (payment.payload as { authorization: Record<string, string> }).authorization
    assert.equal(authorization.from, payer.address)
    assert.equal(authorization.to, payTo)
    assert.equal(authorization.value, '10000')
  })

  it('does not pay a price above the spend limit: action pay, the reason, nothing signed', async () => {
    const client = createGatewayClient({ url, payment: { signer: payer, spendControls: allowToken('9999') } })
    const result = await client.execute(intent)
    assert.equal(result.action, 'pay')
    assert.equal(result.httpStatus, 402)
    assert.equal(result.status, '0x55')
    assert.match(
      result.paymentError ?? '',
      /Failed to create payment payload: .*rejected by spendControls.allowedAssets maxAmountPerPayment/,
    )
    assert.equal(seen.length, 1)
  })

  it("does not pay a token it was not told to (x402's default spend controls)", async () => {
    const result = await createGatewayClient({ url, payment: { signer: payer } }).validate(intent)
    assert.equal(result.action, 'pay')
    assert.match(result.paymentError ?? '', /spendControls|not (allowed|a default)|default asset/i)
    assert.equal(seen.length, 1)
  })

  it('without a payer, a 0x55 is the value action pay with the PaymentRequired', async () => {
    const result = await createGatewayClient({ url }).execute(intent)
    assert.equal(result.action, 'pay')
    assert.equal((result.paymentRequired as { accepts: { amount: string }[] }).accepts[0]!.amount, '10000')
    assert.equal(result.paymentError, undefined)
    assert.equal(seen.length, 1)
  })

  it('never pays a 0x54: action fund with the shortfall, one request, no payment signature', async () => {
    unpaidCode = '0x54'
    const result = await createGatewayClient({ url, payment: { signer: payer, spendControls: false } }).execute(intent)
    assert.equal(result.action, 'fund')
    assert.equal(result.status, '0x54')
    assert.equal(result.funding?.amount, 5000n)
    assert.equal(result.funding?.function, 'depositFor(address)')
    assert.equal(seen.length, 1)
    assert.equal(seen[0]!.signature, undefined)
  })

  it('the CLI: --pay within --allow-asset pays (exit 0, the settlement in --json); over the limit or without --pay, exit 5; a 0x54, exit 6', async () => {
    const cli = (args: string[]) =>
      new Promise<{ code: number; stdout: string }>((done) => {
        execFile(
          process.execPath,
          [
            resolve(import.meta.dirname, '../bin/intent-gateway.js'),
            'execute',
            '--url',
            url,
            '--json',
            '--intent',
            '-',
            ...args,
          ],
          {
            env: {
              PATH: process.env.PATH ?? '',
              INTENT_PAYER_PRIVATE_KEY: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
            },
          },
          (err, stdout) => done({ code: err ? Number(err.code) : 0, stdout }),
        ).stdin!.end(JSON.stringify(intent))
      })
    const paid = await cli(['--pay', '--allow-asset', `${network}/${token}=10000`])
    assert.equal(paid.code, 0, paid.stdout)
    assert.equal(JSON.parse(paid.stdout).payment.payer, payer.address)
    const over = await cli(['--pay', '--allow-asset', `${network}/${token}=9999`])
    assert.equal(over.code, 5)
    assert.match(JSON.parse(over.stdout).paymentError, /spendControls/)
    assert.equal((await cli([])).code, 5)
    unpaidCode = '0x54'
    assert.equal((await cli(['--pay', '--allow-asset', `${network}/${token}=10000`])).code, 6)
    assert.deepEqual(
      seen.map((s) => s.signature !== undefined),
      [false, true, false, false, false],
    )
  })
})
