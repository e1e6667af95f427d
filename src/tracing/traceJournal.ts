// Journal writes as child spans: a proxy of the Journal port whose writes (claim, recordSigned,
// settle, replace, release, …) each run in a span under the active one. recordSigned is also where
// a relayer's signature shows in a trace: the runtimes sign inside their own rooms and journal the
// signed transaction before broadcasting it. Reads, and writes outside any trace (the reconciler's,
// retention's), pass straight through.
import { type Attributes, context, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api'
import type { SignedExecution } from '../ports/chainAdapter.ts'
import type { ExecutionRecord, Journal, Settlement } from '../ports/journal.ts'

const writes = new Set<string>([
  'claim',
  'release',
  'withdraw',
  'recordSigned',
  'settle',
  'replace',
  'confirm',
  'reopen',
  'retire',
  'rebind',
])

export function traceJournal(journal: Journal, tracer: Tracer): Journal {
  const system = journal.dbSystem
  const wrapped = new Map<string, unknown>()
  return new Proxy(journal, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown
      if (typeof name !== 'string' || !writes.has(name) || typeof value !== 'function') return value
      let traced = wrapped.get(name)
      if (!traced) {
        const write = value as (...args: unknown[]) => Promise<unknown>
        traced = (...args: unknown[]) => {
          const parent = context.active()
          if (!trace.getSpan(parent)) return write.apply(target, args)
          const span = tracer.startSpan(
            `journal ${name}`,
            { attributes: { 'db.system.name': system, 'db.operation.name': name, ...describe(name, args) } },
            parent,
          )
          const failed = (err: unknown) => {
            span.setAttribute('error.type', (err as { code?: string })?.code ?? (err as Error)?.name ?? 'Error')
            span.setStatus({ code: SpanStatusCode.ERROR })
            span.end()
            throw err
          }
          let pending: unknown
          try {
            pending = context.with(trace.setSpan(parent, span), () => write.apply(target, args))
          } catch (err) {
            failed(err)
          }
          return Promise.resolve(pending).then((result) => {
            if (name === 'claim') span.setAttribute('intent_gateway.journal.claimed', (result as { ok: boolean }).ok)
            if (typeof result === 'boolean') span.setAttribute('intent_gateway.journal.changed', result)
            span.end()
            return result
          }, failed)
        }
        wrapped.set(name, traced)
      }
      return traced
    },
  })
}

/** Public identifiers only: the chain, the intent hash, the attempt and the transaction id; never the signed bytes or the intent's signature. */
function describe(name: string, args: unknown[]): Attributes {
  const first = args[0] as Partial<ExecutionRecord> | undefined
  const attributes: Attributes = {}
  if (first?.chainId) attributes['intent_gateway.chain_id'] = first.chainId
  if (first?.intentHash) attributes['intent_gateway.intent_hash'] = first.intentHash
  if (typeof first?.attempt === 'number') attributes['intent_gateway.journal.attempt'] = first.attempt
  if (name === 'recordSigned' || name === 'replace') {
    const tx = args[1] as SignedExecution | undefined
    if (tx?.id) attributes['intent_gateway.transaction_id'] = tx.id
    if (tx?.relayer) attributes['intent_gateway.relayer'] = tx.relayer
  }
  if (name === 'settle') {
    const settlement = args[1] as Settlement | undefined
    if (settlement?.state) attributes['intent_gateway.journal.state'] = settlement.state
  }
  return attributes
}
