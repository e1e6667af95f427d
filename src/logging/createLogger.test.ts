// The logger with tracing's mixin: a line written outside any span carries its own fields only,
// never those of lines written before it (pino merges each line's fields into the mixin's object).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger } from './createLogger.ts'
import { traceLogFields } from '../tracing/traceLogFields.ts'

describe('createLogger with the tracing mixin', () => {
  it("writes a line outside a span with its own fields only, none of an earlier line's", () => {
    const lines: Record<string, unknown>[] = []
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) }, mixin: traceLogFields })
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
