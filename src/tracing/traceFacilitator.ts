// x402 payment steps as child spans: the facilitator's verify and settle (in-process or remote),
// each under the request that pays. Attributes name the price (network, scheme, asset, amount)
// and the outcome (valid or not and why, the settlement transaction); never the payment payload,
// whose authorization signature is the payer's money.
import { type Attributes, context, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api'
import type { FacilitatorClient } from '@x402/core/server'

type Requirements = Parameters<FacilitatorClient['verify']>[1]

export function traceFacilitator<F extends FacilitatorClient>(client: F, tracer: Tracer): F {
  const step = <T>(
    name: 'verify' | 'settle',
    requirements: Requirements,
    run: () => Promise<T>,
    outcome: (result: T) => Attributes,
  ): Promise<T> => {
    const parent = context.active()
    if (!trace.getSpan(parent)) return run()
    const span = tracer.startSpan(
      `x402 ${name}`,
      { kind: SpanKind.CLIENT, attributes: { 'intent_gateway.payment.step': name, ...priceOf(requirements) } },
      parent,
    )
    return context.with(trace.setSpan(parent, span), run).then(
      (result) => {
        span.setAttributes(outcome(result))
        span.end()
        return result
      },
      (err: unknown) => {
        span.setAttribute('error.type', (err as { code?: string })?.code ?? (err as Error)?.name ?? 'Error')
        span.setStatus({ code: SpanStatusCode.ERROR })
        span.end()
        throw err
      },
    )
  }
  return {
    ...client,
    verify: (payload, requirements) =>
      step(
        'verify',
        requirements,
        () => client.verify(payload, requirements),
        (r) => ({
          'intent_gateway.payment.valid': r.isValid,
          ...(r.invalidReason ? { 'intent_gateway.payment.reason': r.invalidReason } : {}),
        }),
      ),
    settle: (payload, requirements) =>
      step(
        'settle',
        requirements,
        () => client.settle(payload, requirements),
        (r) => ({
          'intent_gateway.payment.settled': r.success,
          ...(r.errorReason ? { 'intent_gateway.payment.reason': r.errorReason } : {}),
          ...(r.transaction ? { 'intent_gateway.payment.transaction': r.transaction } : {}),
        }),
      ),
    getSupported: () => client.getSupported(),
  }
}

function priceOf(requirements: Requirements): Attributes {
  const r = requirements as { scheme?: string; network?: string; asset?: string; amount?: string }
  return {
    ...(r.scheme ? { 'intent_gateway.payment.scheme': r.scheme } : {}),
    ...(r.network ? { 'intent_gateway.payment.network': r.network } : {}),
    ...(r.asset ? { 'intent_gateway.payment.asset': r.asset } : {}),
    ...(r.amount ? { 'intent_gateway.payment.amount': r.amount } : {}),
  }
}
