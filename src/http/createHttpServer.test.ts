import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import pino from 'pino'
import { createHttpServer } from './createHttpServer.ts'

/** A raw chunked upload that keeps sending (every `everyMs`, or as fast as the socket takes it) until the server closes. */
function endlessUpload(port: number, { everyMs, chunkBytes }: { everyMs: number | undefined; chunkBytes: number }) {
  return new Promise<{ answer: string; sent: number; ms: number }>((resolve) => {
    const started = performance.now()
    let answer = ''
    let sent = 0
    const chunk = Buffer.alloc(chunkBytes, 'a')
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
    let timer: ReturnType<typeof setInterval> | undefined
    // Half-open: it keeps sending after the server's FIN, as a client that does not read would.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(
        'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      )
      const pump = () => {
        // At most 256 MiB: a server without the bound fails the test instead of running forever.
        while (!socket.destroyed && sent < 256 * 1024 * 1024) {
          sent += chunk.length
          if (!socket.write(frame)) return void socket.once('drain', pump)
        }
      }
      if (everyMs === undefined) pump()
      else timer = setInterval(() => socket.destroyed || ((sent += chunk.length), socket.write(frame)), everyMs)
    })
    socket.on('data', (d) => (answer += d))
    socket.on('error', () => undefined)
    socket.setTimeout(15_000, () => socket.destroy())
    socket.on('close', () => {
      clearInterval(timer)
      resolve({ answer, sent, ms: performance.now() - started })
    })
  })
}

describe('createHttpServer', () => {
  let server: Server
  let port: number
  const lingerBytes = 256 * 1024
  const lingerMs = 600
  before(async () => {
    // Answers at once without reading the body, closing the connection, as a 413 does.
    server = createHttpServer({
      handler: (_request, response) =>
        response.writeHead(413, { 'content-type': 'text/plain', connection: 'close' }).end('too large'),
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 5_000,
      maxConnections: 16,
      lingerBytes,
      lingerMs,
      logger: pino({ level: 'silent' }),
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  it('after an early answer, reads a body that keeps coming for at most lingerMs, then closes', async () => {
    const result = await endlessUpload(port, { everyMs: 20, chunkBytes: 1024 })
    assert.match(result.answer, /^HTTP\/1\.1 413 /)
    assert.ok(result.ms >= lingerMs - 50 && result.ms < lingerMs + 1_500, `closed after ${Math.round(result.ms)} ms`)
  })

  it('after an early answer, closes as soon as the rest of the body has come in', async () => {
    const serverClosed = new Promise<number>((resolve) =>
      server.once('connection', (s) => s.once('close', () => resolve(performance.now()))),
    )
    let answer = ''
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    socket.on('data', (d) => (answer += d))
    socket.on('error', () => undefined)
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n')
    for (let i = 0; i < 10; i++) {
      socket.write(`400\r\n${'a'.repeat(1024)}\r\n`)
      await new Promise((r) => setTimeout(r, 20))
    }
    // The last chunk; the client stays connected, as one waiting for its answer would.
    socket.write('0\r\n\r\n')
    const bodyEnded = performance.now()
    const closedAt = await Promise.race([
      serverClosed,
      new Promise<number>((r) => setTimeout(() => r(Number.POSITIVE_INFINITY), 3_000)),
    ])
    socket.destroy()
    assert.match(answer, /^HTTP\/1\.1 413 /)
    assert.ok(
      closedAt - bodyEnded < lingerMs / 2,
      `the server closed ${Math.round(closedAt - bodyEnded)} ms after the body ended`,
    )
  })

  it('after an early answer, reads at most about lingerBytes of a fast body, then cuts the connection', async () => {
    const result = await endlessUpload(port, { everyMs: undefined, chunkBytes: 16 * 1024 })
    // What the kernel's buffers hold on both sides comes on top of what the server read.
    assert.ok(result.sent < 64 * 1024 * 1024, `the client sent ${result.sent} bytes before the server cut it`)
    assert.ok(result.ms < lingerMs, `cut by size after ${Math.round(result.ms)} ms, not by time`)
  })
})
