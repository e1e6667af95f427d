import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, it } from 'node:test'
import pino from 'pino'
import { createEndpointPool } from './createEndpointPool.ts'

describe('createEndpointPool with one endpoint', () => {
  // A node that answers eth_chainId, and fails the next `failNext` other calls with a 502.
  let failNext = 0
  const seen: string[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string }
      seen.push(method)
      if (method !== 'eth_chainId' && failNext > 0) {
        failNext--
        return void res.writeHead(502).end('bad gateway')
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'eth_chainId' ? '0x7a69' : '0x2a' }))
    })
  })
  let url = ''
  before(async () => {
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  })
  after(() => server.close())
  const pool = () =>
    createEndpointPool({
      chainId: 'eip155:31337',
      reference: 31337,
      endpoints: [{ url, source: 'config' }],
      timeoutMs: 2000,
      logger: pino({ level: 'silent' }),
    })

  it('asks a read once more when its only endpoint fails it, and answers', async () => {
    const p = pool()
    failNext = 1
    seen.length = 0
    assert.equal(await p.request({ method: 'eth_blockNumber' }), '0x2a')
    assert.deepEqual(seen.filter((m) => m === 'eth_blockNumber').length, 2)
    await p.close()
  })

  it('does not ask a read again when its only endpoint timed out: one deadline, not two', async () => {
    // Answers eth_chainId (the endpoint is verified), never anything else: a hung node.
    const asked: string[] = []
    const hung = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string }
        asked.push(method)
        if (method === 'eth_chainId')
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x7a69' }))
      })
    })
    await new Promise<void>((listening) => hung.listen(0, '127.0.0.1', () => listening()))
    const p = createEndpointPool({
      chainId: 'eip155:31337',
      reference: 31337,
      endpoints: [{ url: `http://127.0.0.1:${(hung.address() as { port: number }).port}`, source: 'config' }],
      timeoutMs: 300,
      logger: pino({ level: 'silent' }),
    })
    try {
      await assert.rejects(p.request({ method: 'eth_blockNumber' }))
      assert.equal(asked.filter((m) => m === 'eth_blockNumber').length, 1, `asked: ${asked.join(', ')}`)
    } finally {
      await p.close()
      hung.closeAllConnections()
      hung.close()
    }
  })

  it('fails a read that fails twice, and never asks a write twice', async () => {
    const p = pool()
    failNext = 2
    await assert.rejects(p.request({ method: 'eth_blockNumber' }))
    failNext = 1
    seen.length = 0
    await assert.rejects(p.request({ method: 'eth_sendRawTransaction', params: ['0x00'] }))
    assert.equal(seen.filter((m) => m === 'eth_sendRawTransaction').length, 1)
    await p.close()
  })
})
