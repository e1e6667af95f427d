// The logger with tracing's mixin: a line written outside any span carries its own fields only,
// never those of lines written before it (pino merges each line's fields into the mixin's object).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { traceLogFields } from '../tracing/traceLogFields.ts'
import { createLogger } from './createLogger.ts'

describe('createLogger with the tracing mixin', () => {
  it("writes a line outside a span with its own fields only, none of an earlier line's", () => {
    const lines: Record<string, unknown>[] = []
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
      mixin: traceLogFields,
    })
    logger.info({ programId: 'Prog1111', reqId: 'req-1' }, 'first')
    logger.child({ module: 'webhooks' }).info({ endpoint: 'https://hooks.example' }, 'second')
    logger.info('third')
    assert.deepEqual(
      lines.map(({ level: _, time: __, pid: ___, hostname: ____, ...rest }) => rest),
      [
        { service: 'intent-gateway', programId: 'Prog1111', reqId: 'req-1', msg: 'first' },
        { service: 'intent-gateway', module: 'webhooks', endpoint: 'https://hooks.example', msg: 'second' },
        { service: 'intent-gateway', msg: 'third' },
      ],
    )
  })
})

describe('createLogger with a frozen error', () => {
  // Found by the fault campaign (solanapaid phase, RPC faults): @solana/kit's errors can be frozen,
  // and pino's error serializer tags each error it walks; a frozen one made it throw inside
  // logger.warn, which the payments' periodic pass did not catch: the gateway process died.
  it('writes the line (type, code, message with its cause, stack) instead of throwing', () => {
    const lines: Record<string, unknown>[] = []
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    })
    const err = Object.freeze(
      Object.assign(
        new Error('fetch failed at http://user:secret@rpc.example/x', { cause: new Error('other side closed') }),
        { code: 'UND_ERR_SOCKET' },
      ),
    )
    assert.doesNotThrow(() => logger.warn({ err }, 'a pass failed'))
    const written = lines[0]!.err as Record<string, unknown>
    assert.equal(written.type, 'Error')
    assert.equal(written.code, 'UND_ERR_SOCKET')
    assert.match(String(written.message), /^fetch failed at /)
    assert.doesNotMatch(String(written.message), /secret/)
    assert.match(String(written.stack), /createLogger\.test/)
    assert.match(String(written.message), /other side closed/, "the cause's message, as pino writes it")
    assert.equal(lines[0]!.msg, 'a pass failed')
  })

  // Found by the fault campaign again (solanapaid, RPC faults, seed 962989776): an extensible
  // error holding a frozen one (its cause, or an own field) still made pino throw, and the payments'
  // periodic pass took the process down with it.
  it('copies a frozen error reached through an extensible one (its cause, an own field)', () => {
    const lines: Record<string, unknown>[] = []
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    })
    const frozen = Object.freeze(new Error('blockhash not found'))
    const viaCause = new Error('the pass failed', { cause: frozen })
    const viaField = Object.assign(new Error('the settle failed'), { inner: frozen })
    assert.doesNotThrow(() => logger.warn({ err: viaCause }, 'a'))
    assert.doesNotThrow(() => logger.warn({ err: viaField }, 'b'))
    assert.match(String((lines[0]!.err as Record<string, unknown>).message), /blockhash not found/)
    assert.equal(
      ((lines[1]!.err as Record<string, unknown>).inner as Record<string, unknown>).message,
      'blockhash not found',
    )
  })

  // @solana/kit's HTTP error is extensible, but its `context` (an own field with a string
  // `message`, which pino walks as an error) is frozen: seen as `serializer: 'failed'` in the
  // campaign's log, its message and status lost.
  it("writes @solana/kit's HTTP error whole (its frozen context walked as an error by pino)", async () => {
    const { SolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR } = await import('@solana/kit')
    const lines: Record<string, unknown>[] = []
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    })
    const err = new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, {
      headers: new Headers(),
      message: 'Internal Server Error',
      statusCode: 500,
    })
    logger.warn({ err }, 'lost')
    const written = lines[0]!.err as Record<string, unknown>
    assert.equal(written.serializer, undefined)
    assert.match(String(written.message), /HTTP error \(500\)/)
    assert.equal((written.context as Record<string, unknown>).statusCode, 500)
  })
})
