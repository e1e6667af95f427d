import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, it } from 'node:test'
import pino from 'pino'
import { createPublicClient, type Hex, http } from 'viem'
import { createEndpointPool } from '../../createEndpointPool.ts'
import { watchReceipts } from './watchReceipts.ts'

const txHash = `0x${'ab'.repeat(32)}` as Hex

/** A receipt as a node sends it (JSON-RPC's hex quantities), mined in block 1. */
const rpcReceipt = {
  blockHash: `0x${'11'.repeat(32)}`,
  blockNumber: '0x1',
  contractAddress: null,
  cumulativeGasUsed: '0x5208',
  effectiveGasPrice: '0x3b9aca00',
  from: `0x${'22'.repeat(20)}`,
  gasUsed: '0x5208',
  logs: [],
  logsBloom: `0x${'00'.repeat(256)}`,
  status: '0x1',
  to: `0x${'33'.repeat(20)}`,
  transactionHash: txHash,
  transactionIndex: '0x0',
  type: '0x2',
}

describe('watchReceipts', () => {
  // A node whose head is block 1 and whose eth_getBlockReceipts answers null for it `nullsLeft`
  // times (an endpoint of the pool behind the one that answered the head), then its receipts.
  // It never answers a transaction's receipt alone: only the block's read can find it.
  let nullsLeft = 0
  const asked: string[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const calls = JSON.parse(body) as { id: number; method: string } | { id: number; method: string }[]
      const answer = ({ id, method }: { id: number; method: string }) => {
        asked.push(method)
        const result =
          method === 'eth_chainId'
            ? '0x7a69'
            : method === 'eth_blockNumber'
              ? '0x1'
              : method === 'eth_getBlockReceipts'
                ? nullsLeft-- > 0
                  ? null
                  : [rpcReceipt]
                : null
        return { jsonrpc: '2.0', id, result }
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(Array.isArray(calls) ? calls.map(answer) : answer(calls)))
    })
  })
  let url = ''
  before(async () => {
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  })
  after(() => server.close())

  it('reads a block again when the node answers null for it (it does not have it yet), rather than take it for a block that mined nothing; warns once', async () => {
    nullsLeft = 2
    const lines: string[] = []
    const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) })
    const pool = createEndpointPool({
      chainId: 'eip155:31337',
      reference: 31337,
      endpoints: [{ url, source: 'config' }],
      timeoutMs: 2000,
      logger: pino({ level: 'silent' }),
    })
    const watcher = watchReceipts({
      client: createPublicClient({ transport: http(url) }),
      pool,
      log,
      pollingIntervalMs: 5,
    })
    try {
      const receipt = await Promise.race([
        watcher.wait(txHash),
        new Promise<'not found'>((r) => setTimeout(r, 2_000, 'not found')),
      ])
      assert.notEqual(
        receipt,
        'not found',
        `block 1 was taken for an empty block (read ${asked.filter((m) => m === 'eth_getBlockReceipts').length} times)`,
      )
      assert.equal((receipt as { blockNumber: bigint }).blockNumber, 1n)
      assert.equal(asked.filter((m) => m === 'eth_getBlockReceipts').length, 3, 'null twice, then its receipts')
      const failures = lines
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .filter((l) => /receipt watch/.test(l.msg))
      assert.deepEqual(
        failures.map((l) => l.level),
        [40, 20],
        'the first failed read at warn, the next within the minute at debug',
      )
    } finally {
      watcher.close()
      await pool.close()
    }
  })
})
